//! What a call starts, and why it cannot start: argv checked as a process can receive it,
//! argv\[0\] resolved once to an absolute path (a bare name through the child's `PATH`, a path
//! form like `./x` against the kernel's cwd), and the exit code and message of a start that
//! fails (not found, not executable, no output pipe, the working directory gone or replaced).

use std::ffi::OsString;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::result::{EXIT_CANNOT_EXECUTE, EXIT_NOT_FOUND};
use super::settings::DEFAULT_PATH;

/// Each path resolved (symlinks followed) where it can be, as the sandbox compares them.
pub(super) fn canonical_all(paths: &[PathBuf]) -> Vec<PathBuf> {
    paths
        .iter()
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
        .collect()
}

/// Linux's limit on one argument, its NUL included (`MAX_ARG_STRLEN`, 32 pages of 4 KiB).
const MAX_ARG_LEN: usize = 128 * 1024;

/// The binary argv names (argv\[0\]), when every argument can reach a process: argv is not
/// empty, and no argument holds a NUL byte or is as long as Linux refuses.
pub(super) fn binary_name(argv: &[String]) -> Result<&str, (i32, String)> {
    let Some(name) = argv.first() else {
        return Err((
            EXIT_NOT_FOUND,
            "argv is empty; give at least the binary".to_owned(),
        ));
    };
    if let Some(i) = argv.iter().position(|a| a.contains('\0')) {
        return Err((
            EXIT_CANNOT_EXECUTE,
            format!("argument {i} contains a NUL byte, which no process can receive; remove it"),
        ));
    }
    // Linux refuses (E2BIG) any one argument of 128 KiB or more with its NUL.
    if let Some(i) = argv.iter().position(|a| a.len() >= MAX_ARG_LEN) {
        return Err((
            EXIT_CANNOT_EXECUTE,
            format!(
                "argument {i} is {} bytes; Linux takes at most 128 KiB (131,071 bytes) per argument: pass less, or the data through a file in the workspace",
                argv[i].len()
            ),
        ));
    }
    Ok(name)
}

/// The `PATH` binaries resolve in: the one commands get.
#[derive(Debug)]
pub(super) struct SearchPath {
    /// The child's `PATH`, split, absolute entries only.
    dirs: Vec<PathBuf>,
    /// The child's `PATH` as one string, for messages.
    text: String,
}

impl SearchPath {
    /// The `PATH` of the commands' environment `env` (its absolute entries only), or
    /// [`DEFAULT_PATH`] when it sets none.
    pub(super) fn of(env: &[(OsString, OsString)]) -> Self {
        let value = env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| DEFAULT_PATH.into());
        SearchPath {
            dirs: std::env::split_paths(&value).collect(),
            text: value.to_string_lossy().into_owned(),
        }
    }

    /// Resolves argv\[0\] to the absolute path to run (a path form against `cwd`).
    pub(super) fn resolve(&self, name: &str, cwd: &Path) -> Result<PathBuf, (i32, String)> {
        if name.is_empty() {
            return Err((
                EXIT_NOT_FOUND,
                "the binary name is empty; give a binary name or path".to_owned(),
            ));
        }
        if name.contains('/') {
            // `./x`, `bin/x`, `/bin/x`: against the kernel's cwd (absolute stays absolute).
            return Ok(cwd.join(name));
        }
        for dir in &self.dirs {
            let candidate = dir.join(name);
            if is_executable_file(&candidate) {
                return Ok(candidate);
            }
        }
        Err((
            EXIT_NOT_FOUND,
            format!("`{name}`: command not found in PATH {}", self.text),
        ))
    }
}

/// A regular file with an execute bit, as a shell's PATH search wants.
fn is_executable_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Why commands cannot run in the working directory `cwd` any more when the folder at its
/// path is not the one the kernel was built on, whose device and inode were `built`
/// (deleted and recreated, or moved away and replaced): the sandbox's rules hold the old
/// folder, so a confined command would fail on its own files with "Permission denied". One
/// `stat`.
pub(super) fn cwd_replaced(cwd: &Path, built: (u64, u64)) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let now = std::fs::metadata(cwd).ok()?;
    if (now.dev(), now.ino()) == built {
        return None;
    }
    Some(format!(
        "the working directory {} was deleted and recreated (or replaced) since this kernel was built; the sandbox's rules hold the old folder, so nothing runs: build a new kernel on it (restart nanotool)",
        cwd.display()
    ))
}

/// The message of a start that failed with `message`: a spawn that fails because the
/// workspace `cwd` went away says so, not "not found".
pub(super) fn start_failure(cwd: &Path, message: String) -> String {
    if cwd.is_dir() {
        message
    } else {
        format!(
            "the working directory {} is gone (renamed or removed while the kernel runs); build a new kernel on its new path ({message})",
            cwd.display()
        )
    }
}

/// The exit code and message when the output pipe cannot be made.
pub(super) fn pipe_error(name: &str, e: io::Error) -> (i32, String) {
    (
        EXIT_CANNOT_EXECUTE,
        format!("`{name}`: cannot create the output pipe: {e}"),
    )
}

/// The exit code and message of a failed spawn.
pub(super) fn spawn_error(name: &str, program: &Path, e: &io::Error) -> (i32, String) {
    let (code, what) = if e.kind() == io::ErrorKind::NotFound {
        (EXIT_NOT_FOUND, "not found")
    } else {
        (EXIT_CANNOT_EXECUTE, "cannot be executed")
    };
    (
        code,
        format!("`{name}` ({}) {what}: {e}", program.display()),
    )
}
