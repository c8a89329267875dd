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

/// How [`many_repos`] records its repositories in the superproject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nesting {
    /// Repositories inside the superproject's folder, each with its own `.git` folder,
    /// recorded as gitlinks without `.gitmodules` (git still opens them for `status` and
    /// `diff --submodule`).
    Embedded,
    /// Submodules as `git submodule add` leaves them: a `.gitmodules` entry, the git
    /// directory under `.git/modules/`, a `.git` file in the submodule's folder.
    Submodules,
}

/// The folder of the `i`-th repository (from 1) that [`many_repos`] makes.
pub fn nested_path(i: usize) -> String {
    format!("r{i:04}")
}

/// Copies the folder `from` to `to`, recursively (files and folders only).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("make the copy's folder");
    for entry in std::fs::read_dir(from).expect("read the folder to copy") {
        let entry = entry.expect("a folder entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("its type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a file");
        }
    }
}

/// A superproject in `ws` recording `n` repositories ([`nested_path`]) as `nesting` says,
/// each a copy of one repository whose commit holds `a.txt` routed through the diff driver
/// `evil` by `.gitattributes`. Made by copying and one `git update-index --index-info`, so
/// a thousand take seconds, not minutes.
pub fn many_repos(ws: &Path, n: usize, nesting: Nesting) {
    let template = ws.join(".template");
    std::fs::create_dir(&template).expect("make the template's folder");
    init_repo(
        &template,
        &[("a.txt", "a\n"), (".gitattributes", "a.txt diff=evil\n")],
        "a",
    );
    let head = git(&template, &["rev-parse", "HEAD"]).trim().to_owned();
    git(ws, &["init", "-q", "."]);
    let mut index_info = String::new();
    let mut gitmodules = String::new();
    for i in 1..=n {
        let path = nested_path(i);
        let tree = ws.join(&path);
        match nesting {
            Nesting::Embedded => copy_tree(&template, &tree),
            Nesting::Submodules => {
                let modules = ws.join(".git/modules").join(&path);
                copy_tree(&template.join(".git"), &modules);
                let mut config =
                    std::fs::read_to_string(modules.join("config")).expect("the copy's config");
                config.push_str(&format!("[core]\n\tworktree = ../../../{path}\n"));
                std::fs::write(modules.join("config"), config).expect("write its config");
                std::fs::create_dir_all(&tree).expect("make the submodule's folder");
                for file in ["a.txt", ".gitattributes"] {
                    std::fs::copy(template.join(file), tree.join(file)).expect("check out");
                }
                std::fs::write(
                    tree.join(".git"),
                    format!("gitdir: ../.git/modules/{path}\n"),
                )
                .expect("write the .git file");
                gitmodules.push_str(&format!(
                    "[submodule \"{path}\"]\n\tpath = {path}\n\turl = ./{path}\n"
                ));
            }
        }
        index_info.push_str(&format!("160000 {head}\t{path}\n"));
    }
    std::fs::remove_dir_all(&template).expect("remove the template");
    if nesting == Nesting::Submodules {
        std::fs::write(ws.join(".gitmodules"), gitmodules).expect("write .gitmodules");
        git(ws, &["add", ".gitmodules"]);
    }
    let mut update = Command::new("git")
        .args(["update-index", "--add", "--index-info"])
        .current_dir(ws)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("git update-index runs");
    {
        use std::io::Write;
        let mut stdin = update.stdin.take().expect("its stdin");
        stdin
            .write_all(index_info.as_bytes())
            .expect("write the gitlinks");
    }
    assert!(update.wait().expect("git update-index ends").success());
    commit(ws, "nested repositories");
}
