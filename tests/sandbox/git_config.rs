//! Planted git configuration, tried as an attacker would: a workspace whose repository (or a
//! repository git opens from it) names a program in its configuration, and a confined git
//! command that must not run it. Each test checks that the planted program printed nothing
//! and left no marker, beside a control that runs plain git, unconfined and with the real
//! configuration, and sees the program run — so the test proves the defence did the work.
//!
//! The planted program prints a canary and writes a marker in the workspace; the attacks run
//! with the `writes` profile where a marker in the workspace could be written at all, so that
//! the sandbox's own refusal to write is not what keeps the marker away.

use crate::common::git::{
    FILE_OK, Nesting, commit, git, init_repo, many_repos, nested_path, plain_git,
};
use crate::common::{PLANTED_RAN as CANARY, WRITES, argv, env, script, settings};
use nanotool_runtime::{CommandExecKernel, ExecResult, KernelSettings, SandboxMode, Toolbox};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A repository in `dir` with `a.txt` committed and then modified, routed through the diff
/// driver `evil` by `.gitattributes`.
fn repo_with_diff(dir: &Path) {
    init_repo(
        dir,
        &[("a.txt", "a\n"), (".gitattributes", "a.txt diff=evil\n")],
        "a",
    );
    std::fs::write(dir.join("a.txt"), "a\nb\n").unwrap();
}

/// A workspace holding [`repo_with_diff`] and the planted [`payload`]: (workspace, the
/// payload's marker, the payload).
fn workspace_with_diff() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let ws = tempfile::tempdir().unwrap();
    repo_with_diff(ws.path());
    let marker = ws.path().join("marker");
    let evil = payload(ws.path(), &marker);
    (ws, marker, evil)
}

/// The planted program, outside the repository's tracked files: prints the canary and
/// writes `marker`.
fn payload(dir: &Path, marker: &Path) -> PathBuf {
    planted(&dir.join("planted.sh"), marker)
}

/// A program at `path` that prints the canary and writes `marker`.
fn planted(path: &Path, marker: &Path) -> PathBuf {
    script(
        path,
        &format!(
            "#!/bin/sh\necho {CANARY}\necho pwned > {}\n",
            marker.display()
        ),
    )
}

/// A diff driver whose command is `program`.
fn driver(program: &Path) -> String {
    format!("[diff \"evil\"]\n\tcommand = {}\n", program.display())
}

fn append(path: &Path, text: &str) {
    let mut config = std::fs::read_to_string(path).unwrap_or_default();
    config.push_str(text);
    std::fs::write(path, config).unwrap();
}

fn kernel(ws: &Path, vars: &[(&str, &str)]) -> CommandExecKernel {
    CommandExecKernel::new(KernelSettings {
        env: env(vars),
        ..settings(ws, SandboxMode::BestEffort)
    })
    .unwrap()
}

/// The planted program neither printed nor wrote anything.
fn assert_no_trace(r: &ExecResult, marker: &Path) {
    let text = r.text();
    assert!(!text.contains(CANARY), "the planted program ran: {text}");
    assert!(
        !marker.exists(),
        "the planted program left its marker: {text}"
    );
}

/// Control: plain git, unconfined, runs the planted program (then the marker is removed).
fn assert_plain_git_runs_it(dir: &Path, args: &[&str], marker: &Path) {
    let out = plain_git(dir, args);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(CANARY) || marker.exists(),
        "control: plain git did not run the planted program: {text}"
    );
    let _ = std::fs::remove_file(marker);
}

/// A refusal that names the file and the limit.
fn assert_refused(r: &ExecResult, names: &[&str]) {
    assert_eq!(r.exit_code, 126, "{r:?}");
    let message = r.start_error.as_deref().unwrap_or_default();
    for name in names {
        assert!(message.contains(name), "`{name}` not in: {message}");
    }
}

#[test]
fn a_driver_after_one_mib_of_config_refuses_git_instead_of_running() {
    let (ws, marker, evil) = workspace_with_diff();
    let config = ws.path().join(".git/config");
    let mut padding = String::new();
    while padding.len() <= 1024 * 1024 {
        padding.push_str("# padding so that the driver comes after the first MiB\n");
    }
    append(&config, &padding);
    append(&config, &driver(&evil));

    let k = kernel(ws.path(), &[]);
    let r = k.run_as(&argv(&["git", "diff"]), WRITES, None);
    assert_no_trace(&r, &marker);
    assert_refused(&r, &[".git/config", "1 MiB"]);
    // A command that runs git itself (a build, a script) is refused by git.
    let r = k.run_as(&argv(&["sh", "-c", "git diff"]), WRITES, None);
    assert_no_trace(&r, &marker);
    assert_ne!(r.exit_code, 0, "{r:?}");
    // Other commands still run.
    let r = k.run(&argv(&["cat", "a.txt"]));
    assert_eq!((r.exit_code, r.output.as_str()), (0, "a\nb\n"), "{r:?}");

    assert_plain_git_runs_it(ws.path(), &["diff"], &marker);
}

#[test]
fn a_driver_behind_more_includes_than_the_reader_takes_refuses_git() {
    let (ws, marker, evil) = workspace_with_diff();
    // A chain of 40 include files (each one file, well inside git's depth of 10 per chain:
    // the chain is flat), the driver in the last.
    let mut includes = String::new();
    for i in 0..40 {
        let name = format!("inc{i}.cfg");
        std::fs::write(ws.path().join(".git").join(&name), "[core]\n").unwrap();
        includes.push_str(&format!("[include]\n\tpath = {name}\n"));
    }
    append(&ws.path().join(".git/inc39.cfg"), &driver(&evil));
    append(&ws.path().join(".git/config"), &includes);

    let k = kernel(ws.path(), &[]);
    let r = k.run_as(&argv(&["git", "diff"]), WRITES, None);
    assert_no_trace(&r, &marker);
    assert_refused(&r, &["inc", "files"]);

    assert_plain_git_runs_it(ws.path(), &["diff"], &marker);
}

#[test]
fn an_include_that_cannot_be_read_refuses_git() {
    let (ws, marker, evil) = workspace_with_diff();
    // A FIFO: a reader that opens it blocks until someone writes. The kernel must neither
    // hang nor run git with what it could not read.
    let fifo = ws.path().join(".git/fifo.cfg");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    append(
        &ws.path().join(".git/config"),
        &format!("[include]\n\tpath = fifo.cfg\n{}", driver(&evil)),
    );

    let k = kernel(ws.path(), &[]);
    let r = k.run_as(&argv(&["git", "diff"]), WRITES, None);
    assert_no_trace(&r, &marker);
    assert_refused(&r, &["fifo.cfg"]);

    // Control: without the FIFO, plain git runs the driver.
    std::fs::remove_file(&fifo).unwrap();
    assert_plain_git_runs_it(ws.path(), &["diff"], &marker);
}

#[test]
fn a_header_hidden_behind_a_continued_comment_is_still_neutralised() {
    let (ws, marker, evil) = workspace_with_diff();
    // git ends a comment at the end of its line, a backslash or not.
    append(
        &ws.path().join(".git/config"),
        &format!("# a comment \\\n{}", driver(&evil)),
    );

    let k = kernel(ws.path(), &[]);
    let r = k.run_as(&argv(&["git", "diff"]), WRITES, None);
    assert_no_trace(&r, &marker);
    assert_eq!(r.exit_code, 0, "{r:?}");

    assert_plain_git_runs_it(ws.path(), &["diff"], &marker);
}

#[test]
fn a_workspace_that_is_a_bare_repository_is_not_opened() {
    let ws = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    repo_with_diff(src.path());
    git(src.path(), &["add", "a.txt"]);
    commit(src.path(), "b");
    // The workspace is the bare repository itself: its config and info/attributes are
    // what git reads, and there is no `.git` to look for.
    git(
        ws.path(),
        &["clone", "-q", "--bare", src.path().to_str().unwrap(), "."],
    );
    let marker = ws.path().join("marker");
    let evil = payload(ws.path(), &marker);
    std::fs::create_dir_all(ws.path().join("info")).unwrap();
    std::fs::write(ws.path().join("info/attributes"), "* diff=evil\n").unwrap();
    append(
        &ws.path().join("config"),
        &format!(
            "[core]\n\tfsmonitor = {e}\n[diff \"evil\"]\n\ttextconv = {e}\n",
            e = evil.display()
        ),
    );

    let k = kernel(ws.path(), &[]);
    let r = k.run_as(&argv(&["git", "log", "-p"]), WRITES, None);
    assert_no_trace(&r, &marker);
    assert!(r.output.contains("bare"), "{r:?}");
    // git older than 2.38 knows no safe.bareRepository and opens it (played here by a
    // command-line setting, which comes after the kernel's): its driver is neutralised too.
    let older = ["git", "-c", "safe.bareRepository=all", "log", "-p"];
    let r = k.run_as(&argv(&older), WRITES, None);
    assert_no_trace(&r, &marker);
    assert_eq!(r.exit_code, 0, "{r:?}");

    assert_plain_git_runs_it(ws.path(), &["log", "-p"], &marker);
}

/// `git diff --submodule=diff` and `git status` in `ws`, which open a repository nested in it
/// whose configuration names the planted program: they run it not, and plain git does.
fn assert_nested_repository_is_neutralised(ws: &Path, marker: &Path) {
    let k = kernel(ws, &[]);
    for args in [&["diff", "--submodule=diff"][..], &["status"]] {
        let r = k.run_as(&argv(&[&["git"][..], args].concat()), WRITES, None);
        assert_no_trace(&r, marker);
        assert_eq!(r.exit_code, 0, "{r:?}");
    }

    assert_plain_git_runs_it(ws, &["diff", "--submodule=diff"], marker);
}

#[test]
fn a_driver_in_a_submodules_own_config_is_neutralised() {
    let sub = tempfile::tempdir().unwrap();
    repo_with_diff(sub.path());
    git(sub.path(), &["checkout", "-q", "a.txt"]);
    let ws = tempfile::tempdir().unwrap();
    git(ws.path(), &["init", "-q", "."]);
    let url = sub.path().to_str().unwrap();
    git(
        ws.path(),
        &[&FILE_OK[..], &["submodule", "add", "-q", url, "sub"]].concat(),
    );
    commit(ws.path(), "with a submodule");
    let marker = ws.path().join("marker");
    let evil = payload(ws.path(), &marker);
    // The submodule's configuration lives in the superproject's .git/modules/sub.
    append(&ws.path().join(".git/modules/sub/config"), &driver(&evil));
    std::fs::write(ws.path().join("sub/a.txt"), "changed\n").unwrap();

    assert_nested_repository_is_neutralised(ws.path(), &marker);
}

#[test]
fn a_driver_in_an_embedded_repository_is_neutralised() {
    let ws = tempfile::tempdir().unwrap();
    git(ws.path(), &["init", "-q", "."]);
    // A repository inside the workspace's, recorded as a gitlink without any .gitmodules:
    // git still opens it for `status` and `diff --submodule=diff`.
    let emb = ws.path().join("emb");
    std::fs::create_dir(&emb).unwrap();
    repo_with_diff(&emb);
    git(ws.path(), &["add", "emb"]);
    commit(ws.path(), "embedded");
    let marker = ws.path().join("marker");
    let evil = payload(ws.path(), &marker);
    append(
        &emb.join(".git/config"),
        &format!(
            "[filter \"f\"]\n\tclean = {e}\n{d}",
            e = evil.display(),
            d = driver(&evil)
        ),
    );

    assert_nested_repository_is_neutralised(ws.path(), &marker);
}

#[test]
fn a_config_written_after_the_kernel_was_built_is_neutralised() {
    let (ws, marker, evil) = workspace_with_diff();
    let k = kernel(ws.path(), &[]);
    let r = k.run_as(&argv(&["git", "diff"]), WRITES, None);
    assert_eq!(r.exit_code, 0, "{r:?}");
    // Written by something the kernel does not run (the agent's own file tool).
    append(&ws.path().join(".git/config"), &driver(&evil));
    let r = k.run_as(&argv(&["git", "diff"]), WRITES, None);
    assert_no_trace(&r, &marker);
    assert_eq!(r.exit_code, 0, "{r:?}");

    assert_plain_git_runs_it(ws.path(), &["diff"], &marker);
}

#[test]
fn leaf_calls_after_a_config_was_written_do_not_keep_the_old_reading_for_git() {
    // A leaf program's call takes the last reading of the configuration without checking it
    // (nothing of it reaches a leaf): the next git call must still find the change.
    let (ws, marker, evil) = workspace_with_diff();
    let k = kernel(ws.path(), &[]);
    let r = k.run_as(&argv(&["git", "diff"]), WRITES, None);
    assert_eq!(r.exit_code, 0, "{r:?}");
    append(&ws.path().join(".git/config"), &driver(&evil));
    for leaf in [
        &["cat", ".git/config"][..],
        &["wc", "-l", "a.txt"],
        &["true"],
    ] {
        let r = k.run_as(&argv(leaf), WRITES, None);
        assert_eq!(r.exit_code, 0, "{leaf:?}: {r:?}");
    }
    let r = k.run_as(&argv(&["git", "diff"]), WRITES, None);
    assert_no_trace(&r, &marker);
    assert_eq!(r.exit_code, 0, "{r:?}");

    assert_plain_git_runs_it(ws.path(), &["diff"], &marker);
}

#[test]
fn git_started_by_split_filter_gets_the_overrides() {
    // `split --filter=CMD` runs CMD with a shell: `split` can start git, so it is no leaf.
    let (ws, marker, evil) = workspace_with_diff();
    append(&ws.path().join(".git/config"), &driver(&evil));
    let k = kernel(ws.path(), &[]);
    let r = k.run_as(
        &argv(&["split", "-n", "1", "--filter=git diff >&2", "a.txt"]),
        WRITES,
        None,
    );
    assert_no_trace(&r, &marker);
    assert_eq!(r.exit_code, 0, "{r:?}");

    assert_plain_git_runs_it(ws.path(), &["diff"], &marker);
}

#[test]
fn a_git_config_extracted_by_an_exec_tar_does_not_run_on_the_next_git_diff() {
    let (ws, marker, evil) = workspace_with_diff();
    // An archive whose member is `.git/config`: the repository's config plus a driver.
    let staging = tempfile::tempdir().unwrap();
    std::fs::create_dir(staging.path().join(".git")).unwrap();
    let mut config = std::fs::read_to_string(ws.path().join(".git/config")).unwrap();
    config.push_str(&driver(&evil));
    std::fs::write(staging.path().join(".git/config"), config).unwrap();
    let tar = Command::new("tar")
        .args(["-cf"])
        .arg(ws.path().join("update.tar"))
        .args(["-C"])
        .arg(staging.path())
        .arg(".git/config")
        .output()
        .unwrap();
    assert!(tar.status.success(), "{tar:?}");

    let mut toolbox = Toolbox::new(kernel(ws.path(), &[]));
    toolbox
        .enable_exec_with_writes(vec!["tar".into(), "git".into()], true)
        .unwrap();
    let exec = |command: &str| {
        toolbox
            .call("exec", &serde_json::json!({ "command": command }), None)
            .unwrap()
    };
    let before = exec("git diff");
    assert!(!before.is_error, "{}", before.text);
    let extracted = exec("tar -xf update.tar");
    assert!(!extracted.is_error, "{}", extracted.text);
    assert!(
        std::fs::read_to_string(ws.path().join(".git/config"))
            .unwrap()
            .contains("evil"),
        "the archive did not replace .git/config"
    );
    let after = exec("git diff");
    assert!(!after.text.contains(CANARY), "{}", after.text);
    assert!(!marker.exists(), "{}", after.text);
    assert!(!after.is_error, "{}", after.text);

    assert_plain_git_runs_it(ws.path(), &["diff"], &marker);
}

#[test]
fn relative_and_empty_path_entries_do_not_reach_the_command() {
    let ws = tempfile::tempdir().unwrap();
    let marker = ws.path().join("marker");
    // A program named like a common one, planted in the workspace.
    let planted = planted(&ws.path().join("planted"), &marker);
    for path in [
        ".:/usr/bin:/bin",
        "::/usr/bin:/bin",
        "/usr/bin:/bin:",
        "bin:/usr/bin:/bin",
    ] {
        if path.starts_with("bin") {
            std::fs::create_dir_all(ws.path().join("bin")).unwrap();
            std::fs::copy(&planted, ws.path().join("bin/planted")).unwrap();
        }
        let k = kernel(ws.path(), &[("PATH", path)]);
        // A program the command runs looks the bare name up in the PATH it was given.
        let r = k.run_as(&argv(&["sh", "-c", "planted"]), WRITES, None);
        assert_no_trace(&r, &marker);
        assert_eq!(r.exit_code, 127, "{path}: {r:?}");
        let r = k.run(&argv(&["env"]));
        let given = r
            .output
            .lines()
            .find_map(|l| l.strip_prefix("PATH="))
            .unwrap_or_default()
            .to_owned();
        assert_eq!(given, "/usr/bin:/bin", "{path}: {r:?}");
        // Control: the same PATH, given to a shell directly, runs the planted program.
        let out = Command::new("sh")
            .args(["-c", "planted"])
            .current_dir(ws.path())
            .env("PATH", path)
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(CANARY),
            "control {path}: {out:?}"
        );
        std::fs::remove_file(&marker).unwrap();
    }
}

/// A thousand nested repositories, the planted driver in the last: every git command works
/// (nothing is refused for their number), the driver stays inert, and plain git runs it.
fn assert_thousand_repositories_work(nesting: Nesting) {
    let ws = tempfile::tempdir().unwrap();
    many_repos(ws.path(), 1000, nesting);
    let last = nested_path(1000);
    let marker = ws.path().join("marker");
    let evil = payload(ws.path(), &marker);
    let config = match nesting {
        Nesting::Embedded => ws.path().join(&last).join(".git/config"),
        Nesting::Submodules => ws.path().join(".git/modules").join(&last).join("config"),
    };
    append(&config, &driver(&evil));
    std::fs::write(ws.path().join(&last).join("a.txt"), "changed\n").unwrap();

    let k = kernel(ws.path(), &[]);
    for args in [
        &["log", "-1", "--format=%s"][..],
        &["--version"],
        &["diff", "--submodule=diff", "--", &last],
        &["status", "--short", "--", &last],
    ] {
        let r = k.run_as(&argv(&[&["git"][..], args].concat()), WRITES, None);
        assert_no_trace(&r, &marker);
        assert_eq!(r.exit_code, 0, "git {args:?}: {r:?}");
    }
    let r = k.run_as(&argv(&["git", "log", "-1", "--format=%s"]), WRITES, None);
    assert_eq!(r.output, "nested repositories\n", "{r:?}");

    assert_plain_git_runs_it(
        ws.path(),
        &["diff", "--submodule=diff", "--", &last],
        &marker,
    );
}

#[test]
fn a_driver_in_the_thousandth_embedded_repository_is_neutralised() {
    assert_thousand_repositories_work(Nesting::Embedded);
}

#[test]
fn a_driver_in_the_thousandth_submodule_is_neutralised() {
    assert_thousand_repositories_work(Nesting::Submodules);
}
