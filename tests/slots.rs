//! Slot validation as an attacker meets it: every refusal here is a real attack, and each
//! attack is also shown to be real by running the argv the template would give without the
//! check (built by hand, run with `std::process::Command`, no shell) in a scratch directory.

use nanotool_runtime::{
    CommandExecKernel, CommandSpec, CommandTool, KernelSettings, SlotError, SlotKind, SlotSpec,
    Tool, ToolContext,
};
use serde_json::{Value, json};
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::process::Command;
use tempfile::TempDir;

// ---------------------------------------------------------------------------------------
// Fixtures

fn find_spec() -> CommandSpec {
    CommandSpec::new(
        "find",
        "Find files by name",
        "find <path> -name <pattern>",
        vec![
            SlotSpec::new("path", SlotKind::Path, "Directory to search").with_default(json!(".")),
            SlotSpec::new("pattern", SlotKind::String, "File name glob"),
        ],
    )
    .unwrap()
}

fn sed_spec() -> CommandSpec {
    CommandSpec::new(
        "sed_print",
        "Print a range of lines",
        "sed -n <range>p <path>",
        vec![
            SlotSpec::new("range", SlotKind::String, "Line or range, e.g. 10,20")
                .with_pattern(r"^\d+(,\d+)?$"),
            SlotSpec::new("path", SlotKind::Path, "File to print"),
        ],
    )
    .unwrap()
}

fn grep_spec() -> CommandSpec {
    CommandSpec::new(
        "grep",
        "Search text",
        "grep -rn <pattern> <path>",
        vec![
            SlotSpec::new("pattern", SlotKind::String, "Regex to search for"),
            SlotSpec::new("path", SlotKind::Path, "Where to search").with_default(json!(".")),
        ],
    )
    .unwrap()
}

fn head_spec() -> CommandSpec {
    CommandSpec::new(
        "head",
        "First lines of a file",
        "head -n <n> <path>",
        vec![
            SlotSpec::new("n", SlotKind::Integer, "How many lines")
                .with_minimum(1.0)
                .with_maximum(1000.0),
            SlotSpec::new("path", SlotKind::Path, "File"),
        ],
    )
    .unwrap()
}

/// A workspace with canary files, a script that would leave a marker if run, symlinks in
/// and out, and an outside directory holding a secret.
struct Workspace {
    dir: TempDir,
    outside: TempDir,
}

impl Workspace {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let ws = dir.path();
        fs::write(ws.join("canary.txt"), "canary\n").unwrap();
        fs::create_dir(ws.join("sub")).unwrap();
        fs::write(ws.join("sub/canary.rs"), "fn main() {}\n").unwrap();
        fs::write(ws.join("1p"), "first line\nsecond line\n").unwrap();
        fs::write(ws.join("secret.txt"), "KEY=hunter2\n").unwrap();
        let script = ws.join("x");
        fs::write(&script, "#!/bin/sh\ntouch MARKER\n").unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        fs::write(outside.path().join("secret"), "outside secret\n").unwrap();
        symlink(outside.path().join("secret"), ws.join("out_link")).unwrap();
        symlink(outside.path(), ws.join("out_dir")).unwrap();
        symlink(outside.path().join("not-yet"), ws.join("dangling")).unwrap();
        symlink("sub", ws.join("in_link")).unwrap();
        Workspace { dir, outside }
    }

    fn root(&self) -> std::path::PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    fn canaries_intact(&self) -> bool {
        let ws = self.dir.path();
        ws.join("canary.txt").exists() && ws.join("sub/canary.rs").exists()
    }
}

/// The argv the template gives with `values` and no check at all: what would run if the
/// validator let the call through.
fn unchecked_argv(spec: &CommandSpec, values: &[(&str, &str)]) -> Vec<String> {
    spec.template()
        .render(|name| values.iter().find(|(n, _)| *n == name).map(|(_, v)| *v))
}

/// Runs `argv` (no shell) in `dir`; returns stdout + stderr.
fn run_in(dir: &Path, argv: &[String]) -> String {
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(dir)
        .output()
        .unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn refused(spec: &CommandSpec, args: Value, root: &Path) -> SlotError {
    match spec.render(&args, root) {
        Ok(argv) => panic!("{args} was accepted as {:?}", argv.as_slice()),
        Err(e) => {
            assert_eq!(e.code(), 614);
            e
        }
    }
}

fn accepted(spec: &CommandSpec, args: Value, root: &Path) -> Vec<String> {
    match spec.render(&args, root) {
        Ok(argv) => argv.into_vec(),
        Err(e) => panic!("{args} was refused: {e}"),
    }
}

/// Calls the spec as a tool through a real kernel: a refusal never reaches the kernel.
fn call_tool(spec: CommandSpec, ws: &Workspace, args: Value) -> nanotool_runtime::ToolOutput {
    let kernel = CommandExecKernel::new(KernelSettings {
        cwd: ws.dir.path().to_path_buf(),
        ..KernelSettings::default()
    })
    .unwrap();
    let tool = CommandTool::new(spec);
    tool.call(
        &args,
        &ToolContext {
            kernel: &kernel,
            cancel: None,
        },
    )
}

// ---------------------------------------------------------------------------------------
// find -delete

#[test]
fn find_path_delete_is_refused_and_the_files_stay() {
    let ws = Workspace::new();
    let out = call_tool(
        find_spec(),
        &ws,
        json!({"path": "-delete", "pattern": "canary*"}),
    );
    assert!(out.is_error);
    assert_eq!(out.code, Some(614));
    assert!(out.exec.is_none());
    assert!(
        out.text
            .starts_with("error 614: argument `path`: `-delete` begins with `-`"),
        "{}",
        out.text
    );
    assert!(out.text.contains("write `./-delete`"), "{}", out.text);
    assert!(ws.canaries_intact());
}

#[test]
fn find_delete_is_a_real_attack() {
    let scratch = Workspace::new();
    let argv = unchecked_argv(&find_spec(), &[("path", "-delete"), ("pattern", "nothing")]);
    assert_eq!(argv, ["find", "-delete", "-name", "nothing"]);
    run_in(scratch.dir.path(), &argv);
    assert!(!scratch.canaries_intact(), "find -delete deleted nothing");
}

#[test]
fn a_path_that_names_a_dash_file_is_written_with_dot_slash() {
    let ws = Workspace::new();
    let argv = accepted(
        &find_spec(),
        json!({"path": "./-delete", "pattern": "x"}),
        &ws.root(),
    );
    assert_eq!(argv, ["find", "./-delete", "-name", "x"]);
}

// ---------------------------------------------------------------------------------------
// sed: --expression through the path, e/w commands through the range

#[test]
fn sed_expression_through_the_path_is_refused() {
    let ws = Workspace::new();
    let e = refused(
        &sed_spec(),
        json!({"range": "1", "path": "--expression=1e./x"}),
        &ws.root(),
    );
    assert_eq!(e.slot(), "path");
    assert!(e.reason().contains("begins with `-`"), "{e}");
    let out = call_tool(
        sed_spec(),
        &ws,
        json!({"range": "1", "path": "--expression=1e./x"}),
    );
    assert!(out.is_error && out.exec.is_none(), "{}", out.text);
    assert!(!ws.dir.path().join("MARKER").exists());
}

#[test]
fn sed_expression_through_the_path_is_a_real_attack() {
    let scratch = Workspace::new();
    let argv = unchecked_argv(
        &sed_spec(),
        &[("range", "1"), ("path", "--expression=1e./x")],
    );
    assert_eq!(argv, ["sed", "-n", "1p", "--expression=1e./x"]);
    run_in(scratch.dir.path(), &argv);
    assert!(
        scratch.dir.path().join("MARKER").exists(),
        "sed did not run ./x"
    );
}

#[test]
fn sed_commands_through_the_range_are_refused() {
    let ws = Workspace::new();
    for range in [
        "1e/x\t#",
        "1e./x\t#",
        "1w/x",
        "1w./out",
        "1p;w",
        "1,2p;1e./x",
        "1 ",
    ] {
        let e = refused(
            &sed_spec(),
            json!({"range": range, "path": "1p"}),
            &ws.root(),
        );
        assert_eq!(e.slot(), "range");
        assert!(
            e.reason()
                .contains(r"does not match the pattern `^\d+(,\d+)?$`"),
            "{range:?}: {e}"
        );
    }
    assert_eq!(
        accepted(
            &sed_spec(),
            json!({"range": "1,2", "path": "1p"}),
            &ws.root()
        ),
        ["sed", "-n", "1,2p", "./1p"]
    );
}

#[test]
fn sed_commands_through_the_range_are_real_attacks() {
    let scratch = Workspace::new();
    let dir = scratch.dir.path();
    // `e` runs a command (the tab and `#` hide the trailing `p` from the shell).
    let argv = unchecked_argv(&sed_spec(), &[("range", "1e./x\t#"), ("path", "1p")]);
    assert_eq!(argv, ["sed", "-n", "1e./x\t#p", "1p"]);
    run_in(dir, &argv);
    assert!(dir.join("MARKER").exists(), "sed e did not run ./x");
    // `w` writes a file.
    let argv = unchecked_argv(&sed_spec(), &[("range", "1w./out"), ("path", "1p")]);
    run_in(dir, &argv);
    assert_eq!(
        fs::read_to_string(dir.join("outp")).unwrap(),
        "first line\n"
    );
}

// ---------------------------------------------------------------------------------------
// grep: options through the pattern

#[test]
fn grep_options_through_the_pattern_are_refused() {
    let ws = Workspace::new();
    for pattern in ["-aeKEY", "--file=/etc/passwd", "-f/etc/passwd", "--", "-"] {
        let e = refused(
            &grep_spec(),
            json!({"pattern": pattern, "path": "."}),
            &ws.root(),
        );
        assert_eq!(e.slot(), "pattern");
        assert!(
            e.reason()
                .contains("begins with `-` and would be read as an option"),
            "{pattern}: {e}"
        );
        let out = call_tool(grep_spec(), &ws, json!({"pattern": pattern}));
        assert!(
            out.text.starts_with("error 614: argument `pattern`:"),
            "{}",
            out.text
        );
    }
    // A dash later in the value is fine, and so is a bracketed leading dash.
    assert_eq!(
        accepted(&grep_spec(), json!({"pattern": "[-]aeKEY"}), &ws.root()),
        ["grep", "-rn", "[-]aeKEY", "."]
    );
    assert_eq!(
        accepted(&grep_spec(), json!({"pattern": "a-e"}), &ws.root()),
        ["grep", "-rn", "a-e", "."]
    );
}

#[test]
fn grep_options_through_the_pattern_are_real_attacks() {
    let scratch = Workspace::new();
    let dir = scratch.dir.path();
    // `-aeKEY` is `-a -e KEY`: grep searches for KEY, not for the text `-aeKEY`.
    let argv = unchecked_argv(
        &grep_spec(),
        &[("pattern", "-aeKEY"), ("path", "secret.txt")],
    );
    assert!(run_in(dir, &argv).contains("KEY=hunter2"));
    // `--file=/etc/passwd` takes the patterns from a file outside the workspace: which
    // workspace lines match now depends on /etc/passwd.
    let passwd = fs::read_to_string("/etc/passwd").unwrap();
    let first = passwd.lines().next().unwrap();
    fs::write(dir.join("probe"), format!("{first}\n")).unwrap();
    let argv = unchecked_argv(
        &grep_spec(),
        &[("pattern", "--file=/etc/passwd"), ("path", "probe")],
    );
    assert!(run_in(dir, &argv).contains(first));
}

// ---------------------------------------------------------------------------------------
// Paths

#[test]
fn paths_outside_the_working_directory_are_refused() {
    let ws = Workspace::new();
    let root = ws.root();
    let outside = ws.outside.path().join("secret").display().to_string();
    let escaping = format!("{}/../x", root.display());
    let cases = [
        ("/proc/self/environ", "is outside the working directory"),
        ("/etc", "is outside the working directory"),
        (outside.as_str(), "is outside the working directory"),
        (escaping.as_str(), "is outside the working directory"),
        ("../x", "leaves the working directory through `..`"),
        ("..", "leaves the working directory through `..`"),
        ("a/../../x", "leaves the working directory through `..`"),
        ("sub/../../x", "leaves the working directory through `..`"),
        (
            "out_link",
            "leads outside the working directory through a symlink",
        ),
        (
            "out_dir",
            "leads outside the working directory through a symlink",
        ),
        (
            "out_dir/secret",
            "leads outside the working directory through a symlink",
        ),
        (
            "out_dir/new_file",
            "leads outside the working directory through a symlink",
        ),
        ("dangling", "symlink that cannot be resolved"),
        ("dangling/x", "symlink that cannot be resolved"),
        ("", "the path is empty; write `.`"),
    ];
    for (path, why) in cases {
        let e = refused(&grep_spec(), json!({"pattern": "x", "path": path}), &root);
        assert_eq!(e.slot(), "path");
        assert!(e.reason().contains(why), "{path:?}: {e}");
    }
    let e = refused(&grep_spec(), json!({"pattern": "x", "path": "/etc"}), &root);
    assert_eq!(
        e.to_string(),
        "argument `path`: `/etc` is outside the working directory, and tools may only touch \
         files inside it; write a path inside it, relative to it, e.g. `src/main.rs`"
    );
    // Through an absolute path, a symlink still may not lead outside.
    let e = refused(
        &grep_spec(),
        json!({"pattern": "x", "path": format!("{}/out_dir/secret", root.display())}),
        &root,
    );
    assert!(e.reason().contains("through a symlink"), "{e}");
}

/// Models copy paths from tracebacks and compiler errors: an absolute path that resolves
/// inside the working directory is accepted and rendered relative.
#[test]
fn absolute_paths_inside_the_working_directory_are_rendered_relative() {
    let ws = Workspace::new();
    let root = ws.root();
    let cases = [
        (format!("{}/canary.txt", root.display()), "./canary.txt"),
        (
            format!("{}/sub/canary.rs", root.display()),
            "./sub/canary.rs",
        ),
        (
            format!("{}/sub/../canary.txt", root.display()),
            "./canary.txt",
        ),
        (
            format!("{}/sub/not-yet.rs", root.display()),
            "./sub/not-yet.rs",
        ),
        (format!("{}/", root.display()), "."),
        (root.display().to_string(), "."),
    ];
    for (path, rendered) in &cases {
        let argv = accepted(&grep_spec(), json!({"pattern": "x", "path": path}), &root);
        assert_eq!(argv[3], *rendered, "{path}");
    }
    // The working directory as the host gave it, through a symlink, counts too.
    let link_parent = tempfile::tempdir().unwrap();
    let link = link_parent.path().join("ws");
    symlink(&root, &link).unwrap();
    let argv = accepted(
        &grep_spec(),
        json!({"pattern": "x", "path": format!("{}/canary.txt", link.display())}),
        &link,
    );
    assert_eq!(argv[3], "./canary.txt");
    let argv = accepted(
        &grep_spec(),
        json!({"pattern": "x", "path": format!("{}/canary.txt", root.display())}),
        &link,
    );
    assert_eq!(argv[3], "./canary.txt");
    // And the command reads the file.
    let out = call_tool(
        grep_spec(),
        &ws,
        json!({"pattern": "canary", "path": format!("{}/canary.txt", root.display())}),
    );
    assert!(
        !out.is_error && out.text.trim_end().ends_with("output: 1:canary"),
        "{}",
        out.text
    );
}

#[test]
fn the_symlinks_do_lead_outside() {
    let ws = Workspace::new();
    let dir = ws.dir.path();
    let argv = vec![
        "cat".to_owned(),
        "./out_link".to_owned(),
        "./out_dir/secret".to_owned(),
    ];
    assert_eq!(run_in(dir, &argv), "outside secret\noutside secret\n");
    // Writing through the dangling link would create a file outside.
    fs::write(dir.join("dangling"), "escaped").unwrap();
    assert!(ws.outside.path().join("not-yet").exists());
}

#[test]
fn system_directories_are_refused_even_when_the_root_holds_them() {
    let root = Path::new("/");
    for path in ["proc/self/environ", "dev/null", "sys/kernel", "proc"] {
        let e = refused(&grep_spec(), json!({"pattern": "x", "path": path}), root);
        assert!(
            e.reason().contains("which tools may not touch"),
            "{path}: {e}"
        );
    }
    assert!(fs::read("/proc/self/environ").is_ok());
}

#[test]
fn paths_inside_render_relative_and_normalised() {
    let ws = Workspace::new();
    let root = ws.root();
    let cases = [
        (".", "."),
        ("./", "."),
        ("sub", "./sub"),
        ("sub/", "./sub"),
        ("a/../b", "./b"),
        ("sub/./canary.rs", "./sub/canary.rs"),
        ("in_link/canary.rs", "./in_link/canary.rs"),
        ("does/not/exist/yet.txt", "./does/not/exist/yet.txt"),
        ("sub/../canary.txt", "./canary.txt"),
        ("out_dir/../canary.txt", "./canary.txt"),
        ("weird\\name*?[x]", "./weird\\name*?[x]"),
    ];
    for (path, rendered) in cases {
        let argv = accepted(&grep_spec(), json!({"pattern": "x", "path": path}), &root);
        assert_eq!(argv, ["grep", "-rn", "x", rendered], "{path}");
    }
}

// ---------------------------------------------------------------------------------------
// Characters

#[test]
fn misleading_characters_are_refused() {
    let ws = Workspace::new();
    let root = ws.root();
    let cases = [
        ("a\u{00A0}b", "U+00A0"),
        ("a\u{2028}b", "U+2028"),
        ("a\u{3000}b", "U+3000"),
        ("abc\u{202E}cba", "U+202E"),
        ("a\u{200B}b", "U+200B"),
        ("a\u{FEFF}", "U+FEFF"),
        ("a\0b", "a NUL"),
        ("a\rb", "a carriage return"),
        ("a\u{1b}[2J", "an escape character"),
        ("a\u{7f}b", "U+007F"),
        ("a\u{85}b", "U+0085"),
        ("a\u{0b}b", "U+000B"),
    ];
    for (pattern, named) in cases {
        let e = refused(&grep_spec(), json!({"pattern": pattern}), &root);
        assert_eq!(e.slot(), "pattern");
        assert!(e.reason().contains(named), "{pattern:?}: {e}");
        // The message shows invisible characters escaped, never raw.
        assert!(
            !e.to_string()
                .contains(['\u{202E}', '\u{200B}', '\n', '\0', '\r', '\u{1b}']),
            "{e}"
        );
    }
    // The same characters in a path.
    let e = refused(
        &grep_spec(),
        json!({"pattern": "x", "path": "sub\u{202E}"}),
        &root,
    );
    assert!(e.reason().contains("U+202E"), "{e}");
}

/// Spaces, newlines, tabs, quotes and `;|&$<>` and the backtick are inert: one slot is one
/// argv element and no shell ever sees it. Each value reaches grep exactly as written (the
/// argv holds it unchanged, and grep finds the line that holds it literally), and nothing
/// expands it: no command runs, no variable is read, no file is created.
#[test]
fn shell_characters_reach_the_program_unchanged() {
    let ws = Workspace::new();
    let dir = ws.dir.path();
    let lines = [
        "fn main",
        "a\tb",
        "'quoted'",
        "\"name\"",
        "x;touch pwned",
        "x|touch pwned",
        "x&touch pwned",
        "x&&touch pwned",
        "$HOME",
        "${PATH}",
        "`touch pwned`",
        "$(touch pwned)",
        "a<b",
        "a>pwned",
        "2>&1",
        "*.rs",
    ];
    fs::write(dir.join("probe.txt"), lines.join("\n") + "\n").unwrap();
    for line in lines {
        let args = json!({"pattern": line, "path": "probe.txt"});
        assert_eq!(
            accepted(&grep_fixed_spec(), args.clone(), &ws.root()),
            ["grep", "-F", "-n", "-e", line, "./probe.txt"]
        );
        let out = call_tool(grep_fixed_spec(), &ws, args);
        assert!(!out.is_error, "{line:?}: {}", out.text);
        assert!(
            out.text.contains(&format!(":{line}\n")),
            "{line:?}: {}",
            out.text
        );
        assert!(!dir.join("pwned").exists(), "{line:?} ran a command");
    }
    // A multi-line value is one argument too: grep -F reads each line as a pattern.
    let out = call_tool(
        grep_fixed_spec(),
        &ws,
        json!({"pattern": "fn main\n\"name\"", "path": "probe.txt"}),
    );
    assert!(
        out.text.contains("1:fn main") && out.text.contains("4:\"name\""),
        "{}",
        out.text
    );
    // `$HOME` is not expanded: the home directory's name is not searched for.
    let out = call_tool(
        grep_fixed_spec(),
        &ws,
        json!({"pattern": "$HOME", "path": "probe.txt"}),
    );
    assert!(out.text.contains("9:$HOME"), "{}", out.text);
    assert!(!dir.join("pwned").exists());
    // A backslash is fine: regexes need it.
    assert_eq!(
        accepted(
            &grep_spec(),
            json!({"pattern": r"fn\s+main\(\)"}),
            &ws.root()
        ),
        ["grep", "-rn", r"fn\s+main\(\)", "."]
    );
}

/// A file name with spaces, quotes and `;` is a path like any other.
#[test]
fn paths_with_spaces_and_quotes_are_files_like_any_other() {
    let ws = Workspace::new();
    let dir = ws.dir.path();
    fs::create_dir(dir.join("My Notes")).unwrap();
    fs::write(dir.join("My Notes/a b;'c'.txt"), "one\ntwo\n").unwrap();
    let spec = CommandSpec::new(
        "count_lines",
        "Count lines",
        "wc -l <file>",
        vec![SlotSpec::new("file", SlotKind::Path, "File")],
    )
    .unwrap();
    let args = json!({"file": "My Notes/a b;'c'.txt"});
    assert_eq!(
        accepted(&spec, args.clone(), &ws.root()),
        ["wc", "-l", "./My Notes/a b;'c'.txt"]
    );
    let out = call_tool(spec, &ws, args);
    assert!(
        !out.is_error
            && out
                .text
                .trim_end()
                .ends_with("output: 2 ./My Notes/a b;'c'.txt"),
        "{}",
        out.text
    );
}

fn grep_fixed_spec() -> CommandSpec {
    CommandSpec::new(
        "grep_fixed",
        "Search for fixed text",
        "grep -F -n -e <pattern> <path>",
        vec![
            SlotSpec::new("pattern", SlotKind::String, "Text to search for"),
            SlotSpec::new("path", SlotKind::Path, "File"),
        ],
    )
    .unwrap()
}

// ---------------------------------------------------------------------------------------
// Types, ranges, enums, patterns

#[test]
fn integers_are_json_integers() {
    let ws = Workspace::new();
    let root = ws.root();
    let spec = head_spec();
    let argv = |n: Value| spec.render(&json!({"n": n, "path": "canary.txt"}), &root);
    assert_eq!(
        argv(json!(2)).unwrap().as_slice(),
        ["head", "-n", "2", "./canary.txt"]
    );
    assert_eq!(argv(json!(2.0)).unwrap()[2], "2");
    assert_eq!(argv(json!(1000)).unwrap()[2], "1000");
    let why = |n: Value| argv(n.clone()).unwrap_err().reason().to_owned();
    assert!(why(json!(2.5)).contains("expected an integer, got `2.5`"));
    assert!(why(json!("2")).contains("expected an integer, got the string `\"2\"`"));
    assert!(why(json!(true)).contains("expected an integer"));
    assert!(why(json!([2])).contains("expected an integer"));
    assert!(why(json!(0)).contains("0 is below the minimum 1; write an integer from 1 to 1000"));
    assert!(why(json!(1001)).contains("1001 is above the maximum 1000"));
    assert!(why(json!(1e20)).contains("too large"));
}

#[test]
fn huge_integers_stay_exact_or_are_refused() {
    let spec = CommandSpec::new(
        "seq",
        "Count",
        "seq <n>",
        vec![SlotSpec::new("n", SlotKind::Integer, "Up to")],
    )
    .unwrap();
    let root = Path::new("/");
    let ok = |v: Value| accepted(&spec, json!({"n": v}), root)[1].clone();
    assert_eq!(ok(json!(u64::MAX)), "18446744073709551615");
    assert_eq!(ok(json!(i64::MAX)), "9223372036854775807");
    let args: Value = serde_json::from_str(r#"{"n": 18446744073709551616}"#).unwrap();
    assert!(refused(&spec, args, root).reason().contains("too large"));
}

#[test]
fn negative_numbers_are_options_unless_the_template_starts_the_token() {
    let ws = Workspace::new();
    let root = ws.root();
    let e = refused(&head_spec(), json!({"n": -5, "path": "canary.txt"}), &root);
    // The range check comes first for head_spec (minimum 1); without a minimum the dash rule
    // speaks.
    assert!(e.reason().contains("below the minimum"), "{e}");
    let spec = CommandSpec::new(
        "tail",
        "Last lines",
        "tail -n <n> --sleep-interval=<s> <path>",
        vec![
            SlotSpec::new("n", SlotKind::Integer, "How many"),
            SlotSpec::new("s", SlotKind::Number, "Interval"),
            SlotSpec::new("path", SlotKind::Path, "File"),
        ],
    )
    .unwrap();
    let e = refused(&spec, json!({"n": -5, "s": 1, "path": "canary.txt"}), &root);
    assert_eq!(e.slot(), "n");
    assert!(e.reason().contains("`-5`, which begins with `-`"), "{e}");
    assert_eq!(
        accepted(
            &spec,
            json!({"n": 5, "s": -0.5, "path": "canary.txt"}),
            &root
        ),
        ["tail", "-n", "5", "--sleep-interval=-0.5", "./canary.txt"]
    );
}

#[test]
fn numbers_are_finite_and_never_in_exponent_form() {
    let spec = CommandSpec::new(
        "sleep",
        "Wait",
        "sleep <secs>",
        vec![
            SlotSpec::new("secs", SlotKind::Number, "Seconds")
                .with_minimum(0.0)
                .with_maximum(1e300),
        ],
    )
    .unwrap();
    let root = Path::new("/");
    let r = |v: Value| accepted(&spec, json!({"secs": v}), root)[1].clone();
    assert_eq!(r(json!(1.5)), "1.5");
    assert_eq!(r(json!(2)), "2");
    assert_eq!(r(json!(1e-7)), "0.0000001");
    let big = r(json!(1e300));
    assert!(big.starts_with("1000") && !big.contains('e'), "{big}");
    assert!(
        refused(&spec, json!({"secs": "1.5"}), root)
            .reason()
            .contains("expected a number, got the string")
    );
    assert!(
        refused(&spec, json!({"secs": -1}), root)
            .reason()
            .contains("below the minimum 0")
    );
    // serde_json refuses 1e400 at parse time: it never reaches a slot.
    assert!(serde_json::from_str::<Value>(r#"{"secs": 1e400}"#).is_err());
}

#[test]
fn enum_values_are_skeleton_and_may_begin_with_a_dash() {
    let spec = CommandSpec::new(
        "ls",
        "List",
        "ls <mode> <path>",
        vec![
            SlotSpec::new(
                "mode",
                SlotKind::Enum(vec!["-l".into(), "-1".into()]),
                "Format",
            ),
            SlotSpec::new("path", SlotKind::Path, "Dir").with_default(json!(".")),
        ],
    )
    .unwrap();
    let ws = Workspace::new();
    let root = ws.root();
    assert_eq!(
        accepted(&spec, json!({"mode": "-l"}), &root),
        ["ls", "-l", "."]
    );
    let e = refused(&spec, json!({"mode": "-la"}), &root);
    assert_eq!(
        e.to_string(),
        "argument `mode`: `-la` is not one of the allowed values; write one of `-l`, `-1`"
    );
    assert!(
        refused(&spec, json!({"mode": 1}), &root)
            .reason()
            .contains("expected a string")
    );
}

#[test]
fn patterns_match_the_whole_value_whatever_the_author_wrote() {
    let spec = CommandSpec::new(
        "sed_print",
        "Print lines",
        "sed -n <range>p <path>",
        vec![
            // Unanchored as written: the whole value must match anyway.
            SlotSpec::new("range", SlotKind::String, "Range").with_pattern(r"\d+(,\d+)?"),
            SlotSpec::new("path", SlotKind::Path, "File"),
        ],
    )
    .unwrap();
    let root = Path::new("/tmp");
    for bad in ["1p;w", "1;e", "x1", "1,2,3", "1\n"] {
        let e = refused(&spec, json!({"range": bad, "path": "f"}), root);
        assert!(
            e.reason().contains("does not match the pattern"),
            "{bad:?}: {e}"
        );
    }
    assert_eq!(
        accepted(&spec, json!({"range": "1,2", "path": "f"}), root)[2],
        "1,2p"
    );
    // An author's `$` does not let a trailing newline through either.
    let e = refused(&sed_spec(), json!({"range": "1\n", "path": "f"}), root);
    assert!(e.reason().contains("does not match the pattern"), "{e}");
}

// ---------------------------------------------------------------------------------------
// Optional slots, null, unknown and missing arguments, and the order of the checks

fn grep_max_spec() -> CommandSpec {
    CommandSpec::new(
        "grep_max",
        "Search with a cap",
        "grep --max-count=<n> -rn <pattern> <path>",
        vec![
            SlotSpec::new("n", SlotKind::Integer, "Cap").optional(),
            SlotSpec::new("pattern", SlotKind::String, "Regex"),
            SlotSpec::new("path", SlotKind::Path, "Where").with_default(json!(".")),
        ],
    )
    .unwrap()
}

#[test]
fn an_absent_optional_slot_drops_its_whole_token() {
    let root = Path::new("/tmp");
    let spec = grep_max_spec();
    assert_eq!(
        accepted(&spec, json!({"pattern": "x"}), root),
        ["grep", "-rn", "x", "."]
    );
    assert_eq!(
        accepted(&spec, json!({"n": 3, "pattern": "x"}), root),
        ["grep", "--max-count=3", "-rn", "x", "."]
    );
    // `null` for an optional slot is the same as leaving it out, default included.
    assert_eq!(
        accepted(
            &spec,
            json!({"n": null, "pattern": "x", "path": null}),
            root
        ),
        ["grep", "-rn", "x", "."]
    );
    // The literal part keeps its dash rule: `--max-count=-1` starts with the template's `--`.
    assert_eq!(
        accepted(&spec, json!({"n": -1, "pattern": "x"}), root)[1],
        "--max-count=-1"
    );
}

#[test]
fn null_for_a_required_slot_is_missing() {
    let e = refused(
        &grep_max_spec(),
        json!({"pattern": null}),
        Path::new("/tmp"),
    );
    assert_eq!(e.slot(), "pattern");
    assert_eq!(
        e.to_string(),
        "argument `pattern`: missing: this argument is required (Regex); add `\"pattern\": \"...\"`"
    );
}

#[test]
fn unknown_arguments_and_non_objects_are_refused() {
    let root = Path::new("/tmp");
    let e = refused(
        &grep_max_spec(),
        json!({"pattern": "x", "flags": "-r"}),
        root,
    );
    assert_eq!(e.slot(), "flags");
    assert_eq!(
        e.reason(),
        "unknown argument: this tool takes only `n`, `pattern`, `path`"
    );
    let e = refused(&grep_max_spec(), json!({"patern": "x"}), root);
    assert_eq!(e.slot(), "patern");
    assert!(e.reason().ends_with("; did you mean `pattern`?"), "{e}");
    let e = refused(&grep_max_spec(), json!({"Path": ".", "pattern": "x"}), root);
    assert!(e.reason().ends_with("; did you mean `path`?"), "{e}");
    for args in [json!(null), json!("x"), json!(["x"]), json!(1)] {
        let e = refused(&grep_max_spec(), args.clone(), root);
        assert_eq!(e.slot(), "", "{args}");
        assert!(
            e.to_string()
                .starts_with("arguments: expected a JSON object of named arguments"),
            "{e}"
        );
        assert!(
            e.to_string().contains(r#"write e.g. `{"pattern": "..."}`"#),
            "{e}"
        );
    }
    let none = CommandSpec::new("pwd", "Where am I", "pwd", vec![]).unwrap();
    assert_eq!(accepted(&none, json!({}), root), ["pwd"]);
    let e = refused(&none, json!({"x": 1}), root);
    assert!(e.reason().contains("takes no arguments; send `{}`"), "{e}");
}

#[test]
fn checks_run_in_the_documented_order() {
    let root = Path::new("/tmp");
    let spec = CommandSpec::new(
        "ordered",
        "Every kind of check",
        "tool <a> <b> <c> <d> <e>",
        vec![
            SlotSpec::new("a", SlotKind::String, "A"),
            SlotSpec::new("b", SlotKind::Integer, "B").with_maximum(5.0),
            SlotSpec::new("c", SlotKind::String, "C"),
            SlotSpec::new("d", SlotKind::Path, "D"),
            SlotSpec::new("e", SlotKind::Path, "E"),
        ],
    )
    .unwrap();
    // Each step removes the fault that was reported, and the next one speaks.
    let mut args = json!({
        "zzz": 1,                 // unknown
        "b": "7",                 // wrong type (and, once an integer, out of range)
        "c": "-x",                // option injection
        "d": "-rf",               // path beginning with `-`
        "e": "/etc",              // confinement
    });
    // `a` is missing too: unknown is reported first.
    type Fix = Box<dyn Fn(&mut Value)>;
    let steps: [(&str, &str, Fix); 7] = [
        (
            "zzz",
            "unknown argument",
            Box::new(|v| {
                v.as_object_mut().unwrap().remove("zzz");
            }),
        ),
        ("a", "missing", Box::new(|v| v["a"] = json!("a\u{1b}b"))),
        ("b", "expected an integer", Box::new(|v| v["b"] = json!(7))),
        ("b", "above the maximum", Box::new(|v| v["b"] = json!(5))),
        (
            "a",
            "an escape character",
            Box::new(|v| v["a"] = json!("a b")),
        ),
        (
            "c",
            "would be read as an option",
            Box::new(|v| v["c"] = json!("x")),
        ),
        ("d", "a path may not", Box::new(|v| v["d"] = json!("d"))),
    ];
    for (slot, why, fix) in steps {
        let e = refused(&spec, args.clone(), root);
        assert_eq!((e.slot(), e.reason().contains(why)), (slot, true), "{e}");
        fix(&mut args);
    }
    let e = refused(&spec, args.clone(), root);
    assert_eq!(e.slot(), "e");
    assert!(
        e.reason().contains("is outside the working directory"),
        "{e}"
    );
    args["e"] = json!("e");
    assert_eq!(
        accepted(&spec, args, root),
        ["tool", "a b", "5", "x", "./d", "./e"]
    );
}

#[test]
fn option_injection_is_judged_on_the_whole_rendered_token() {
    let spec = CommandSpec::new(
        "joined",
        "Two slots in one token",
        "tool <a><b> x<c> <d>-y",
        vec![
            SlotSpec::new("a", SlotKind::String, "A"),
            SlotSpec::new("b", SlotKind::String, "B"),
            SlotSpec::new("c", SlotKind::String, "C"),
            SlotSpec::new("d", SlotKind::String, "D"),
        ],
    )
    .unwrap();
    let root = Path::new("/tmp");
    let e = refused(&spec, json!({"a": "", "b": "-x", "c": "", "d": "d"}), root);
    assert_eq!(e.slot(), "b");
    assert!(e.reason().contains("`-x`"), "{e}");
    let e = refused(&spec, json!({"a": "-", "b": "x", "c": "", "d": "d"}), root);
    assert_eq!(e.slot(), "a");
    // A dash after literal text is no option; an empty `d` lets the template's own `-y` lead.
    assert_eq!(
        accepted(
            &spec,
            json!({"a": "a", "b": "-b", "c": "-c", "d": ""}),
            root
        ),
        ["tool", "a-b", "x-c", "-y"]
    );
    let e = refused(&spec, json!({"a": "a", "b": "b", "c": "", "d": "-"}), root);
    assert_eq!(e.slot(), "d");
}

#[test]
fn refusals_reach_the_model_as_614_text_without_running() {
    let ws = Workspace::new();
    let out = call_tool(head_spec(), &ws, json!({"n": "2", "path": "canary.txt"}));
    assert_eq!(out.code, Some(614));
    assert!(out.is_error);
    assert!(out.exec.is_none());
    assert_eq!(
        out.text,
        "error 614: argument `n`: expected an integer, got the string `\"2\"`; write a JSON \
         number without quotes, such as `2`"
    );
}

// ---------------------------------------------------------------------------------------
// Real runs through the kernel

fn kernel_in(ws: &Workspace, timeout: std::time::Duration) -> CommandExecKernel {
    CommandExecKernel::new(KernelSettings {
        cwd: ws.dir.path().to_path_buf(),
        timeout,
        ..KernelSettings::default()
    })
    .unwrap()
}

fn call_with(
    tool: &CommandTool,
    kernel: &CommandExecKernel,
    cancel: Option<&nanotool_runtime::CancelHandle>,
    args: Value,
) -> nanotool_runtime::ToolOutput {
    tool.call(&args, &ToolContext { kernel, cancel })
}

#[test]
fn an_accepted_call_runs_in_the_working_directory() {
    let ws = Workspace::new();
    let kernel = kernel_in(&ws, std::time::Duration::from_secs(30));
    let grep = CommandTool::new(grep_spec());
    let out = call_with(&grep, &kernel, None, json!({"pattern": "hunter"}));
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(out.code, None);
    assert_eq!(out.text, "exit: 0\noutput: ./secret.txt:1:KEY=hunter2\n");
    assert_eq!(out.exec.as_ref().unwrap().exit_code, 0);
    // No match is grep's exit 1: the command ran (no 614) and failed, so `is_error`.
    let out = call_with(&grep, &kernel, None, json!({"pattern": "absent-text"}));
    assert!(out.is_error, "{}", out.text);
    assert_eq!(out.code, None);
    assert_eq!(out.exec.unwrap().exit_code, 1);
    // A file named like an option is a file once rendered `./-delete`.
    fs::write(ws.dir.path().join("-delete"), "dash file\n").unwrap();
    let find = CommandTool::new(find_spec());
    let out = call_with(
        &find,
        &kernel,
        None,
        json!({"path": "./-delete", "pattern": "*"}),
    );
    assert_eq!(out.text, "exit: 0\noutput: ./-delete\n");
    assert!(ws.canaries_intact());
}

#[test]
fn failures_to_start_time_out_or_cancel_are_errors() {
    let ws = Workspace::new();
    let missing = CommandTool::new(
        CommandSpec::new(
            "missing",
            "A binary that is not installed",
            "nanotool-no-such-binary <x>",
            vec![SlotSpec::new("x", SlotKind::String, "Anything")],
        )
        .unwrap(),
    );
    let kernel = kernel_in(&ws, std::time::Duration::from_secs(30));
    let out = call_with(&missing, &kernel, None, json!({"x": "y"}));
    assert!(out.is_error, "{}", out.text);
    assert_eq!(out.code, None);
    let exec = out.exec.as_ref().unwrap();
    assert!(exec.start_error.is_some());
    assert_eq!(out.text, exec.text());

    let sleep = CommandTool::new(
        CommandSpec::new(
            "sleep",
            "Wait",
            "sleep <secs>",
            vec![SlotSpec::new("secs", SlotKind::Integer, "Seconds")],
        )
        .unwrap(),
    );
    let short = kernel_in(&ws, std::time::Duration::from_millis(300));
    let out = call_with(&sleep, &short, None, json!({"secs": 30}));
    assert!(out.is_error, "{}", out.text);
    assert!(out.exec.unwrap().timed_out);

    let cancel = nanotool_runtime::CancelHandle::new();
    cancel.cancel();
    let out = call_with(&sleep, &kernel, Some(&cancel), json!({"secs": 30}));
    assert!(out.is_error, "{}", out.text);
    assert!(out.exec.unwrap().cancelled);
}

// ---------------------------------------------------------------------------------------
// A path slot sharing its token: the whole argument is the path the command opens

fn glued_spec() -> CommandSpec {
    CommandSpec::new(
        "glued",
        "A path with more text in its argument",
        "cat <path><ext> <stem>.txt --file=<opt> -o<short>",
        vec![
            SlotSpec::new("path", SlotKind::Path, "File"),
            SlotSpec::new("ext", SlotKind::String, "Suffix").with_default(json!("")),
            SlotSpec::new("stem", SlotKind::Path, "Stem").with_default(json!("canary")),
            SlotSpec::new("opt", SlotKind::Path, "Option value").with_default(json!("sub")),
            SlotSpec::new("short", SlotKind::Path, "Short option value").with_default(json!(".")),
        ],
    )
    .unwrap()
}

#[test]
fn text_glued_to_a_path_cannot_lead_it_outside() {
    let ws = Workspace::new();
    let root = ws.root();
    let outside = ws
        .outside
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    symlink(
        ws.outside.path().join("secret"),
        ws.dir.path().join("leak.txt"),
    )
    .unwrap();
    let spec = glued_spec();
    let e = refused(
        &spec,
        json!({"path": "sub", "ext": format!("/../../{outside}/secret")}),
        &root,
    );
    assert_eq!(e.slot(), "path");
    assert!(e.reason().contains("`..`"), "{e}");
    let e = refused(&spec, json!({"path": "canary.txt", "stem": "leak"}), &root);
    assert_eq!(e.slot(), "stem");
    assert!(
        e.reason()
            .contains("`./leak.txt` leads outside the working directory"),
        "{e}"
    );
    // A literal dot before the rendered `./` makes `../`.
    let dotted = CommandSpec::new(
        "dotted",
        "A dot glued before a path",
        "cat .<path>",
        vec![SlotSpec::new("path", SlotKind::Path, "File")],
    )
    .unwrap();
    let e = refused(&dotted, json!({"path": "canary.txt"}), &root);
    assert!(e.reason().contains("`../canary.txt`, whose `..`"), "{e}");
    // Plain neighbours pass: a suffix, an option's attached value.
    assert_eq!(
        accepted(&spec, json!({"path": "sub", "ext": "/canary.rs"}), &root),
        [
            "cat",
            "./sub/canary.rs",
            "./canary.txt",
            "--file=./sub",
            "-o."
        ]
    );
}

#[test]
fn text_glued_to_a_path_is_a_real_escape() {
    let ws = Workspace::new();
    let dir = ws.dir.path();
    let outside = ws
        .outside
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    symlink(ws.outside.path().join("secret"), dir.join("leak.txt")).unwrap();
    // What each slot alone would pass as: `./sub` and `./leak`.
    let argv = vec![
        "cat".to_owned(),
        format!("./sub/../../{outside}/secret"),
        "./leak.txt".to_owned(),
    ];
    assert_eq!(run_in(dir, &argv), "outside secret\noutside secret\n");
}

// ---------------------------------------------------------------------------------------
// Where a leading `-` is harmless

/// A value may begin with `-` where the template has already made that harmless: the value
/// of a literal option that takes one, a data operand after `--`, a number whose minimum is
/// negative. Everywhere else it is still refused, and the advice no longer offers `[-]`,
/// which a fixed-string search would look for as written.
#[test]
fn a_leading_dash_is_allowed_where_the_template_makes_it_harmless() {
    let ws = Workspace::new();
    let root = ws.root();
    let s = |n: &str| SlotSpec::new(n, SlotKind::String, "A value");
    let p = |n: &str| SlotSpec::new(n, SlotKind::Path, "A path").with_default(json!("."));
    let spec = |t: &str, slots: Vec<SlotSpec>| CommandSpec::new("t", "A tool", t, slots).unwrap();

    for (template, value) in [
        ("grep -rn -C 2 -e <pattern> <path>", "--locked"),
        ("grep -rn --regexp <pattern> <path>", "-> Result"),
        ("grep -rne <pattern> <path>", "-x"),
        ("git grep -n -e <pattern> <path>", "--output=x"),
        ("git log --oneline -S <pattern> -- <path>", "--locked"),
        ("grep -n -F -- <pattern> <path>", "-R"),
        ("rg -n -e <pattern> <path>", "--pre=x"),
        ("wc -l -- <pattern> <path>", "-x"),
    ] {
        let argv = accepted(
            &spec(template, vec![s("pattern"), p("path")]),
            json!({"pattern": value}),
            &root,
        );
        assert!(argv.contains(&value.to_owned()), "{template}: {argv:?}");
    }
    // Not a value position: refused, with advice that holds for fixed strings too.
    for template in [
        "grep -rn -F <pattern> <path>",
        "grep -rn <pattern> <path>",
        // `-c` takes no value: what follows is an operand.
        "grep -c <pattern> <path>",
        // A binary outside the tables: nothing is known of its options.
        "mytool -e <pattern> <path>",
        // find's `--` does not end its expression.
        "find -- <path> <pattern>",
        // The option is a slot's: nothing is fixed.
        "grep <pattern> <path>",
        // clap- and yargs-style parsers may read a dash value as an option (`fd -e -x` could
        // be `-x`, fd's exec), and what follows cargo's `--` goes to a program that parses
        // its own options (libtest's `--logfile`).
        "fd -e <pattern> <path>",
        "cargo test -- <pattern> <path>",
        "node --test-name-pattern <pattern> --test <path>",
    ] {
        let e = refused(
            &spec(template, vec![s("pattern"), p("path")]),
            json!({"pattern": "-delete"}),
            &root,
        );
        assert_eq!(e.slot(), "pattern", "{template}");
        assert!(
            e.reason().contains("would be read as an option"),
            "{template}: {e}"
        );
        assert!(e.reason().contains("fixed-string search"), "{e}");
        assert!(
            e.reason().contains("`-e <pattern>`") && e.reason().contains("`--`"),
            "{e}"
        );
    }
    // Decided on the command this call makes: an enum value that is a value-taking option,
    // a left-out slot that puts the value right after one.
    let flag = SlotSpec::new(
        "flag",
        SlotKind::Enum(vec!["-e".into(), "-n".into()]),
        "Flag",
    );
    let sp = spec(
        "grep <flag> <pattern> <path>",
        vec![flag, s("pattern"), p("path")],
    );
    assert_eq!(
        accepted(&sp, json!({"flag": "-e", "pattern": "-x"}), &root),
        ["grep", "-e", "-x", "."]
    );
    refused(&sp, json!({"flag": "-n", "pattern": "-x"}), &root);
    let sp = spec(
        "grep -e <first> <pattern> <path>",
        vec![s("first").optional(), s("pattern"), p("path")],
    );
    assert_eq!(
        accepted(&sp, json!({"pattern": "-x"}), &root),
        ["grep", "-e", "-x", "."]
    );
    refused(&sp, json!({"first": "a", "pattern": "-x"}), &root);
    // A number whose author-set minimum is negative; without one, still refused.
    let n = SlotSpec::new("days", SlotKind::Integer, "Days")
        .with_minimum(-30.0)
        .with_maximum(30.0);
    assert_eq!(
        accepted(&spec("tool <days>", vec![n]), json!({"days": -7}), &root),
        ["tool", "-7"]
    );
    let x = SlotSpec::new("x", SlotKind::Number, "X").with_minimum(-1.5);
    assert_eq!(
        accepted(&spec("tool <x>", vec![x]), json!({"x": -1.25}), &root),
        ["tool", "-1.25"]
    );
    let n = SlotSpec::new("days", SlotKind::Integer, "Days");
    let e = refused(&spec("tool <days>", vec![n]), json!({"days": -7}), &root);
    assert!(e.reason().contains("would be read as an option"), "{e}");
}

/// grep -F with `-e`: a search for text that begins with a dash finds it, through a real run.
#[test]
fn a_fixed_string_search_for_a_dash_finds_it() {
    let ws = Workspace::new();
    fs::write(
        ws.dir.path().join("Cargo.lock.txt"),
        "cargo build --locked\n-> Result\n",
    )
    .unwrap();
    for (text, line) in [
        ("--locked", "1:cargo build --locked"),
        ("-> Result", "2:-> Result"),
    ] {
        let out = call_tool(
            grep_fixed_spec(),
            &ws,
            json!({"pattern": text, "path": "Cargo.lock.txt"}),
        );
        assert!(
            !out.is_error && out.text.contains(line),
            "{text}: {}",
            out.text
        );
    }
}
