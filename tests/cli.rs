//! The `nanotool` command line: every subcommand, its exit statuses, the `--json`
//! outputs, common options before and after the subcommand, and the errors a person acts on.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use common::bin::nanotool_bin;
use common::run::Run;

/// A project folder (the cwd of every run) with a few files and `.work/tools`.
struct Project {
    dir: tempfile::TempDir,
    /// The user's state folder (`XDG_STATE_HOME`), out of the commands' reach.
    state: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/main.rs"),
            "fn main() {}\n// TODO: more\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("notes.txt"), "one\ntwo\nthree\nfour\n").unwrap();
        Project {
            dir,
            state: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn descriptor(&self, file: &str, body: &str) -> &Project {
        let tools = self.path().join(".work/tools");
        std::fs::create_dir_all(&tools).unwrap();
        std::fs::write(tools.join(file), body).unwrap();
        self
    }

    fn run(&self, args: &[&str]) -> Run {
        let out = Command::new(nanotool_bin())
            .args(args)
            .current_dir(self.path())
            .env("NANOTOOL_LOG", "info")
            .env("XDG_STATE_HOME", self.state.path())
            .output()
            .expect("run nanotool");
        Run(out)
    }
}

const SLEEP: &str = r#"{"name": "nap", "description": "Sleep", "command": "sleep <seconds>",
  "arguments": {"seconds": {"type": "integer", "description": "Seconds", "minimum": 0, "maximum": 60}}}"#;
const MISSING: &str = r#"{"name": "ghost", "description": "A binary that is not installed", "command": "nanotool-no-such-binary-xyz"}"#;
const WC: &str = r#"{"name": "count_lines", "description": "Count lines in a file", "command": "wc -l <file>",
  "arguments": {"file": {"type": "path", "description": "File to count"}}}"#;

#[test]
fn help_shows_every_subcommand_and_examples() {
    let p = Project::new();
    let run = p.run(&["--help"]);
    run.expect(0);
    let help = run.stdout();
    // Each subcommand is a row of the `Commands:` section (the examples name them too, so a
    // plain search would not notice one missing).
    let commands: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap_or_else(|| panic!("--help has no Commands: section:\n{help}"))
        .lines()
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    for command in ["list", "schema", "call", "check", "serve"] {
        assert!(
            commands.contains(&command),
            "--help lists no `{command}` command: {commands:?}\n{help}"
        );
    }
    for word in [
        "--work",
        "--cwd",
        "--timeout",
        "--max-output",
        "--allow-exec",
        "Examples:",
    ] {
        assert!(help.contains(word), "--help lacks {word}:\n{help}");
    }
    p.run(&["call", "--help"]).expect(0);
    p.run(&["--version"]).expect(0);
}

#[test]
fn bad_usage_exits_1_with_a_message() {
    let p = Project::new();
    for args in [
        &["frobnicate"][..],
        &[],
        &["call"],
        &["schema", "--format", "yaml"],
        &["list", "--timeout", "soon"],
        &["list", "--timeout", "-3"],
        &["list", "--max-output", "lots"],
    ] {
        let run = p.run(args);
        run.expect(1);
        assert!(!run.stderr().trim().is_empty(), "{args:?}: no message");
        assert!(run.stdout().is_empty(), "{args:?}: {}", run.stdout());
    }
    let run = p.run(&["list", "--timeout", "soon"]);
    assert!(run.stderr().contains("--timeout 30"), "{}", run.stderr());
}

#[test]
fn list_shows_builtins_without_a_work_folder() {
    let p = Project::new();
    let run = p.run(&["list"]);
    run.expect(0);
    let out = run.stdout();
    for name in ["grep", "find", "sed_print"] {
        assert!(
            out.lines().any(|l| l.starts_with(name)),
            "{name} missing:\n{out}"
        );
    }
    let run = p.run(&["list", "--json"]);
    run.expect(0);
    let tools = run.json();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["grep", "find", "sed_print"]);
    for t in tools.as_array().unwrap() {
        assert!(t["description"].as_str().is_some_and(|d| !d.is_empty()));
        assert_eq!(t["input_schema"]["type"], "object");
    }
}

#[test]
fn descriptors_load_from_work_tools_and_bad_ones_warn() {
    let p = Project::new();
    p.descriptor("count.tool.json", WC)
        .descriptor("broken.tool.json", "{ not json");
    let run = p.run(&["list", "--json"]);
    run.expect(0);
    let names: Vec<String> = run
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["grep", "find", "sed_print", "count_lines"]);
    let stderr = run.stderr();
    assert!(
        stderr.contains("613") && stderr.contains("broken.tool.json"),
        "{stderr}"
    );
    // A work folder named explicitly, from elsewhere.
    let elsewhere = tempfile::tempdir().unwrap();
    let work = p.path().join(".work");
    let run = Run(Command::new(nanotool_bin())
        .args(["list", "--work"])
        .arg(&work)
        .current_dir(elsewhere.path())
        .output()
        .unwrap());
    run.expect(0);
    assert!(run.stdout().contains("count_lines"));
}

#[test]
fn an_explicit_work_folder_that_does_not_exist_is_an_error() {
    let p = Project::new();
    let run = p.run(&["list", "--work", "no-such-folder"]);
    run.expect(1);
    assert!(run.stderr().contains("no-such-folder"), "{}", run.stderr());
    assert!(run.stderr().contains("mkdir"), "{}", run.stderr());
    p.run(&[
        "call",
        "grep",
        r#"{"pattern":"x"}"#,
        "--work",
        "no-such-folder",
    ])
    .expect(1);
    let run = p.run(&["list", "--cwd", "no-such-dir"]);
    run.expect(1);
    assert!(run.stderr().contains("--cwd"), "{}", run.stderr());
}

#[test]
fn call_runs_a_builtin_and_exits_0() {
    let p = Project::new();
    let run = p.run(&["call", "grep", r#"{"pattern": "TODO", "path": "src"}"#]);
    run.expect(0);
    assert!(run.stdout().contains("exit: 0"), "{}", run.stdout());
    assert!(
        run.stdout().contains("src/main.rs:2:// TODO: more"),
        "{}",
        run.stdout()
    );
    // The audit trail is on stderr.
    let stderr = run.stderr();
    assert!(
        stderr.contains("grep") && stderr.contains("exit=0"),
        "{stderr}"
    );
    // A command exiting non-zero still "ran": grep's 1 means no match.
    let run = p.run(&["call", "grep", r#"{"pattern": "nowhere-to-be-found"}"#]);
    run.expect(0);
    assert!(run.stdout().contains("exit: 1"), "{}", run.stdout());
}

#[test]
fn call_json_output_for_scripts() {
    let p = Project::new();
    let run = p.run(&[
        "call",
        "sed_print",
        r#"{"range": "2,3", "path": "notes.txt"}"#,
        "--json",
    ]);
    run.expect(0);
    let v = run.json();
    assert_eq!(v["tool"], "sed_print");
    assert_eq!(v["is_error"], false);
    assert_eq!(v["exit_code"], 0);
    assert_eq!(v["output"], "two\nthree\n");
    assert_eq!(v["timed_out"], false);
    assert_eq!(v["truncated"], false);
    assert!(v["text"].as_str().unwrap().starts_with("exit: 0"));
}

#[test]
fn call_args_default_to_an_empty_object() {
    let p = Project::new();
    // grep requires `pattern`: refused (614) with exit 2, saying what is missing.
    let run = p.run(&["call", "grep"]);
    run.expect(2);
    assert!(run.stdout().contains("614"), "{}", run.stdout());
    assert!(run.stdout().contains("pattern"), "{}", run.stdout());
}

#[test]
fn refused_calls_exit_2_with_the_614_text() {
    let p = Project::new();
    let run = p.run(&["call", "grep", r#"{"pattern": "x", "path": "../../etc"}"#]);
    run.expect(2);
    assert!(run.stdout().contains("614"), "{}", run.stdout());
    assert!(run.stderr().contains("refused"), "{}", run.stderr());
    let run = p.run(&["call", "grep", r#"{"pattern": "--include=x"}"#, "--json"]);
    run.expect(2);
    let v = run.json();
    assert_eq!(v["code"], 614);
    assert_eq!(v["is_error"], true);
}

#[test]
fn unknown_tools_exit_2_with_the_closest_names() {
    let p = Project::new();
    let run = p.run(&["call", "gerp", "{}"]);
    run.expect(2);
    let stderr = run.stderr();
    assert!(stderr.contains("unknown tool `gerp`"), "{stderr}");
    assert!(stderr.contains("did you mean `grep`"), "{stderr}");
    let run = p.run(&["call", "sed", "{}"]);
    run.expect(2);
    assert!(run.stderr().contains("`sed_print`"), "{}", run.stderr());
    let run = p.run(&["call", "gerp", "--json"]);
    run.expect(2);
    let v = run.json();
    assert_eq!(v["error"], "unknown tool");
    assert_eq!(v["closest"], serde_json::json!(["grep"]));
}

#[test]
fn bad_args_json_points_at_the_mistake_and_shows_good_json() {
    let p = Project::new();
    let run = p.run(&["call", "grep", "{pattern: 'TODO'}"]);
    run.expect(1);
    let stderr = run.stderr();
    assert!(stderr.contains("line 1 column 2"), "{stderr}");
    assert!(stderr.contains('^'), "{stderr}");
    assert!(stderr.contains(r#"nanotool call grep '{"#), "{stderr}");
    assert!(stderr.contains(r#""pattern":"#), "{stderr}");
    // Valid JSON that is not an object is refused by validation, as from a model: 614, exit 2.
    for not_an_object in ["[1, 2]", "null", "5", r#""TODO""#] {
        let run = p.run(&["call", "grep", not_an_object]);
        run.expect(2);
        assert!(
            run.stdout().contains("error 614") && run.stdout().contains("JSON object"),
            "{not_an_object}: {}",
            run.stdout()
        );
    }
}

/// A tool that prints its own signal state (the `Sig*` lines of `/proc/self/status`).
const SIGNAL_STATUS: &str = r#"{"name": "status", "description": "Own signal state", "command": "grep Sig /proc/self/status"}"#;

/// The signal numbers set in a `/proc/<pid>/status` mask line such as `SigBlk:\t0000...4003`.
fn mask(status: &str, field: &str) -> u64 {
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .unwrap_or_else(|| panic!("no {field} in {status}"));
    u64::from_str_radix(line.trim(), 16).unwrap()
}

#[test]
fn commands_start_with_no_signal_blocked_or_ignored() {
    // nanotool catches SIGINT, SIGTERM and SIGHUP to cancel its calls; a command must not
    // inherit that: it starts with an empty mask and default actions, so `timeout` can stop
    // its child and a command can die of SIGTERM (exit 143).
    let p = Project::new();
    p.descriptor("status.tool.json", SIGNAL_STATUS);
    let watched: u64 =
        (1 << (libc::SIGINT - 1)) | (1 << (libc::SIGTERM - 1)) | (1 << (libc::SIGHUP - 1));
    // `/proc/self/status` is out of a confined command's reach: these run unconfined, and
    // tests/sandbox/escapes.rs checks the confined spawn's signal state its own way. nanotool
    // starts with the watched signals at their defaults, whatever this test inherited (under
    // `nohup` an ignore would rightly pass through: the next test).
    let hermetic = |cmd: &mut Command| {
        use std::os::unix::process::CommandExt;
        // SAFETY: signal(2) only, between fork and exec of the test's own child.
        unsafe {
            cmd.pre_exec(|| {
                for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                    libc::signal(sig, libc::SIG_DFL);
                }
                Ok(())
            });
        }
    };
    let mut call = Command::new(nanotool_bin());
    call.args(["call", "status", "--sandbox", "off"])
        .current_dir(p.path())
        .env("NANOTOOL_LOG", "off");
    hermetic(&mut call);
    let run = Run(call.output().unwrap());
    run.expect(0);
    let out = run.stdout();
    assert_eq!(mask(&out, "SigBlk:"), 0, "{out}");
    assert_eq!(mask(&out, "SigIgn:") & watched, 0, "{out}");

    // The same under `serve`.
    let mut serve = Command::new(nanotool_bin());
    serve
        .args(["serve", "--sandbox", "off"])
        .current_dir(p.path())
        .env("NANOTOOL_LOG", "off")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    hermetic(&mut serve);
    let mut child = serve.spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{}}}"#,
        ] {
            writeln!(stdin, "{line}").unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    let reply: Value = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["id"] == 2)
        .expect("a reply to the call");
    // The result's text: the exit status, then the output as lines.
    let text = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(mask(text, "SigBlk:"), 0, "{text}");
    assert_eq!(mask(text, "SigIgn:") & watched, 0, "{text}");
}

#[test]
fn a_signal_ignored_on_entry_stays_ignored() {
    // Under `nohup` SIGHUP is ignored: nanotool does not take it over, and its commands
    // inherit the ignore as they would from any other program.
    use std::os::unix::process::CommandExt;
    let p = Project::new();
    p.descriptor("status.tool.json", SIGNAL_STATUS);
    let mut cmd = Command::new(nanotool_bin());
    cmd.args(["call", "status", "--sandbox", "off"])
        .current_dir(p.path())
        .env("NANOTOOL_LOG", "off");
    // SAFETY: signal(2) only, between fork and exec of the test's own child.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let hup = 1u64 << (libc::SIGHUP - 1);
    let term = 1u64 << (libc::SIGTERM - 1);
    assert_eq!(mask(&text, "SigIgn:") & (hup | term), hup, "{text}");
    assert_eq!(mask(&text, "SigBlk:"), 0, "{text}");
}

#[test]
fn a_signal_cancels_the_running_call_and_kills_its_group() {
    let p = Project::new();
    p.descriptor("nap.tool.json", SLEEP);
    let child = Command::new(nanotool_bin())
        .args(["call", "nap", r#"{"seconds": 30}"#, "--json"])
        .current_dir(p.path())
        .env("NANOTOOL_LOG", "off")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the command runs (its `sleep` is a child of nanotool), then SIGTERM nanotool.
    let pid = child.id() as i32;
    // The command is the child of whichever thread spawned it: look at every thread's children.
    let all_children = || {
        let mut children = String::new();
        for task in std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten()
        {
            let task = task.unwrap().file_name();
            let task = task.to_string_lossy();
            children += &std::fs::read_to_string(format!("/proc/{pid}/task/{task}/children"))
                .unwrap_or_default();
            children.push(' ');
        }
        children
    };
    // The command, not a short-lived helper of the kernel's (the tmpfs is mounted from a
    // child process): a child whose program is `sleep`.
    let sleeping = || {
        all_children().split_whitespace().any(|child| {
            std::fs::read_to_string(format!("/proc/{child}/comm"))
                .is_ok_and(|comm| comm.trim() == "sleep")
        })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !sleeping() {
        assert!(
            std::time::Instant::now() < deadline,
            "the command never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let children = all_children();
    // SAFETY: kill(2) on the pid of our own child.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(128 + libc::SIGTERM));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["cancelled"], true, "{v}");
    for sleep_pid in children.split_whitespace() {
        assert!(
            !Path::new(&format!("/proc/{sleep_pid}")).exists()
                || std::fs::read_to_string(format!("/proc/{sleep_pid}/stat"))
                    .map(|s| s.contains(") Z "))
                    .unwrap_or(true),
            "the command {sleep_pid} outlived the cancel"
        );
    }
}

#[test]
fn a_work_folder_that_cannot_be_read_exits_1_instead_of_hiding_its_tools() {
    let p = Project::new();
    // `WORK/tools` a file: the descriptors cannot be there.
    std::fs::create_dir_all(p.path().join("w1")).unwrap();
    std::fs::write(p.path().join("w1/tools"), "not a folder").unwrap();
    for args in [
        &["--work", "w1", "list"][..],
        &["--work", "w1", "call", "grep", r#"{"pattern": "x"}"#],
    ] {
        let run = p.run(args);
        run.expect(1);
        assert!(run.stderr().contains("w1/tools"), "{}", run.stderr());
    }
    // `WORK/tools` cannot be resolved (a symlink loop stands for any unreadable folder; root
    // reads through permissions).
    std::fs::create_dir_all(p.path().join("w2")).unwrap();
    std::os::unix::fs::symlink("tools", p.path().join("w2/tools")).unwrap();
    let run = p.run(&["--work", "w2", "list"]);
    run.expect(1);
    assert!(run.stderr().contains("unreadable"), "{}", run.stderr());
    // The default `.work`, broken the same way, is not silently skipped either.
    std::fs::create_dir_all(p.path().join(".work")).unwrap();
    std::fs::write(p.path().join(".work/tools"), "not a folder").unwrap();
    let run = p.run(&["list"]);
    run.expect(1);
    // A work folder that is a file.
    let run = p.run(&["--work", "notes.txt", "list"]);
    run.expect(1);
    assert!(run.stderr().contains("not a folder"), "{}", run.stderr());
}

#[test]
fn a_descriptor_named_exec_is_one_613_beside_allow_exec() {
    let p = Project::new();
    p.descriptor(
        "exec.tool.json",
        r#"{"name": "exec", "description": "Shadows the exec tool", "command": "ls"}"#,
    )
    .descriptor("wc.tool.json", WC);
    let run = p.run(&["--allow-exec", "ls", "list", "--json"]);
    run.expect(0);
    assert!(run.stderr().contains("exec.tool.json"), "{}", run.stderr());
    let tools = run.json();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"count_lines") && names.contains(&"exec"),
        "{names:?}"
    );
    // The `exec` served is the free-text tool, not the descriptor.
    let exec = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "exec")
        .unwrap();
    assert!(
        exec["input_schema"]["properties"]["command"].is_object(),
        "{exec}"
    );
    let run = p.run(&["--allow-exec", "ls", "check"]);
    run.expect(1);
    assert!(
        run.stdout().contains("613") && run.stdout().contains("exec.tool.json"),
        "{}",
        run.stdout()
    );
}

#[test]
fn a_small_output_cap_keeps_head_and_tail() {
    let p = Project::new();
    let run = p.run(&[
        "call",
        "sed_print",
        r#"{"range": "1,4", "path": "notes.txt"}"#,
        "--max-output",
        "8",
        "--json",
    ]);
    run.expect(0);
    let v = run.json();
    assert_eq!(v["truncated"], true, "{v}");
    // 19 bytes with a cap of 8: the first 4 and the last 4, and what was left out.
    assert_eq!(v["output"], "one\n[... 11 bytes omitted ...]\nour\n", "{v}");
    assert_eq!(v["total_bytes"], 19, "{v}");
    p.run(&["list", "--max-output", "0"]).expect(1);
}

/// Where commands could write the work folder (the default `.work` under `--cwd .`), a call
/// needs to know which descriptors declare `writes`: the first call loads them all and records
/// it, the next loads its own descriptor only. A descriptor turned writer in place (same size,
/// its modification time put back) is noticed: the next call loads everything again and
/// refuses the folder a writer now exposes.
#[test]
fn a_call_in_a_reachable_work_folder_loads_every_descriptor_once() {
    let p = Project::new();
    p.descriptor("count_lines.tool.json", WC);
    p.descriptor(
        "broken.tool.json",
        r#"{"name": "broken", "command": "rm <x>"}"#,
    );
    let quiet = r#"{"name": "quiet", "description": "Count bytes", "command": "wc -c <file>", "writes": false,
  "arguments": {"file": {"type": "path", "description": "File"}}}"#;
    p.descriptor("quiet.tool.json", quiet);
    // A record is kept only of files that did not change in the last two seconds.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let call = || p.run(&["call", "count_lines", r#"{"file": "notes.txt"}"#]);
    let first = call();
    first.expect(0);
    assert!(
        first.stderr().contains("broken.tool.json"),
        "{}",
        first.stderr()
    );
    let second = call();
    second.expect(0);
    assert!(
        second.stdout().contains("4 ./notes.txt"),
        "{}",
        second.stdout()
    );
    assert!(
        !second.stderr().contains("broken.tool.json"),
        "the second call read every descriptor again: {}",
        second.stderr()
    );
    // `"writes": false` becomes `"writes": true ` (the same size), the time put back.
    let file = p.path().join(".work/tools/quiet.tool.json");
    let before = std::fs::metadata(&file).unwrap().modified().unwrap();
    std::fs::write(
        &file,
        quiet.replace(r#""writes": false"#, r#""writes": true "#),
    )
    .unwrap();
    let f = std::fs::File::options().write(true).open(&file).unwrap();
    f.set_modified(before).unwrap();
    drop(f);
    assert_eq!(std::fs::metadata(&file).unwrap().len(), quiet.len() as u64);
    let third = call();
    third.expect(1);
    assert!(
        third
            .stderr()
            .contains("tool `quiet` (it declares `writes`)"),
        "{}",
        third.stderr()
    );
}

#[test]
fn a_call_loads_only_the_descriptor_it_uses() {
    let p = Project::new();
    p.descriptor("count_lines.tool.json", WC);
    p.descriptor(
        "broken.tool.json",
        r#"{"name": "broken", "command": "rm <x>"}"#,
    );
    // Named after another file: found by the full load.
    p.descriptor(
        "zz-other-file.tool.json",
        &WC.replace("count_lines", "other_name"),
    );
    // Commands run in `src`, out of reach of the work folder: a call loads its own tool.
    let run = p.run(&[
        "call",
        "count_lines",
        r#"{"file": "main.rs"}"#,
        "--cwd",
        "src",
    ]);
    run.expect(0);
    assert!(run.stdout().contains("2 ./main.rs"), "{}", run.stdout());
    assert!(
        !run.stderr().contains("broken.tool.json"),
        "the call read a descriptor it does not use: {}",
        run.stderr()
    );
    // Where commands could write the work folder (it lies in their working directory), who
    // may write it depends on every tool: the call reads them all for that check (until a
    // record of them holds: a_call_in_a_reachable_work_folder_loads_every_descriptor_once).
    let run = p.run(&["call", "count_lines", r#"{"file": "notes.txt"}"#]);
    run.expect(0);
    assert!(run.stdout().contains("4 ./notes.txt"), "{}", run.stdout());
    assert!(
        run.stderr().contains("broken.tool.json"),
        "{}",
        run.stderr()
    );
    // A built-in needs no descriptor either.
    let run = p.run(&[
        "call",
        "sed_print",
        r#"{"range": "1", "path": "main.rs"}"#,
        "--cwd",
        "src",
    ]);
    run.expect(0);
    assert!(
        !run.stderr().contains("broken.tool.json"),
        "{}",
        run.stderr()
    );
    // A tool whose file has another name, and an unknown tool, load everything.
    let run = p.run(&[
        "call",
        "other_name",
        r#"{"file": "main.rs"}"#,
        "--cwd",
        "src",
    ]);
    run.expect(0);
    assert!(
        run.stderr().contains("broken.tool.json"),
        "{}",
        run.stderr()
    );
    let run = p.run(&["call", "count_line"]);
    run.expect(2);
    assert!(run.stderr().contains("count_lines"), "{}", run.stderr());
    // `list` and `check` still report the broken file.
    let run = p.run(&["list"]);
    run.expect(0);
    assert!(
        run.stderr().contains("broken.tool.json"),
        "{}",
        run.stderr()
    );
    p.run(&["check"]).expect(1);
}

#[test]
fn an_output_cap_over_the_limit_is_refused_naming_it() {
    let p = Project::new();
    let run = p.run(&["list", "--max-output", "200000000"]);
    run.expect(1);
    let err = run.stderr();
    assert!(
        err.contains("16777216") && err.contains("16 MiB"),
        "the limit is not named: {err}"
    );
    p.run(&["list", "--max-output", "16777216"]).expect(0);
    // The config file's key is held to the same limit.
    std::fs::create_dir_all(p.path().join(".work")).unwrap();
    std::fs::write(
        p.path().join(".work/config.json"),
        r#"{"max_output": 16777217}"#,
    )
    .unwrap();
    // A bad entry of the config file is dropped with a warning naming the limit (the tools
    // still serve), and `check` fails on it.
    let run = p.run(&["list"]);
    run.expect(0);
    let err = run.stderr();
    assert!(
        err.contains("max_output") && err.contains("16 MiB"),
        "the limit is not named: {err}"
    );
    std::fs::create_dir_all(p.path().join(".work/tools")).unwrap();
    let run = p.run(&["check"]);
    run.expect(1);
    let said = format!("{}{}", run.stdout(), run.stderr());
    assert!(
        said.contains("max_output") && said.contains("16 MiB"),
        "{said}"
    );
}

/// The peak resident memory of `cmd` run to its end, in KiB (`wait4`'s `ru_maxrss`).
#[allow(clippy::zombie_processes)] // reaped by the `wait4` below, which also gives its usage
fn peak_rss_kib(cmd: &mut Command) -> (i32, i64) {
    let child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is valid; `wait4` writes both out-parameters for this
    // child, which std has not reaped (its `Child` is never waited on).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    (libc::WEXITSTATUS(status), usage.ru_maxrss)
}

#[test]
fn a_call_holds_its_output_cap_and_a_constant_whatever_the_output() {
    let p = Project::new();
    p.descriptor(
        "flood.tool.json",
        r#"{"name": "flood", "description": "Print zeros", "command": "head -c <bytes> /dev/zero",
  "arguments": {"bytes": {"type": "integer", "description": "Bytes", "minimum": 0}}}"#,
    );
    let cap: i64 = 16 << 20;
    let run = |bytes: u64| {
        peak_rss_kib(
            Command::new(nanotool_bin())
                .args(["--max-output", &cap.to_string(), "call", "flood"])
                .arg(format!(r#"{{"bytes": {bytes}}}"#))
                .current_dir(p.path()),
        )
    };
    let (status, small) = run(1000);
    assert_eq!(status, 0);
    let (status, large) = run(100_000_000);
    assert_eq!(status, 0);
    // The small call is the process's own footprint. The large one holds the capture, the
    // cap at most, which becomes the result's text in place (the header put in front in the
    // same buffer): the cap and a constant.
    let extra_kib = large - small;
    assert!(
        extra_kib <= (cap + (8 << 20)) / 1024,
        "100 MB of output held {extra_kib} KiB over a call of 1,000 bytes, with a cap of {cap} bytes"
    );
}

#[test]
fn a_missing_binary_exits_1_and_a_timeout_exits_0() {
    let p = Project::new();
    p.descriptor("ghost.tool.json", MISSING)
        .descriptor("nap.tool.json", SLEEP);
    let run = p.run(&["call", "ghost"]);
    run.expect(1);
    assert!(run.stdout().contains("exit: 127"), "{}", run.stdout());
    let run = p.run(&[
        "call",
        "nap",
        r#"{"seconds": 30}"#,
        "--timeout",
        "0.3",
        "--json",
    ]);
    run.expect(0);
    let v = run.json();
    assert_eq!(v["timed_out"], true, "{v}");
    assert_eq!(v["exit_code"], 124);
}

#[test]
fn options_go_before_or_after_the_subcommand() {
    let p = Project::new();
    let long = "x".repeat(5000);
    std::fs::write(p.path().join("long.txt"), format!("{long}\n")).unwrap();
    let args = r#"{"range": "1", "path": "long.txt"}"#;
    let before = p.run(&["--max-output", "100", "call", "sed_print", args, "--json"]);
    let after = p.run(&["call", "sed_print", args, "--json", "--max-output", "100"]);
    before.expect(0);
    after.expect(0);
    assert_eq!(before.json()["truncated"], true);
    assert_eq!(after.json()["truncated"], true);
    assert_eq!(before.json()["output"], after.json()["output"]);
    let sub = tempfile::tempdir().unwrap();
    std::fs::write(sub.path().join("only-here.txt"), "x").unwrap();
    let cwd = sub.path().to_str().unwrap();
    for args in [
        &["--cwd", cwd, "call", "find", r#"{"pattern": "*.txt"}"#][..],
        &["call", "find", r#"{"pattern": "*.txt"}"#, "--cwd", cwd],
    ] {
        let run = p.run(args);
        run.expect(0);
        assert!(
            run.stdout().contains("only-here.txt"),
            "{args:?}: {}",
            run.stdout()
        );
    }
}

#[test]
fn schema_exports_every_format() {
    let p = Project::new();
    let mcp = p.run(&["schema"]);
    mcp.expect(0);
    let mcp = mcp.json();
    assert_eq!(mcp.as_array().unwrap().len(), 3);
    assert_eq!(mcp[0]["name"], "grep");
    assert_eq!(mcp[0]["inputSchema"]["type"], "object");
    assert!(mcp[0]["outputSchema"].is_object());
    let explicit = p.run(&["schema", "--format", "mcp"]);
    assert_eq!(explicit.json(), mcp);
    for format in ["openai", "anthropic"] {
        let run = p.run(&["schema", "--format", format]);
        run.expect(0);
        let v = run.json();
        assert_eq!(v.as_array().map(Vec::len), Some(3), "{format}: {v}");
        assert!(v.to_string().contains("grep"), "{format}: {v}");
    }
}

#[test]
fn check_reports_613_errors_and_exits_1() {
    let p = Project::new();
    p.descriptor("count.tool.json", WC);
    let run = p.run(&["check"]);
    run.expect(0);
    assert!(
        run.stdout().contains("1 descriptor(s) loaded, 0 error(s)"),
        "{}",
        run.stdout()
    );
    p.descriptor("broken.tool.json", "{ not json")
        .descriptor("shell.tool.json", r#"{"name": "sh_run", "description": "x", "command": "sh -c <code>", "arguments": {"code": {"type": "string", "description": "code"}}}"#);
    let run = p.run(&["check"]);
    run.expect(1);
    let out = run.stdout();
    assert!(
        out.contains("error 613: ") && out.contains("broken.tool.json"),
        "{out}"
    );
    assert!(out.contains("shell.tool.json"), "{out}");
    let run = p.run(&["check", "--json"]);
    run.expect(1);
    let v = run.json();
    assert_eq!(v["loaded"], serde_json::json!(["count_lines"]));
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{v}");
    assert!(errors.iter().all(|e| e["code"] == 613));
    // A folder named on the command line; and one that is missing.
    let good = tempfile::tempdir().unwrap();
    std::fs::write(good.path().join("count.tool.json"), WC).unwrap();
    p.run(&["check", good.path().to_str().unwrap()]).expect(0);
    let run = p.run(&["check", "nowhere"]);
    run.expect(1);
    assert!(run.stderr().contains("nowhere"), "{}", run.stderr());
}

#[test]
fn allow_exec_enables_the_exec_tool() {
    let p = Project::new();
    let run = p.run(&["list", "--json"]);
    assert!(!run.stdout().contains("\"exec\""));
    let run = p.run(&["--allow-exec", "ls,wc", "list", "--json"]);
    run.expect(0);
    let names: Vec<String> = run
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.contains(&"exec".to_owned()), "{names:?}");
    let run = p.run(&[
        "call",
        "exec",
        r#"{"command": "wc -l notes.txt"}"#,
        "--allow-exec",
        "wc",
    ]);
    run.expect(0);
    assert!(run.stdout().contains("4 notes.txt"), "{}", run.stdout());
    let run = p.run(&[
        "call",
        "exec",
        r#"{"command": "cat notes.txt"}"#,
        "--allow-exec",
        "wc",
    ]);
    run.expect(2);
}

#[test]
fn serve_refuses_to_start_without_its_work_folder_and_exits_0_on_eof() {
    let p = Project::new();
    let run = p.run(&["serve", "--work", "missing-work"]);
    run.expect(1);
    assert!(run.stdout().is_empty(), "stdout: {}", run.stdout());
    assert!(run.stderr().contains("missing-work"), "{}", run.stderr());
    // With its stdin at EOF at once (no client), serve exits cleanly and prints nothing.
    let run = p.run(&["serve"]);
    run.expect(0);
    assert!(run.stdout().is_empty(), "stdout: {}", run.stdout());
}

#[test]
fn limit_flags_set_the_kernels_limits_and_list_says_which_hold() {
    let p = Project::new();
    let list = p.run(&[
        "list",
        "--memory",
        "2G",
        "--file-size",
        "none",
        "--open-files",
        "64",
        "--cpu-time",
        "9",
    ]);
    list.expect(0);
    assert!(
        list.stdout().contains(
            "limits: memory 2 GiB, file size the host's, open files 64, no core dumps, CPU time 9 s"
        ),
        "{}",
        list.stdout()
    );
    let bad = p.run(&["list", "--memory", "lots"]);
    bad.expect(1);
    assert!(bad.stderr().contains("--memory"), "{}", bad.stderr());
    assert!(bad.stderr().contains("512M"), "{}", bad.stderr());
}
