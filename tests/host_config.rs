//! The host's config file (`WORK/config.json`) and `--env`, through the `nanotool` binary:
//! flag > file > default, every bad entry left out with a warning naming the file and the key
//! (and an MCP log message to the client of `serve`), variables
//! reaching commands (never a refused name), per-tool entries over a tool's own settings, a
//! tool's own readable paths given to that tool only, and `check` reporting it all.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use common::bin::nanotool_bin;
use common::run::Run;

/// A project folder (the cwd of every run) with `.work/tools` and maybe `.work/config.json`.
struct Project {
    dir: tempfile::TempDir,
    /// The user's state folder (`nanotool trust` keeps its approvals there).
    state: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".work/tools")).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "one\ntwo\n").unwrap();
        Project {
            dir,
            state: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn descriptor(&self, value: Value) -> &Project {
        let name = value["name"].as_str().unwrap().to_owned();
        std::fs::write(
            self.path().join(format!(".work/tools/{name}.tool.json")),
            value.to_string(),
        )
        .unwrap();
        self
    }

    fn config(&self, text: &str) -> &Project {
        std::fs::write(self.path().join(".work/config.json"), text).unwrap();
        self
    }

    fn run(&self, args: &[&str]) -> Run {
        self.run_env(args, &[])
    }

    fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = Command::new(nanotool_bin());
        command
            .args(args)
            .current_dir(self.path())
            .env("XDG_STATE_HOME", self.state.path());
        for (k, v) in env {
            command.env(k, v);
        }
        Run(command.output().expect("run nanotool"))
    }
}

fn printenv() -> Value {
    json!({"name": "show_env", "description": "Print the environment", "command": "printenv"})
}

/// The host setting `name` of `list --json`: (value, from).
fn host_setting(list: &Value, name: &str) -> (String, String) {
    let settings = list[0]["host"]["settings"].as_array().unwrap();
    let s = settings
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no host setting {name}: {settings:?}"));
    (
        s["value"].as_str().unwrap().to_owned(),
        s["from"].as_str().unwrap().to_owned(),
    )
}

/// The settings of tool `tool` of `list --json`, as (name, value, from).
fn tool_settings(list: &Value, tool: &str) -> Vec<(String, String, String)> {
    let entry = list
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == tool)
        .unwrap_or_else(|| panic!("no tool {tool}"));
    entry["settings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                s["value"].as_str().unwrap().to_owned(),
                s["from"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_flag_wins_over_the_file_which_wins_over_the_default() {
    let p = Project::new();
    p.descriptor(printenv());
    // Default.
    let list = p.run(&["list", "--json"]).expect(0).json();
    assert_eq!(
        host_setting(&list, "timeout"),
        ("30 s".into(), "default".into())
    );
    assert_eq!(
        host_setting(&list, "max_output"),
        ("30000 bytes".into(), "default".into())
    );
    assert_eq!(list[0]["host"]["config"], Value::Null);
    // File.
    p.config(r#"{"timeout": 60, "max_output": 4096, "sandbox": "required"}"#);
    let list = p.run(&["list", "--json"]).expect(0).json();
    assert_eq!(
        host_setting(&list, "timeout"),
        ("60 s".into(), "config".into())
    );
    assert_eq!(
        host_setting(&list, "max_output"),
        ("4096 bytes".into(), "config".into())
    );
    assert_eq!(
        host_setting(&list, "sandbox"),
        ("required".into(), "config".into())
    );
    assert!(
        list[0]["host"]["config"]
            .as_str()
            .unwrap()
            .ends_with("config.json")
    );
    // Flag over file.
    let list = p
        .run(&["list", "--json", "--timeout", "7"])
        .expect(0)
        .json();
    assert_eq!(
        host_setting(&list, "timeout"),
        ("7 s".into(), "flag".into())
    );
    assert_eq!(
        host_setting(&list, "max_output"),
        ("4096 bytes".into(), "config".into())
    );
    // --no-config: as without the file.
    let list = p.run(&["list", "--json", "--no-config"]).expect(0).json();
    assert_eq!(
        host_setting(&list, "timeout"),
        ("30 s".into(), "default".into())
    );
    // The text list says it too.
    let text = p.run(&["list"]).expect(0).stdout();
    assert!(text.contains("timeout 60 s (config)"), "{text}");
    assert!(text.contains("max_output 4096 bytes (config)"), "{text}");
}

#[test]
fn the_files_values_govern_calls_and_the_flag_overrides_them() {
    let p = Project::new();
    p.descriptor(json!({"name": "nap", "description": "Sleep", "command": "sleep 30"}));
    p.descriptor(json!({"name": "lines", "description": "Print lines", "command": "seq 1 100000"}));
    p.config(r#"{"timeout": 1, "max_output": 200}"#);
    let nap = p.run(&["call", "nap", "--json"]).expect(0).json();
    assert_eq!(nap["timed_out"], true, "{nap}");
    let lines = p.run(&["call", "lines", "--json"]).expect(0).json();
    assert_eq!(lines["truncated"], true, "{lines}");
    assert!(lines["output"].as_str().unwrap().len() < 400, "{lines}");
    // A flag over the file: this cap lets the whole output through.
    let lines = p
        .run(&["call", "lines", "--json", "--max-output", "1000000"])
        .expect(0)
        .json();
    assert_eq!(lines["truncated"], false, "{lines}");
}

#[test]
fn a_relative_cwd_in_the_file_is_read_from_the_files_folder_so_serve_needs_only_work() {
    let p = Project::new();
    p.descriptor(
        json!({"name": "cat_notes", "description": "Print notes", "command": "cat notes.txt"}),
    );
    p.config(r#"{"cwd": ".."}"#);
    // Run from elsewhere, naming only the work folder: the commands run in the project.
    let elsewhere = tempfile::tempdir().unwrap();
    let work = p.path().join(".work");
    let out = Command::new(nanotool_bin())
        .args(["--work", work.to_str().unwrap(), "call", "cat_notes"])
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("one\ntwo"), "{stdout}");
}

#[test]
fn every_bad_config_entry_is_left_out_with_a_warning_and_check_fails() {
    let cases: &[(&str, &str)] = &[
        (r#"{"timout": 60}"#, "`timout`"),
        (r#"{"timeout": 0}"#, "`timeout`"),
        (r#"{"timeout": "soon"}"#, "`timeout`"),
        (r#"{"max_output": 99999999999}"#, "`max_output`"),
        (r#"{"sandbox": "strict"}"#, "`sandbox`"),
        (
            r#"{"sandbox_read": ["/no/such/folder"]}"#,
            "`sandbox_read[0]`",
        ),
        (r#"{"cwd": 5}"#, "`cwd`"),
        (r#"{"memory": "4 lots"}"#, "`memory`"),
        (r#"{"open_files": 0}"#, "`open_files`"),
        (
            r#"{"processes": 0}"#,
            "`processes`: processes of 0 is out of range: give a count from 8 to 4194304",
        ),
        (
            r#"{"processes": 5}"#,
            "`processes`: processes of 5 is out of range",
        ),
        (
            r#"{"processes": "many"}"#,
            "`processes`: `many` is not a whole number",
        ),
        (
            r#"{"cgroup": "sometimes"}"#,
            "`cgroup`: unknown cgroup mode `sometimes`",
        ),
        (r#"{"cgroup": true}"#, "`cgroup`: is a boolean"),
        (
            r#"{"tools": {"t": {"processes": 0}}}"#,
            "`tools.t.processes`: processes of 0 is out of range",
        ),
        (
            r#"{"allow_exec": "ls"}"#,
            "`allow_exec`: is a string; write an array of names, e.g.",
        ),
        (
            r#"{"sandbox_read": "~/.cargo"}"#,
            "`sandbox_read`: is a string; write an array of paths, e.g.",
        ),
        (r#"{"deny": [""]}"#, "`deny[0]`"),
        (
            r#"{"env": {"LD_PRELOAD": "/tmp/x.so"}}"#,
            "`env.LD_PRELOAD`",
        ),
        (r#"{"env": {"PATH": "/tmp"}}"#, "`env.PATH`"),
        (
            r#"{"env": {"GIT_CONFIG_GLOBAL": "/tmp/x"}}"#,
            "`env.GIT_CONFIG_GLOBAL`",
        ),
        (r#"{"env": {"N": 1}}"#, "`env.N`"),
        (r#"{"pass_env": ["HOME"]}"#, "`pass_env[0]`"),
        (r#"{"tools": {"t": {"writes": true}}}"#, "`tools.t.writes`"),
        (r#"{"tools": {"t": {"timeout": 0}}}"#, "`tools.t.timeout`"),
        (
            r#"{"tools": {"t": {"env": {"LD_AUDIT": "x"}}}}"#,
            "`tools.t.env.LD_AUDIT`",
        ),
        (
            r#"{"tools": {"t": {"sandbox_read": ["/no/such"]}}}"#,
            "`tools.t.sandbox_read[0]`",
        ),
        (r#"{"tools": []}"#, "`tools`"),
        (r#"{"timeout": 5, "timeout": 6}"#, "not valid JSON"),
        (r#"{"timeout": 5"#, "not valid JSON"),
        (r#"[1, 2]"#, "not a JSON object"),
    ];
    for (text, key) in cases {
        let p = Project::new();
        p.config(text);
        // The bad entry is dropped with a warning naming the file and the key, as a bad
        // descriptor drops its tool: the tools still list, run and serve.
        for args in [
            &["list"][..],
            &["call", "grep", r#"{"pattern": "one"}"#],
            &["serve"],
        ] {
            let run = p.run(args);
            let err = run.stderr();
            assert_eq!(run.code(), 0, "{text} {args:?}: {err}");
            assert!(
                err.contains("config.json") && err.contains(key),
                "{text} {args:?}: the warning names neither the file nor {key}: {err}"
            );
            assert!(err.contains("left out"), "{text} {args:?}: {err}");
            assert!(!err.contains("panicked"), "{err}");
        }
        assert!(p.run(&["list"]).stdout().contains("grep"), "{text}");
        // `check` reports it as an error (exit 1), in text and JSON.
        let run = p.run(&["check"]);
        assert_eq!(run.code(), 1, "{text}: {}", run.stdout());
        assert!(run.stdout().contains(key), "{text}: {}", run.stdout());
        let json = p.run(&["check", "--json"]).json();
        let errors = json["errors"].as_array().unwrap();
        assert!(
            errors
                .iter()
                .any(|e| e["message"].as_str().unwrap().contains(key)
                    && e["file"].as_str().unwrap().ends_with("config.json")),
            "{text}: {json}"
        );
    }
}

#[test]
fn variables_from_the_file_and_the_flag_reach_commands_and_refused_names_never_do() {
    let p = Project::new();
    p.descriptor(printenv());
    p.config(r#"{"env": {"RUST_BACKTRACE": "1", "SHARED": "file"}, "pass_env": ["DB_URL"]}"#);
    let run = p.run_env(
        &[
            "call",
            "show_env",
            "--env",
            "SHARED=flag",
            "--env",
            "FROM_HOST",
        ],
        &[("DB_URL", "postgres://secret@db"), ("FROM_HOST", "yes")],
    );
    let out = run.expect(0).stdout();
    for line in [
        "RUST_BACKTRACE=1",
        "SHARED=flag",
        "DB_URL=postgres://secret@db",
        "FROM_HOST=yes",
    ] {
        assert!(
            out.lines()
                .any(|l| l.trim_start_matches("output: ") == line),
            "{line} missing:\n{out}"
        );
    }
    // `list` names a passed variable and its source, never its value.
    let list = p.run_env(&["list", "--json"], &[("DB_URL", "postgres://secret@db")]);
    let text = list.expect(0).stdout();
    assert!(!text.contains("secret@db"), "{text}");
    assert!(tool_settings(&list.json(), "show_env").contains(&(
        "env".into(),
        "DB_URL".into(),
        "config".into()
    )));
    // Refused names on the command line: the run stops before any command, naming the flag.
    for refused in [
        "LD_PRELOAD=/tmp/x.so",
        "PATH=/tmp",
        "GIT_DIR=/",
        "HOME=/",
        "A=B=C=",
        "1X=2",
    ] {
        let p = Project::new();
        p.descriptor(printenv());
        let run = p.run(&["call", "show_env", "--env", refused]);
        let err = run.stderr();
        let name = refused.split('=').next().unwrap();
        if name == "A" {
            // `A=B=C=` is A set to `B=C=`: a legal value.
            run.expect(0);
            assert!(
                run.stdout()
                    .lines()
                    .any(|l| l.trim_start_matches("output: ") == "A=B=C="),
                "{}",
                run.stdout()
            );
            continue;
        }
        assert_eq!(run.code(), 1, "{refused}: {err}");
        assert!(
            err.contains("--env") && err.contains(name),
            "{refused}: {err}"
        );
    }
    // A name alone that this process does not have.
    let run = p.run(&[
        "call",
        "show_env",
        "--env",
        "NANOTOOL_TEST_NOT_SET_ANYWHERE",
    ]);
    assert_eq!(run.code(), 1);
    assert!(
        run.stderr().contains("NANOTOOL_TEST_NOT_SET_ANYWHERE="),
        "{}",
        run.stderr()
    );
}

#[test]
fn a_tools_entry_overrides_its_own_settings_and_leaves_the_others_at_the_default() {
    let p = Project::new();
    p.descriptor(
        json!({"name": "cargo_test", "description": "Run the tests", "command": "true",
        "timeout": 300, "env": {"RUST_BACKTRACE": "1"}}),
    );
    p.descriptor(json!({"name": "git_status", "description": "Status", "command": "git status"}));
    p.config(r#"{"tools": {"cargo_test": {"timeout": 900, "max_output": 65536}}}"#);
    let list = p.run(&["list", "--json"]).expect(0).json();
    let cargo = tool_settings(&list, "cargo_test");
    assert!(
        cargo.contains(&(
            "timeout".into(),
            "900 s".into(),
            "config: tools.cargo_test".into()
        )),
        "{cargo:?}"
    );
    assert!(
        cargo.contains(&(
            "max_output".into(),
            "65536 bytes".into(),
            "config: tools.cargo_test".into()
        )),
        "{cargo:?}"
    );
    assert!(
        cargo.contains(&("env".into(), "RUST_BACKTRACE".into(), "tool".into())),
        "{cargo:?}"
    );
    let git = tool_settings(&list, "git_status");
    assert!(
        git.contains(&("timeout".into(), "30 s".into(), "default".into())),
        "{git:?}"
    );
    // The timeout applies: a per-tool entry of 1 s kills a 30 s sleep.
    p.descriptor(json!({"name": "nap", "description": "Sleep", "command": "sleep 30"}));
    p.config(r#"{"tools": {"nap": {"timeout": 1}}}"#);
    let nap = p.run(&["call", "nap", "--json"]).expect(0).json();
    assert_eq!(nap["timed_out"], true, "{nap}");
    // An entry for no tool: a warning when serving or calling, an error for `check`.
    p.config(r#"{"tools": {"cargo_tset": {"timeout": 900}}}"#);
    let run = p.run(&["list"]);
    run.expect(0);
    assert!(
        run.stderr().contains("cargo_tset") && run.stderr().contains("cargo_test"),
        "{}",
        run.stderr()
    );
    let run = p.run(&["check"]);
    assert_eq!(run.code(), 1, "{}", run.stdout());
    assert!(
        run.stdout().contains("tools.cargo_tset"),
        "{}",
        run.stdout()
    );
}

#[test]
fn a_denial_in_the_file_refuses_a_descriptor_and_exec() {
    let p = Project::new();
    p.descriptor(
        json!({"name": "fetch", "description": "Fetch", "command": "curl <url>",
        "network": true, "arguments": {"url": {"type": "string", "description": "URL"}}}),
    );
    p.config(r#"{"deny": ["curl"], "allow_exec": ["ls", "curl"]}"#);
    let run = p.run(&["list"]);
    assert_eq!(run.code(), 1, "{}", run.stdout());
    assert!(run.stderr().contains("curl"), "{}", run.stderr());
    p.config(r#"{"deny": ["curl"]}"#);
    let run = p.run(&["check"]);
    assert_eq!(run.code(), 1, "{}", run.stdout());
    assert!(
        run.stdout().contains("fetch") || run.stdout().contains("curl"),
        "{}",
        run.stdout()
    );
    let run = p.run(&["list"]);
    run.expect(0);
    assert!(!run.stdout().contains("fetch"), "{}", run.stdout());
}

/// A tool's own `sandbox_read` opens that folder to that tool only: another tool cannot read
/// it (where the sandbox is enforced here).
#[test]
fn a_tools_own_readable_path_is_given_to_that_tool_only() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "toolchain-file\n").unwrap();
    let file = outside.path().join("secret.txt");
    let file = file.to_str().unwrap();
    let p = Project::new();
    p.descriptor(
        json!({"name": "reader", "description": "Read the toolchain file",
        "command": format!("cat {file}"), "sandbox_read": [outside.path()]}),
    );
    p.descriptor(
        json!({"name": "other", "description": "Read it without the path",
        "command": format!("cat {file}")}),
    );
    let list = p.run(&["list", "--json"]).expect(0).json();
    let enforced = list[0]["sandbox"]["enforced"] == true;
    let real = outside.path().canonicalize().unwrap();
    assert!(tool_settings(&list, "reader").contains(&(
        "sandbox_read".into(),
        real.display().to_string(),
        "tool".into()
    )));
    let run = p.run(&["call", "reader"]);
    run.expect(0);
    assert!(run.stdout().contains("toolchain-file"), "{}", run.stdout());
    if !enforced {
        eprintln!("the sandbox is not enforced here: the other tool's refusal is not checked");
        return;
    }
    let run = p.run(&["call", "other"]);
    assert!(!run.stdout().contains("toolchain-file"), "{}", run.stdout());
    assert!(
        run.stdout().contains("Permission denied"),
        "{}",
        run.stdout()
    );
    // The host's per-tool entry gives it the same way.
    p.config(&json!({"tools": {"other": {"sandbox_read": [outside.path()]}}}).to_string());
    let run = p.run(&["call", "other"]);
    assert!(run.stdout().contains("toolchain-file"), "{}", run.stdout());
    // A path that does not exist is a 613 naming the file and the field.
    p.descriptor(
        json!({"name": "broken", "description": "x", "command": "true",
        "sandbox_read": ["~/no-such-toolchain-dir-xyz"]}),
    );
    let run = p.run(&["check"]);
    assert_eq!(run.code(), 1);
    let out = run.stdout();
    assert!(
        out.contains("broken.tool.json") && out.contains("sandbox_read[0]"),
        "{out}"
    );
}

fn config_schema() -> jsonschema::Validator {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("schemas/config.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    assert!(jsonschema::meta::is_valid(&schema));
    assert_eq!(schema["additionalProperties"], false);
    jsonschema::draft202012::new(&schema).expect("the schema compiles")
}

/// The published schema and the loader agree: a file using every key passes both, and a
/// structurally bad file (unknown key, wrong type, out of range) fails both.
#[test]
fn the_config_schema_and_the_loader_agree() {
    let schema = config_schema();
    let p = Project::new();
    let every_key = json!({
        "$schema": "../schemas/config.schema.json", "cwd": "..", "sandbox": "best-effort",
        "sandbox_read": ["/usr"], "sandbox_write": ["/var/tmp"], "pid_namespace": false,
        "timeout": 60, "max_output": 65536, "memory": "2G", "file_size": 1048576,
        "open_files": 256, "cpu_time": "none", "processes": 512, "temp_size": "512M", "cgroup": "auto",
        "allow_exec": ["ls"], "exec_writes": false,
        "deny": ["curl"], "env": {"RUST_BACKTRACE": "1"}, "pass_env": ["TERM_PROGRAM"],
        "tools": {"grep": {"timeout": 10, "max_output": 4096, "env": {"A": "b"}, "sandbox_read": ["/usr"], "processes": 64}}
    });
    assert!(
        schema.is_valid(&every_key),
        "{:?}",
        schema.validate(&every_key).err()
    );
    p.config(&every_key.to_string());
    p.run(&["list"]).expect(0);
    p.run(&["check"]).expect(0);
    for bad in [
        json!({"timout": 5}),
        json!({"timeout": 0}),
        json!({"timeout": "5"}),
        json!({"max_output": 16777217}),
        json!({"sandbox": "strict"}),
        json!({"memory": "4X"}),
        json!({"open_files": 0}),
        json!({"processes": 0}),
        json!({"processes": 4194305}),
        json!({"cgroup": "sometimes"}),
        json!({"pid_namespace": "sometimes"}),
        json!({"pid_namespace": 1}),
        json!({"temp_size": true}),
        json!({"temp_size": 0}),
        json!({"tools": {"grep": {"processes": 0}}}),
        json!({"allow_exec": "ls"}),
        json!({"env": {"A": 1}}),
        json!({"env": {"1A": "x"}}),
        json!({"tools": {"grep": {"writes": true}}}),
        json!({"tools": {"grep": {"timeout": 0}}}),
        json!({"tools": {"grep": {"sandbox_read": ["relative/dir"]}}}),
    ] {
        assert!(!schema.is_valid(&bad), "the schema lets {bad} through");
        p.config(&bad.to_string());
        assert_eq!(p.run(&["check"]).code(), 1, "the loader lets {bad} through");
        assert!(
            p.run(&["list"]).stderr().contains("config.json"),
            "no warning for {bad}"
        );
    }
}

/// A tool's own resource limits hold for its calls only, from the descriptor or the host's
/// entry for it; a limit hit is named in words.
#[test]
fn a_tools_own_limits_hold_for_its_calls_only() {
    let p = Project::new();
    std::fs::write(p.path().join("src.bin"), vec![7u8; 10 << 10]).unwrap();
    p.descriptor(json!({"name": "grow_small", "description": "Copy a file", "command": "cp src.bin small.bin",
        "writes": true, "file_size": "1K"}));
    p.descriptor(
        json!({"name": "grow", "description": "Copy a file", "command": "cp src.bin big.bin",
        "writes": true}),
    );
    // Writes tools beside the work folder: its content runs once approved.
    p.run(&["trust"]).expect(0);
    let small = p.run(&["call", "grow_small", "--json"]).expect(0).json();
    assert!(
        small["text"]
            .as_str()
            .unwrap()
            .contains("killed: file size limit 1 KiB reached"),
        "{small}"
    );
    let small_len = std::fs::metadata(p.path().join("small.bin")).map_or(0, |m| m.len());
    assert!(
        small_len <= 1024,
        "{small_len} bytes written past the limit"
    );
    let big = p.run(&["call", "grow", "--json"]).expect(0).json();
    assert_eq!(big["exit_code"], 0, "{big}");
    assert_eq!(
        std::fs::metadata(p.path().join("big.bin")).unwrap().len(),
        10 << 10
    );
    // The host's entry for the other tool sets it there too.
    std::fs::remove_file(p.path().join("big.bin")).unwrap();
    p.config(r#"{"tools": {"grow": {"file_size": 2048}}}"#);
    p.run(&["trust"]).expect(0);
    let big = p.run(&["call", "grow", "--json"]).expect(0).json();
    assert!(
        big["text"]
            .as_str()
            .unwrap()
            .contains("killed: file size limit 2 KiB reached"),
        "{big}"
    );
    let list = p.run(&["list", "--json"]).expect(0).json();
    assert!(
        tool_settings(&list, "grow").contains(&(
            "file_size".into(),
            "2048 bytes".into(),
            "config: tools.grow".into()
        )),
        "{:?}",
        tool_settings(&list, "grow")
    );
    // Out of range: a 613 naming the file and the field.
    for (field, value) in [
        ("memory", json!("0")),
        ("memory", json!(1024)),
        ("memory", json!("2X")),
        ("file_size", json!(-1)),
        ("open_files", json!(3)),
        ("open_files", json!("64")),
        ("cpu_time", json!(0)),
        ("cpu_time", json!(86401)),
        ("processes", json!(0)),
        ("processes", json!(7)),
        ("processes", json!("64")),
    ] {
        let p = Project::new();
        let mut d = json!({"name": "bad", "description": "x", "command": "true"});
        d[field] = value.clone();
        p.descriptor(d);
        let run = p.run(&["check"]);
        assert_eq!(run.code(), 1, "{field}={value}: {}", run.stdout());
        let out = run.stdout();
        assert!(
            out.contains("bad.tool.json") && out.contains(field),
            "{field}={value}: {out}"
        );
        assert!(!out.contains("unknown field"), "{field}={value}: {out}");
    }
}

/// A host that denies a built-in's binary does without that built-in; everything else serves.
#[test]
fn a_denied_builtin_is_left_out_and_the_rest_serve() {
    let p = Project::new();
    p.descriptor(printenv());
    for (how, args) in [
        ("config", vec!["list", "--json"]),
        ("flag", vec!["--deny", "find", "list", "--json"]),
    ] {
        if how == "config" {
            p.config(r#"{"deny": ["find"]}"#);
        } else {
            std::fs::remove_file(p.path().join(".work/config.json")).unwrap();
        }
        let list = p.run(&args).expect(0).json();
        let names: Vec<&str> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert!(!names.contains(&"find"), "{how}: {names:?}");
        assert!(
            names.contains(&"grep") && names.contains(&"show_env"),
            "{how}: {names:?}"
        );
        let mut call = vec!["call", "find", r#"{"pattern": "*"}"#];
        if how == "flag" {
            call.extend(["--deny", "find"]);
        }
        let run = p.run(&call);
        assert_eq!(run.code(), 2, "{how}: {}", run.stdout());
    }
}

/// Whether a per-call process limit holds on this host, as `list --json`'s status line says.
fn processes_hold_here(list: &Value) -> bool {
    let status = list[0]["limits"]["status"].as_str().unwrap();
    !status.contains("(no delegated cgroup v2 with the pids controller")
}

/// The per-call process limit, as every other limit: `--processes`, the file's `processes`
/// (host-wide and per tool) and a tool's own, each shown with where it came from; a tool's
/// own says whether it holds on this host.
#[test]
fn the_process_limit_comes_from_the_flag_the_file_or_the_tool() {
    let p = Project::new();
    p.descriptor(printenv());
    p.descriptor(
        json!({"name": "few", "description": "Print the environment",
        "command": "printenv", "processes": 64}),
    );
    // Default, and the tool's own.
    let list = p.run(&["list", "--json"]).expect(0).json();
    assert_eq!(
        host_setting(&list, "processes"),
        ("4096".into(), "default".into())
    );
    let few = tool_settings(&list, "few");
    assert!(
        few.contains(&("processes".into(), "64".into(), "tool".into())),
        "{few:?}"
    );
    assert!(
        !tool_settings(&list, "show_env")
            .iter()
            .any(|(name, _, _)| name == "processes"),
        "a tool without its own takes the host's, shown on the settings line"
    );
    // Whether it holds here, as the status line says.
    let holds = processes_hold_here(&list);
    let entry = list
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "few")
        .unwrap();
    let own = entry["settings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "processes")
        .unwrap();
    assert_eq!(own["holds"], holds, "{own}");
    let text = p.run(&["list"]).expect(0).stdout();
    assert!(text.contains("processes 4096 (default)"), "{text}");
    if holds {
        assert!(text.contains("processes 64 (tool)"), "{text}");
    } else {
        assert!(
            text.contains("processes 64 (tool; not enforced here"),
            "{text}"
        );
        assert!(text.contains("processes: not bounded per call ("), "{text}");
    }
    // The call runs with it, enforced or carried.
    let r = p.run(&["call", "few", "--json"]).expect(0).json();
    assert_eq!(r["exit_code"], 0, "{r}");

    // The file: host-wide and per tool.
    p.config(r#"{"processes": 128, "tools": {"show_env": {"processes": 32}}}"#);
    let list = p.run(&["list", "--json"]).expect(0).json();
    assert_eq!(
        host_setting(&list, "processes"),
        ("128".into(), "config".into())
    );
    let show_env = tool_settings(&list, "show_env");
    assert!(
        show_env.contains(&(
            "processes".into(),
            "32".into(),
            "config: tools.show_env".into()
        )),
        "{show_env:?}"
    );
    let text = p.run(&["list"]).expect(0).stdout();
    assert!(text.contains("processes 128 (config)"), "{text}");
    assert!(
        text.contains("processes 32 (config: tools.show_env"),
        "{text}"
    );
    // The flag over the file; `none` for no pids.max.
    for (flag, shown) in [("256", "256"), ("none", "none")] {
        let list = p
            .run(&["list", "--json", "--processes", flag])
            .expect(0)
            .json();
        assert_eq!(
            host_setting(&list, "processes"),
            (shown.into(), "flag".into())
        );
    }
    // A bad flag names itself and the range.
    for bad in ["0", "7", "4194305", "lots"] {
        let run = p.run(&["list", "--processes", bad]);
        let err = run.stderr();
        assert_eq!(run.code(), 1, "--processes {bad}: {err}");
        assert!(err.contains("--processes"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let err = p.run(&["list", "--processes", "0"]).stderr();
    assert!(
        err.contains("processes of 0 is out of range: give a count from 8 to 4194304"),
        "{err}"
    );
}

/// `cgroup` is a key of the file beside the flag: `auto` by default, the file's value, the
/// flag over it.
#[test]
fn the_cgroup_mode_comes_from_the_flag_or_the_file() {
    let p = Project::new();
    p.descriptor(printenv());
    let list = p.run(&["list", "--json"]).expect(0).json();
    assert_eq!(
        host_setting(&list, "cgroup"),
        ("auto".into(), "default".into())
    );
    p.config(r#"{"cgroup": "off"}"#);
    let list = p.run(&["list", "--json"]).expect(0).json();
    assert_eq!(
        host_setting(&list, "cgroup"),
        ("off".into(), "config".into())
    );
    let status = list[0]["limits"]["status"].as_str().unwrap();
    assert!(
        status.contains("no cgroup per call (turned off"),
        "{status}"
    );
    assert_eq!(list[0]["limits"]["cgroup"], Value::Null, "{list}");
    let list = p
        .run(&["list", "--json", "--cgroup", "on"])
        .expect(0)
        .json();
    assert_eq!(host_setting(&list, "cgroup"), ("on".into(), "flag".into()));
    let text = p.run(&["list"]).expect(0).stdout();
    assert!(text.contains("cgroup off (config)"), "{text}");
}

#[test]
fn the_pid_namespace_mode_comes_from_the_flag_or_the_file() {
    let p = Project::new();
    p.descriptor(printenv());
    let list = p.run(&["list", "--json"]).expect(0).json();
    assert_eq!(
        host_setting(&list, "pid_namespace"),
        ("auto".into(), "default".into())
    );
    // The words, and the booleans of before `auto`.
    for (value, shown) in [
        (r#""off""#, "off"),
        (r#""on""#, "on"),
        ("true", "on"),
        ("false", "off"),
    ] {
        p.config(&format!(r#"{{"pid_namespace": {value}}}"#));
        let list = p.run(&["list", "--json"]).expect(0).json();
        assert_eq!(
            host_setting(&list, "pid_namespace"),
            (shown.into(), "config".into()),
            "{value}"
        );
    }
    // The flag alone means on; with a value, that value.
    for (args, shown) in [
        (&["--pid-namespace"][..], "on"),
        (&["--pid-namespace=auto"][..], "auto"),
    ] {
        let mut all = vec!["list", "--json"];
        all.extend_from_slice(args);
        let list = p.run(&all).expect(0).json();
        assert_eq!(
            host_setting(&list, "pid_namespace"),
            (shown.into(), "flag".into())
        );
    }
    let out = p.run(&["list", "--pid-namespace=sometimes"]);
    assert_ne!(out.code(), 0);
    assert!(
        out.stderr().contains("write `auto`, `on` or `off`"),
        "{}",
        out.stderr()
    );
}

/// Drives `nanotool serve` in `p` through the handshake era: initialize, initialized, then
/// `requests`; returns every message the server wrote (answers and notifications) and stderr.
fn serve(p: &Project, env: &[(&str, &str)], requests: &[Value]) -> (Vec<Value>, String) {
    use std::io::Write;
    let mut command = Command::new(nanotool_bin());
    command
        .arg("serve")
        .current_dir(p.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("start serve");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    lines.extend(requests.iter().cloned());
    for line in &lines {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let messages = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (messages, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn serve_with_a_bad_entry_keeps_its_tools_and_tells_the_client_at_level_error() {
    let p = Project::new();
    p.descriptor(printenv());
    let home = tempfile::tempdir().unwrap();
    let home_text = home.path().to_str().unwrap();
    p.config(
        &json!({
            "timeout": 0,
            "env": {"GOOD": "yes"},
            "sandbox_read": ["~/no-such-toolchain"],
            "tools": {"grep": {"timeout": "soon"}, "show_env": {"env": {"TOOL": "kept"}}}
        })
        .to_string(),
    );
    let (messages, stderr) = serve(
        &p,
        &[("HOME", home_text)],
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "show_env", "arguments": {}}}),
        ],
    );
    let answer = |id: i64| {
        messages
            .iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no answer {id}: {messages:?}"))
    };
    // The server declares logging, and says at level `error` what it left out, each entry
    // naming the file and the key.
    assert_eq!(answer(0)["result"]["capabilities"]["logging"], json!({}));
    let logs: Vec<&str> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| {
            assert_eq!(m["params"]["level"], "error", "{m}");
            m["params"]["data"].as_str().unwrap()
        })
        .collect();
    for key in ["`timeout`", "`sandbox_read[0]`", "`tools.grep.timeout`"] {
        assert!(
            logs.iter()
                .any(|l| l.contains("config.json") && l.contains(key)),
            "no log for {key}: {logs:?}"
        );
        assert!(stderr.contains(key), "stderr lacks {key}: {stderr}");
    }
    // `~` is shown as it was resolved, with the HOME used.
    let tilde = logs.iter().find(|l| l.contains("sandbox_read[0]")).unwrap();
    assert!(
        tilde.contains(&format!("HOME={home_text}"))
            && tilde.contains(&format!("{home_text}/no-such-toolchain")),
        "{tilde}"
    );
    // Every tool is served, and the good entries hold.
    let names: Vec<&str> = answer(1)["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["grep", "find", "sed_print", "show_env"]);
    let text = answer(2)["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("GOOD=yes") && text.contains("TOOL=kept"),
        "{text}"
    );
    // `check` still fails on it.
    assert_eq!(p.run(&["check"]).code(), 1);
}

#[test]
fn a_config_that_is_not_json_leaves_the_file_out_and_serves_the_tools() {
    let p = Project::new();
    p.config(r#"{"timeout": 5"#);
    let (messages, stderr) = serve(
        &p,
        &[],
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})],
    );
    let tools = messages.iter().find(|m| m["id"] == 1).unwrap()["result"]["tools"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(tools, 3, "{messages:?}");
    let log = messages
        .iter()
        .find(|m| m["method"] == "notifications/message")
        .unwrap_or_else(|| panic!("no log message: {messages:?}"));
    assert_eq!(log["params"]["level"], "error");
    let data = log["params"]["data"].as_str().unwrap();
    assert!(
        data.contains("config.json") && data.contains("not valid JSON"),
        "{data}"
    );
    assert!(stderr.contains("not valid JSON"), "{stderr}");
}
