//! A workspace's own configuration must not make a plain read-only tool run a program: a
//! planted `json.py` beside `python3 -m json.tool`, a repository whose `.git/config` names
//! programs (fsmonitor, pager, hooks, textconv and external diff drivers, filters, gpg,
//! aliases, remote upload-pack) or whose hooks are planted. The bundled descriptors run as
//! they are; plain git output is unchanged.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::git::git;
use crate::common::{PLANTED_RAN as RAN, kernel, script, settings};
use nanotool_runtime::{CommandExecKernel, KernelSettings, SandboxMode, Toolbox};
use serde_json::json;

/// The environment alone, unconfined: `escapes` covers the sandbox, the other line of
/// defence against the same planted programs.
const UNCONFINED: SandboxMode = SandboxMode::Off;

fn bundled(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/tools")
        .join(format!("{name}.tool.json"))
}

/// A toolbox over `cwd` with the bundled descriptors `names`.
fn toolbox(cwd: &Path, names: &[&str]) -> (Toolbox, tempfile::TempDir) {
    let work = tempfile::tempdir().unwrap();
    for name in names {
        std::fs::copy(bundled(name), work.path().join(format!("{name}.tool.json"))).unwrap();
    }
    let mut toolbox = Toolbox::new(kernel(cwd, UNCONFINED));
    let errors = toolbox.load_descriptors(work.path());
    assert!(errors.is_empty(), "{errors:?}");
    (toolbox, work)
}

/// A script in `dir` that prints RAN and leaves `marker`; returns its path.
fn planted_program(dir: &Path, marker: &Path) -> PathBuf {
    script(
        &dir.join("planted.sh"),
        &format!(
            "#!/bin/sh\necho {RAN} \"$@\"\necho ran >> '{}'\ncat \"$2\" 2>/dev/null\nexit 0\n",
            marker.display()
        ),
    )
}

/// Control: `command`, run without the kernel, runs the planted program `what`, which leaves
/// `marker` (removed here): the attack is real.
fn assert_runs_without_the_kernel(mut command: Command, marker: &Path, what: &str) {
    command.output().unwrap();
    assert!(marker.exists(), "{what} did not run without the kernel");
    std::fs::remove_file(marker).unwrap();
}

/// A repository with two commits and a change in the working tree.
fn plain_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["config", "user.email", "a@example.invalid"]);
    git(d, &["config", "user.name", "A"]);
    std::fs::write(d.join("a.txt"), "one\n").unwrap();
    std::fs::write(d.join("b.bin"), "two\n").unwrap();
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "first"]);
    std::fs::write(d.join("a.txt"), "one\nmore\n").unwrap();
    std::fs::write(d.join("b.bin"), "two\nmore\n").unwrap();
    git(d, &["commit", "-q", "-am", "second"]);
    std::fs::write(d.join("a.txt"), "one\nmore\nagain\n").unwrap();
    std::fs::write(d.join("b.bin"), "two\nmore\nagain\n").unwrap();
    dir
}

/// Adds a commit carrying a (bogus) signature on top of HEAD: `log.showSignature` then
/// runs `gpg.program` to check it.
fn add_signed_commit(repo: &Path) {
    let tree = git(repo, &["rev-parse", "HEAD^{tree}"]);
    let parent = git(repo, &["rev-parse", "HEAD"]);
    let body = format!(
        "tree {}\nparent {}\nauthor A <a@example.invalid> 1700000000 +0000\n\
         committer A <a@example.invalid> 1700000000 +0000\n\
         gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n",
        tree.trim(),
        parent.trim()
    );
    let object = repo.join("commit.txt");
    std::fs::write(&object, body).unwrap();
    let id = git(repo, &["hash-object", "-t", "commit", "-w", "commit.txt"]);
    std::fs::remove_file(&object).unwrap();
    git(repo, &["update-ref", "refs/heads/main", id.trim()]);
}

/// Plants programs in every place of `repo`'s configuration that names one.
fn plant_git_config(repo: &Path, program: &Path) {
    let p = program.display();
    let planted = format!(
        "[core]\n\tfsmonitor = {p} fsmonitor\n\tpager = {p} pager\n\thooksPath = hooks-elsewhere\n\
         \tsshCommand = {p} ssh\n\talternateRefsCommand = {p} alt\n\
         [log]\n\tshowSignature = true\n[gpg]\n\tprogram = {p}\n\
         [diff]\n\texternal = {p} external\n\
         [diff \"drv\"]\n\ttextconv = {p} textconv\n\tcommand = {p} command\n\
         [filter \"flt\"]\n\tclean = {p} clean\n\tsmudge = {p} smudge\n\
         [alias]\n\tlg = !{p} alias\n\
         [include]\n\tpath = ../included.cfg\n"
    );
    let config = repo.join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&planted);
    std::fs::write(&config, text).unwrap();
    // A driver defined only in an included file.
    std::fs::write(
        repo.join("included.cfg"),
        format!("[diff \"inc\"]\n\ttextconv = {p} included\n"),
    )
    .unwrap();
    std::fs::write(
        repo.join(".gitattributes"),
        "a.txt diff=drv filter=flt\nb.bin diff=inc\n",
    )
    .unwrap();
    // Hooks where git looks by default and where the planted hooksPath points.
    for dir in [".git/hooks", "hooks-elsewhere"] {
        std::fs::create_dir_all(repo.join(dir)).unwrap();
        for hook in [
            "pre-commit",
            "post-commit",
            "reference-transaction",
            "post-index-change",
        ] {
            let path = repo.join(dir).join(hook);
            std::fs::copy(program, &path).unwrap();
        }
    }
}

#[test]
fn a_planted_git_config_and_hooks_do_not_run_through_git_log() {
    let repo = plain_repo();
    let outside = tempfile::tempdir().unwrap();
    let marker = repo.path().join("marker");
    let program = planted_program(outside.path(), &marker);
    add_signed_commit(repo.path());
    plant_git_config(repo.path(), &program);
    // Without the kernel, the planted configuration runs (the attack is real).
    let mut git_log = Command::new("git");
    git_log
        .args(["log", "--oneline", "-n", "5"])
        .current_dir(repo.path())
        .env("GIT_CONFIG_NOSYSTEM", "1");
    assert_runs_without_the_kernel(git_log, &marker, "the planted configuration");

    let (toolbox, _work) = toolbox(repo.path(), &["git_log"]);
    let out = toolbox.call("git_log", &json!({"count": 5}), None).unwrap();
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("signed"), "{}", out.text);
    assert!(out.text.contains("second"), "{}", out.text);
    assert!(!out.text.contains(RAN), "{}", out.text);
    assert!(!marker.exists(), "a planted program ran through git_log");
}

#[test]
fn a_planted_git_config_and_hooks_do_not_run_through_the_kernel() {
    let repo = plain_repo();
    let outside = tempfile::tempdir().unwrap();
    let marker = repo.path().join("marker");
    let program = planted_program(outside.path(), &marker);
    add_signed_commit(repo.path());
    plant_git_config(repo.path(), &program);
    let kernel = kernel(repo.path(), UNCONFINED);
    for args in [
        &["git", "log", "-p", "-n", "2"][..],
        &["git", "log", "--show-signature", "-n", "1"],
        &["git", "status"],
        &["git", "diff"],
        &["git", "diff", "HEAD~1"],
        &["git", "show", "HEAD"],
        &["git", "lg"],
        &["git", "add", "a.txt"],
        &["git", "commit", "-q", "-m", "third"],
        &["git", "fetch", "ext::sh -c touch% marker"],
    ] {
        let argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let r = kernel.run(&argv);
        assert!(!r.output.contains(RAN), "{args:?}: {}", r.output);
        assert!(!marker.exists(), "a planted program ran through {args:?}");
    }
}

#[test]
fn plain_git_output_is_unchanged() {
    let repo = plain_repo();
    let kernel = kernel(repo.path(), UNCONFINED);
    for args in [
        &["log"][..],
        &["log", "--oneline", "-n", "5"],
        &["log", "-p", "--stat"],
        &["status"],
        &["status", "--short"],
        &["show", "HEAD"],
        &["show", "HEAD~1:a.txt"],
        &["diff"],
        &["diff", "HEAD~1", "--stat"],
    ] {
        let direct = git(repo.path(), args);
        let argv: Vec<String> = std::iter::once("git")
            .chain(args.iter().copied())
            .map(str::to_owned)
            .collect();
        let r = CommandExecKernel::new(KernelSettings {
            max_output: 1 << 20,
            ..settings(repo.path(), UNCONFINED)
        })
        .unwrap()
        .run(&argv);
        assert_eq!(r.exit_code, 0, "{args:?}: {}", r.output);
        assert_eq!(r.output, direct, "git {args:?}");
        let _ = &kernel;
    }
}

#[test]
fn a_planted_json_py_does_not_run_through_json_pretty() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker");
    std::fs::write(
        dir.path().join("json.py"),
        format!(
            "print('{RAN}')\nopen({:?}, 'w').write('ran')\n",
            marker.display().to_string()
        ),
    )
    .unwrap();
    std::fs::write(dir.path().join("data.json"), r#"{"a": [1, 2]}"#).unwrap();
    // Without the kernel's environment, the planted module runs (the attack is real).
    let mut json_tool = Command::new("python3");
    json_tool
        .args(["-m", "json.tool", "data.json"])
        .current_dir(dir.path())
        .env_remove("PYTHONSAFEPATH")
        // The control writes no bytecode of its own into the workspace: what the check at
        // the end finds is the confined call's.
        .env("PYTHONDONTWRITEBYTECODE", "1");
    assert_runs_without_the_kernel(json_tool, &marker, "the planted json.py");

    let (toolbox, _work) = toolbox(dir.path(), &["json_pretty"]);
    let out = toolbox
        .call("json_pretty", &json!({"file": "data.json"}), None)
        .unwrap();
    assert!(!out.text.contains(RAN), "{}", out.text);
    assert!(!marker.exists(), "the planted json.py ran");
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("\"a\": ["), "{}", out.text);
    // And no bytecode was written into the workspace.
    assert!(!dir.path().join("__pycache__").exists());
}
