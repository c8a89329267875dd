//! Git fixtures for the tests (and the git benchmark) that build repositories: plain git as a
//! developer runs it, without the machine's or the user's configuration, and a repository
//! with its first commit.

use std::path::Path;
use std::process::{Command, Output};

/// `git -c protocol.file.allow=always`: a submodule from a local path.
pub const FILE_OK: [&str; 2] = ["-c", "protocol.file.allow=always"];

/// Plain git in `dir` as a developer runs it: no system or global configuration, no `GIT_DIR`
/// inherited from whatever started the test.
pub fn plain_git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .output()
        .expect("git runs")
}

/// [`plain_git`], which must succeed; what it printed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = plain_git(dir, args);
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A commit of what is staged, by a fixed author.
pub fn commit(dir: &Path, message: &str) {
    git(
        dir,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            message,
        ],
    );
}

/// A repository in `dir` whose one commit, `message`, holds `files` (path, text; folders are
/// made as needed).
pub fn init_repo(dir: &Path, files: &[(&str, &str)], message: &str) {
    git(dir, &["init", "-q", "."]);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a file in the repository"))
            .expect("make the file's folder");
        std::fs::write(path, text).expect("write the file");
    }
    let paths: Vec<&str> = files.iter().map(|(path, _)| *path).collect();
    git(dir, &[&["add", "--"][..], &paths].concat());
    commit(dir, message);
}
