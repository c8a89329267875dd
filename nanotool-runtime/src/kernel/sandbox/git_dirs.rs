//! The git directories a workspace's repository keeps outside the workspace (an enclosing
//! repository's `.git`, a linked worktree's or a submodule's), which confined commands may read
//! so that git works in the workspace; believed only in the shapes git itself makes them.

use std::path::{Path, PathBuf};

/// The git directories the workspace's repository keeps outside the workspace, so that git
/// keeps working in a workspace that is a subfolder of a larger repository (`.git` in an
/// ancestor), a linked worktree or a submodule (a `.git` file pointing elsewhere). Only the
/// repository's own data becomes readable, never the files of its work tree outside the
/// workspace.
///
/// A `.git` file is the workspace's to write (a `writes` tool, an unpacked archive), so what it
/// points at is believed only in the two shapes git itself makes ([`pointed_git_dirs`]).
pub(super) fn enclosing_git_dirs(workspace: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut dir = Some(workspace);
    while let Some(d) = dir {
        let dot_git = d.join(".git");
        if dot_git.is_dir() {
            if d != workspace {
                dirs.extend(dot_git.canonicalize().ok());
            }
            break;
        }
        if dot_git.is_file() {
            dirs.extend(pointed_git_dirs(d, &dot_git));
            break;
        }
        dir = d.parent();
    }
    dirs.retain(|d| !d.starts_with(workspace));
    dirs
}

/// What the `.git` file of the work tree `tree` (`gitdir: <path>`) points at, if it has the
/// shape git gives it: a linked worktree's administrative dir `<common>/worktrees/<id>`,
/// whose own `gitdir` file points back at this `.git` file (compared without following the
/// workspace's symlinks, which its writer controls), with `<common>` a git directory; or a
/// submodule's git directory under the `modules/` of the git directory of a folder that
/// holds `tree` (a `.git` directory, or a `.git` file believed by these same rules: a
/// submodule of a linked worktree). Anything else (a directory dressed up as a git
/// directory, a real repository elsewhere, a forged `commondir`, a `--separate-git-dir`
/// repository, which nothing links back) opens nothing; the first element is the git
/// directory itself.
fn pointed_git_dirs(tree: &Path, dot_git: &Path) -> Vec<PathBuf> {
    let Some(gitdir) = std::fs::read_to_string(dot_git)
        .ok()
        .and_then(|text| Some(tree.join(text.strip_prefix("gitdir:")?.trim())))
        .and_then(|p| p.canonicalize().ok())
        .filter(|p| looks_like_git_dir(p))
    else {
        return Vec::new();
    };
    let tree = tree.canonicalize().unwrap_or_else(|_| tree.to_path_buf());
    if gitdir.join("commondir").is_file() {
        // A linked worktree: <common>/worktrees/<id>, pointing back at this .git file. git
        // writes the back pointer from real paths, absolute or relative to the admin dir.
        let common = std::fs::read_to_string(gitdir.join("commondir"))
            .ok()
            .and_then(|c| gitdir.join(c.trim()).canonicalize().ok());
        let back = std::fs::read_to_string(gitdir.join("gitdir"))
            .ok()
            .map(|b| normalized(&gitdir.join(b.trim())));
        return match common {
            Some(common)
                if gitdir.parent() == Some(common.join("worktrees").as_path())
                    && looks_like_git_dir(&common)
                    && back.as_deref() == Some(tree.join(".git").as_path()) =>
            {
                vec![gitdir, common]
            }
            _ => Vec::new(),
        };
    }
    // A submodule: under the modules/ of an enclosing folder's git directory.
    let absorbed = tree.ancestors().skip(1).any(|folder| {
        let dot_git = folder.join(".git");
        let enclosing = if dot_git.is_dir() {
            dot_git.canonicalize().ok()
        } else if dot_git.is_file() {
            pointed_git_dirs(folder, &dot_git).into_iter().next()
        } else {
            None
        };
        enclosing.is_some_and(|g| gitdir.starts_with(g.join("modules")))
    });
    if absorbed { vec![gitdir] } else { Vec::new() }
}

/// `path` with `.` and `..` resolved by its text alone, following no symlink.
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Whether `dir` has what every git directory has: `HEAD`, and `objects` and `refs` (its own,
/// or, for a linked worktree, its common dir's, named by `commondir`).
fn looks_like_git_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file()
        && (dir.join("commondir").is_file()
            || (dir.join("objects").is_dir() && dir.join("refs").is_dir()))
}
