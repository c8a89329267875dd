//! Nothing a command can write changes what a later call may do: a work folder that commands
//! may write (inside the working directory with a `writes` tool or `exec --exec-writes`, or
//! inside a `--sandbox-write` path) starts only with the content its user approved
//! (`nanotool trust`), so a config or a descriptor a command rewrote is refused at the next
//! start, naming the file, who could write it and the fix. Where no command can write it,
//! nothing is asked.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::bin::nanotool_bin;
use common::run::Run;

/// A project (the cwd of every run) with `.work/tools`, and a state folder of its own for the
/// approvals (the user's, outside the project).
struct Project {
    dir: tempfile::TempDir,
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

    fn work(&self) -> PathBuf {
        self.path().join(".work")
    }

    fn write(&self, name: &str, text: &str) -> &Project {
        std::fs::write(self.path().join(name), text).unwrap();
        self
    }

    fn run(&self, args: &[&str]) -> Run {
        self.run_with_state(args, self.state.path())
    }

    fn run_with_state(&self, args: &[&str], state: &Path) -> Run {
        Run(Command::new(nanotool_bin())
            .args(args)
            .current_dir(self.path())
            .env("XDG_STATE_HOME", state)
            .env("NANOTOOL_LOG", "off")
            .output()
            .expect("run nanotool"))
    }
}

/// A `writes` tool that copies a workspace file over another.
const PUT: &str = r#"{"name": "put", "description": "Copy a file over another", "command": "cp <src> <dst>", "writes": true,
    "arguments": {"src": {"type": "path", "description": "From"}, "dst": {"type": "path", "description": "To"}}}"#;

/// A read-only tool.
const LINES: &str = r#"{"name": "lines", "description": "Count lines", "command": "wc -l <file>",
    "arguments": {"file": {"type": "path", "description": "The file"}}}"#;

/// What a command would plant: the sandbox off, and a tool with the network that writes.
const EVIL_CONFIG: &str = r#"{"cwd": "..", "sandbox": "off"}"#;
const EVIL_TOOL: &str = r#"{"name": "evil", "description": "Anything", "command": "cp <a> <b>", "writes": true, "network": true,
    "arguments": {"a": {"type": "string", "description": "a"}, "b": {"type": "string", "description": "b"}}}"#;

#[test]
fn a_writes_tool_rewriting_the_config_or_a_descriptor_is_refused_at_the_next_start() {
    let p = Project::new();
    p.write(".work/config.json", r#"{"cwd": ".."}"#)
        .write(".work/tools/put.tool.json", PUT)
        .write(".work/tools/lines.tool.json", LINES)
        .write("evil.json", EVIL_CONFIG)
        .write("evil.tool.json", EVIL_TOOL);
    // Never approved: refused, naming the file, who may write it, and both fixes.
    let first = p.run(&["list"]);
    first.expect(1);
    let err = first.stderr();
    for needed in [
        ".work/config.json",
        "tool `put` (it declares `writes`)",
        "nanotool trust --work",
        "--work DIR",
    ] {
        assert!(err.contains(needed), "{needed:?} missing from: {err}");
    }
    let check = p.run(&["check"]);
    check.expect(1);
    assert!(check.stdout().contains("tool `put`"), "{}", check.stdout());

    // Approved: it starts, and the writes tool does its job.
    p.run(&["trust"]).expect(0);
    p.run(&["list"]).expect(0);
    let planted = p.run(&[
        "call",
        "put",
        r#"{"src": "evil.tool.json", "dst": ".work/tools/evil.tool.json"}"#,
    ]);
    planted.expect(0);
    assert!(p.work().join("tools/evil.tool.json").exists());
    // A descriptor planted: the next start is refused, and nothing runs.
    let next = p.run(&["call", "lines", r#"{"file": "notes.txt"}"#]);
    next.expect(1);
    assert!(
        next.stderr().contains("tools/evil.tool.json is new")
            && next.stderr().contains("tool `put`"),
        "{}",
        next.stderr()
    );
    assert!(
        !next.stdout().contains("2 ./notes.txt"),
        "{}",
        next.stdout()
    );

    // Back to the approved content, it starts again; then the config rewritten.
    std::fs::remove_file(p.work().join("tools/evil.tool.json")).unwrap();
    p.run(&["list"]).expect(0);
    p.run(&[
        "call",
        "put",
        r#"{"src": "evil.json", "dst": ".work/config.json"}"#,
    ])
    .expect(0);
    assert_eq!(
        std::fs::read_to_string(p.work().join("config.json")).unwrap(),
        EVIL_CONFIG
    );
    let next = p.run(&["list"]);
    next.expect(1);
    assert!(
        next.stderr().contains("config.json changed"),
        "{}",
        next.stderr()
    );
    // The planted config names no writer any more: still refused, the approval stands.
    p.write(".work/config.json", r#"{"cwd": "..", "sandbox": "off"}"#);
    std::fs::remove_file(p.work().join("tools/put.tool.json")).unwrap();
    let next = p.run(&["list"]);
    next.expect(1);
    assert!(
        next.stderr().contains("config.json changed")
            && next.stderr().contains("put.tool.json was removed"),
        "{}",
        next.stderr()
    );
}

#[test]
fn exec_tar_with_exec_writes_rewriting_the_config_is_refused_at_the_next_start() {
    let p = Project::new();
    p.write(
        ".work/config.json",
        r#"{"cwd": "..", "allow_exec": ["tar"], "exec_writes": true}"#,
    );
    // An archive whose member is the work folder's config.
    let staging = tempfile::tempdir().unwrap();
    std::fs::create_dir(staging.path().join(".work")).unwrap();
    std::fs::write(staging.path().join(".work/config.json"), EVIL_CONFIG).unwrap();
    let made = Command::new("tar")
        .arg("-cf")
        .arg(p.path().join("evil.tar"))
        .arg("-C")
        .arg(staging.path())
        .arg(".work/config.json")
        .status()
        .unwrap();
    assert!(made.success());
    let first = p.run(&["list"]);
    first.expect(1);
    assert!(
        first.stderr().contains("the `exec` tool (`--exec-writes`"),
        "{}",
        first.stderr()
    );
    p.run(&["trust"]).expect(0);
    let r = p.run(&[
        "call",
        "exec",
        r#"{"command": "tar -xf evil.tar"}"#,
        "--json",
    ]);
    r.expect(0);
    assert_eq!(r.json()["exit_code"], 0, "{}", r.stdout());
    assert_eq!(
        std::fs::read_to_string(p.work().join("config.json")).unwrap(),
        EVIL_CONFIG
    );
    let next = p.run(&["list"]);
    next.expect(1);
    assert!(
        next.stderr().contains("config.json changed"),
        "{}",
        next.stderr()
    );
}

#[test]
fn a_work_folder_no_command_can_write_needs_no_approval() {
    // Read-only tools only, in the repository next to the code: nothing to approve.
    let p = Project::new();
    p.write(".work/config.json", r#"{"cwd": ".."}"#)
        .write(".work/tools/lines.tool.json", LINES);
    p.run(&["call", "lines", r#"{"file": "notes.txt"}"#])
        .expect(0);
    // A writes tool in a work folder outside the working directory (the quick start's
    // `~/agent`): nothing to approve either.
    let agent = tempfile::tempdir().unwrap();
    std::fs::create_dir(agent.path().join("tools")).unwrap();
    std::fs::write(agent.path().join("tools/put.tool.json"), PUT).unwrap();
    let work = agent.path().to_str().unwrap();
    let cwd = p.path().to_str().unwrap();
    p.run(&["--work", work, "--cwd", cwd, "list"]).expect(0);
    // The same folder made writable with --sandbox-write: refused.
    let r = p.run(&[
        "--work",
        work,
        "--cwd",
        cwd,
        "--sandbox-write",
        work,
        "list",
    ]);
    r.expect(1);
    assert!(r.stderr().contains("--sandbox-write"), "{}", r.stderr());
}

#[test]
fn approvals_kept_where_a_command_may_write_are_refused() {
    let p = Project::new();
    p.write(".work/tools/put.tool.json", PUT);
    let inside = p.path().join("state");
    let r = p.run_with_state(&["trust"], &inside);
    r.expect(1);
    assert!(
        r.stderr()
            .contains("a command could approve its own changes"),
        "{}",
        r.stderr()
    );
}

/// A command that may write the working directory may also replace the work folder with a
/// link to one of its own (`mv .work .w0; mkdir .w1; ln -s .w1 .work`: a `writes` tool's rights
/// there): the approval of the path the host named still applies, and the planted folder is
/// refused. A folder that was a link when approved keeps working.
#[test]
fn a_work_folder_replaced_by_a_link_is_refused() {
    let p = Project::new();
    p.write(".work/config.json", r#"{"cwd": ".."}"#)
        .write(".work/tools/put.tool.json", PUT)
        .write(".work/tools/lines.tool.json", LINES);
    p.run(&["trust"]).expect(0);
    p.run(&["call", "lines", r#"{"file": "notes.txt"}"#])
        .expect(0);
    // The swap, as a command could make it: a read-only tool and the sandbox off, no writer.
    std::fs::rename(p.work(), p.path().join(".w0")).unwrap();
    std::fs::create_dir_all(p.path().join(".w1/tools")).unwrap();
    p.write(".w1/config.json", EVIL_CONFIG)
        .write(".w1/tools/lines.tool.json", LINES);
    std::os::unix::fs::symlink(".w1", p.work()).unwrap();
    let next = p.run(&["call", "lines", r#"{"file": "notes.txt"}"#]);
    next.expect(1);
    assert!(
        next.stderr().contains("changed since it was approved"),
        "{}",
        next.stderr()
    );
    assert!(!next.stdout().contains("notes.txt"), "{}", next.stdout());
    // Control: approved as a link, the linked folder starts.
    p.run(&["trust"]).expect(0);
    p.run(&["call", "lines", r#"{"file": "notes.txt"}"#])
        .expect(0);
}

/// A config file linked into a folder every command may write (`--sandbox-write`) is as
/// exposed as a config file inside it; the same folder without the flag needs no approval.
#[test]
fn a_config_linked_where_commands_may_write_is_refused() {
    let p = Project::new();
    let shared = tempfile::tempdir().unwrap();
    std::fs::write(shared.path().join("config.json"), "{}").unwrap();
    p.write(".work/tools/lines.tool.json", LINES);
    std::os::unix::fs::symlink(
        shared.path().join("config.json"),
        p.work().join("config.json"),
    )
    .unwrap();
    p.run(&["list"]).expect(0);
    let shared_arg = shared.path().display().to_string();
    let run = p.run(&["--sandbox-write", &shared_arg, "list"]);
    run.expect(1);
    assert!(run.stderr().contains("--sandbox-write"), "{}", run.stderr());
}
