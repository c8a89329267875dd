//! Reading the git configuration of every repository git may open from the workspace, for the
//! names whose program keys the environment must neutralise, and noticing when it changes.
//!
//! Which repositories: the one git discovers from the working directory (`.git` as a folder
//! or a `gitdir:` file, its common dir, `config` and `config.worktree`, and every file they
//! include), then, recursively, every repository git opens for a submodule: each gitlink of
//! its index whose `<path>/.git` exists (a submodule or a repository merely recorded inside
//! another, with or without `.gitmodules`) and every git directory under its `modules/`. A
//! workspace that is itself a bare repository is read too (git older than 2.38 opens it;
//! newer git is told not to: `safe.bareRepository=explicit`).
//!
//! The reader parses configuration as git does (`config.c`: a comment ends at its line's end,
//! a value continues only after a backslash, escapes other than `\t \b \n \\ \"` are errors),
//! and it fails closed: a file it cannot read whole, past a limit, or cannot parse as git
//! would is an error ([`GitConfigError`]) that refuses git in the workspace rather than
//! running it with half the names neutralised. git itself dies on most of these (a bad line,
//! an include 10 levels deep, an unreadable include), so a repository git accepts is refused
//! only past the limits of size and count.
//!
//! What is read is remembered with the status of every path consulted (present or not, so a
//! `.git` or an include that appears later counts): [`Scan::is_current`] compares them again,
//! and a change means a new scan.

mod cache;
mod config;
mod index;

use std::collections::HashSet;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use thiserror::Error;

pub(super) use cache::{CacheDir, Names};
use cache::{Stamp, stamp, stamp_of};
use config::{parse_config, split_var};
use index::parse_index;

/// Bytes of one configuration file read.
pub(crate) const MAX_CONFIG_BYTES: u64 = 1024 * 1024;
/// Configuration files read for one repository, includes counted.
pub(crate) const MAX_CONFIG_FILES: usize = 16;
/// Levels of includes (git's own `MAX_INCLUDE_DEPTH`: git dies past it).
pub(crate) const MAX_INCLUDE_DEPTH: usize = 10;
/// Repositories read: the workspace's, its submodules and repositories recorded inside it.
/// Far beyond real monorepos (the largest public ones record a few thousand submodules): it
/// bounds the work of one reading, it does not mark a danger.
pub(crate) const MAX_REPOSITORIES: usize = 1 << 16;
/// Folders visited under the `modules/` folders of all repositories.
pub(crate) const MAX_MODULE_DIRS: usize = 1 << 18;
/// Bytes of one index file read (for its gitlinks): 16 GiB, some hundred million tracked
/// files. The index is read as a stream, never held whole.
pub(crate) const MAX_INDEX_BYTES: u64 = 16 << 30;

/// The limits of one reading: the constants above (tests lower them).
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// [`MAX_REPOSITORIES`].
    pub repositories: usize,
    /// [`MAX_MODULE_DIRS`].
    pub module_dirs: usize,
    /// [`MAX_INDEX_BYTES`].
    pub index_bytes: u64,
}

impl Limits {
    /// The limits nanotool runs with.
    pub(super) const DEFAULT: Limits = Limits {
        repositories: MAX_REPOSITORIES,
        module_dirs: MAX_MODULE_DIRS,
        index_bytes: MAX_INDEX_BYTES,
    };
}

/// Why git is refused in a workspace: a configuration nanotool could not read whole, so the
/// programs it names could not all be neutralised.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GitConfigError {
    /// A configuration file is larger than `MAX_CONFIG_BYTES`, or an index larger than
    /// `MAX_INDEX_BYTES`.
    #[error(
        "git is refused in this workspace: `{}` is over {} MiB, the most nanotool reads of such a file to neutralise the programs a configuration names; make it smaller",
        path.display(), limit / (1024 * 1024)
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit in bytes.
        limit: u64,
    },
    /// A repository's configuration spans more than `MAX_CONFIG_FILES` files.
    #[error(
        "git is refused in this workspace: `{}` is past the {limit} configuration files (includes counted) nanotool reads for one repository to neutralise the programs a configuration names; include fewer files",
        path.display()
    )]
    TooManyFiles {
        /// The first file past the limit.
        path: PathBuf,
        /// The limit.
        limit: usize,
    },
    /// Includes nest deeper than git's own limit.
    #[error(
        "git is refused in this workspace: `{}` is included more than {limit} levels deep, git's own limit",
        path.display()
    )]
    TooDeep {
        /// The file past the limit.
        path: PathBuf,
        /// The limit.
        limit: usize,
    },
    /// More repositories (submodules, embedded repositories) than `MAX_REPOSITORIES`, or
    /// more folders under `modules/` than `MAX_MODULE_DIRS`.
    #[error(
        "git is refused in this workspace: at `{}`, more {what} than the {limit} nanotool reads to neutralise the programs their configurations name (nanotool's limit, not git's: it bounds the work of one reading)",
        path.display()
    )]
    TooMany {
        /// Where the limit was reached.
        path: PathBuf,
        /// What was counted.
        what: &'static str,
        /// The limit.
        limit: usize,
    },
    /// A file git would read cannot be read (or is not a regular file: a FIFO would block).
    #[error(
        "git is refused in this workspace: `{}` cannot be read ({reason}), so the programs its configuration names cannot be neutralised; remove it or make it a readable file",
        path.display()
    )]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A file that does not parse as git parses it.
    #[error(
        "git is refused in this workspace: `{}` {reason}; nanotool reads it as git does and cannot neutralise what it cannot read (git refuses most such files too)",
        path.display()
    )]
    Unparsed {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line.
        reason: String,
    },
}

/// One reading of the workspace's repositories: the names found (or why git is refused),
/// and what was consulted.
#[derive(Debug)]
pub(super) struct Scan {
    /// The names found (all of them when `refused` is `None`).
    pub names: Names,
    /// Why git is refused, when the configuration could not be read whole.
    pub refused: Option<GitConfigError>,
    /// Every path consulted and its status then.
    seen: Vec<(PathBuf, Option<Stamp>)>,
    /// A path consulted had changed less than [`cache::RACY_SECS`] before the reading began:
    /// a change within the same tick of the file system's clock would leave its status as it
    /// was, so the reading is not trusted past this call (read again, never kept on disk).
    racy: bool,
    /// The reading was kept by an earlier process ([`Scan::cached`]).
    #[cfg_attr(not(test), allow(dead_code))]
    pub from_cache: bool,
}

impl Scan {
    /// Reads the repository around `cwd` (or the git dir `git_dir`, as `GIT_DIR` names it)
    /// and every repository git may open from it; `home` expands `~/` in include paths.
    pub(super) fn new(cwd: &Path, home: Option<&Path>, git_dir: Option<&Path>) -> Scan {
        Scan::with_limits(cwd, home, git_dir, Limits::DEFAULT)
    }

    /// [`Self::new`] within `limits`.
    pub(super) fn with_limits(
        cwd: &Path,
        home: Option<&Path>,
        git_dir: Option<&Path>,
        limits: Limits,
    ) -> Scan {
        let started = now_secs() - cache::RACY_SECS;
        let mut scanner = Scanner {
            home,
            limits,
            seen: Vec::new(),
            noted: HashSet::new(),
            names: Names::default(),
            repos: HashSet::new(),
            module_dirs: 0,
        };
        let refused = scanner.discover(cwd, git_dir).err();
        let racy = scanner
            .seen
            .iter()
            .any(|(_, s)| s.is_some_and(|s| s.changed_since(started)));
        Scan {
            names: scanner.names,
            refused,
            seen: scanner.seen,
            racy,
            from_cache: false,
        }
    }

    /// The reading kept in `cache` for this workspace when every path it consulted is as it
    /// was, else a new reading (kept there when it may be: neither refused nor racy).
    pub(super) fn cached(
        cwd: &Path,
        home: Option<&Path>,
        git_dir: Option<&Path>,
        cache: Option<&CacheDir>,
    ) -> Scan {
        let Some(cache) = cache else {
            return Scan::new(cwd, home, git_dir);
        };
        let key = cache::Key { cwd, home, git_dir };
        if let Some(saved) = cache.load(&key) {
            let scan = Scan {
                names: saved.names,
                refused: None,
                seen: saved.seen,
                racy: false,
                from_cache: true,
            };
            if scan.is_current() {
                return scan;
            }
        }
        let scan = Scan::new(cwd, home, git_dir);
        scan.keep(cwd, home, git_dir, Some(cache));
        scan
    }

    /// Keeps this reading in `cache` for the next processes, unless it was refused or racy.
    pub(super) fn keep(
        &self,
        cwd: &Path,
        home: Option<&Path>,
        git_dir: Option<&Path>,
        cache: Option<&CacheDir>,
    ) {
        if let Some(cache) = cache
            && self.refused.is_none()
            && !self.racy
        {
            cache.store(&cache::Key { cwd, home, git_dir }, &self.names, &self.seen);
        }
    }

    /// Whether every path consulted is as it was (a `stat` of each), and the reading was
    /// not racy.
    pub(super) fn is_current(&self) -> bool {
        !self.racy && self.seen.iter().all(|(path, was)| stamp(path) == *was)
    }
}

/// Seconds since the epoch, as the file system's clock counts them.
fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// What one repository's configuration says beyond names.
#[derive(Default)]
struct RepoConfig {
    files: usize,
    sha256: bool,
    /// `core.worktree` values.
    worktrees: Vec<Vec<u8>>,
}

struct Scanner<'a> {
    home: Option<&'a Path>,
    limits: Limits,
    seen: Vec<(PathBuf, Option<Stamp>)>,
    noted: HashSet<PathBuf>,
    names: Names,
    repos: HashSet<PathBuf>,
    module_dirs: usize,
}

type Found = Result<(), GitConfigError>;

impl Scanner<'_> {
    /// Looks at `path` (following symbolic links, as git does) and remembers its status.
    fn note(&mut self, path: &Path) -> Option<std::fs::Metadata> {
        self.look(path).ok()
    }

    /// [`Self::note`], with the error.
    fn look(&mut self, path: &Path) -> std::io::Result<std::fs::Metadata> {
        let meta = std::fs::metadata(path);
        // Each path once: the check before every call stats what is listed here.
        if self.noted.insert(path.to_path_buf()) {
            self.seen
                .push((path.to_path_buf(), meta.as_ref().ok().map(stamp_of)));
        }
        meta
    }

    fn discover(&mut self, cwd: &Path, git_dir: Option<&Path>) -> Found {
        if let Some(dir) = git_dir {
            return self.repo(&cwd.join(dir), vec![cwd.to_path_buf()]);
        }
        for dir in cwd.ancestors() {
            let dot_git = dir.join(".git");
            match self.note(&dot_git) {
                Some(m) if m.is_dir() => return self.repo(&dot_git, vec![dir.to_path_buf()]),
                Some(m) if m.is_file() => {
                    return match self.gitfile(&dot_git)? {
                        Some(target) => self.repo(&target, vec![dir.to_path_buf()]),
                        None => Ok(()),
                    };
                }
                _ => {}
            }
            // A folder that is itself a git directory (a bare repository): git older than
            // 2.38 ignores `safe.bareRepository` and opens it, so it is read too.
            if self.note(&dir.join("HEAD")).is_some_and(|m| m.is_file())
                && dir.join("objects").is_dir()
            {
                return self.repo(dir, Vec::new());
            }
        }
        Ok(())
    }

    /// The git dir a `.git` file names (`gitdir: <path>`, relative to its folder); `None`
    /// when it names none (git refuses such a file).
    fn gitfile(&mut self, path: &Path) -> Result<Option<PathBuf>, GitConfigError> {
        let Some(text) = self.read(path, MAX_CONFIG_BYTES)? else {
            return Ok(None);
        };
        let Some(rest) = text.strip_prefix(b"gitdir: ") else {
            return Ok(None);
        };
        let mut end = rest.len();
        while end > 0 && matches!(rest[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        let target = Path::new(std::ffi::OsStr::from_bytes(&rest[..end]));
        Ok(Some(path.parent().unwrap_or(Path::new("/")).join(target)))
    }

    /// Opens a regular file of at most `limit` bytes (`None` when it does not exist or is a
    /// folder); past `limit` bytes, or anything but a regular file, is an error.
    fn open(&mut self, path: &Path, limit: u64) -> Result<Option<std::fs::File>, GitConfigError> {
        let unreadable = |reason: String| GitConfigError::Unreadable {
            path: path.to_path_buf(),
            reason,
        };
        let meta = match self.look(path) {
            Ok(meta) => meta,
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR)) => {
                return Ok(None);
            }
            Err(e) => return Err(unreadable(e.to_string())),
        };
        if meta.is_dir() {
            return Ok(None);
        }
        if !meta.is_file() {
            return Err(unreadable("it is not a regular file".into()));
        }
        let too_large = || GitConfigError::TooLarge {
            path: path.to_path_buf(),
            limit,
        };
        if meta.len() > limit {
            return Err(too_large());
        }
        // Non-blocking, in case a FIFO took the file's place since it was looked at.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| unreadable(e.to_string()))?;
        match file.metadata() {
            Ok(m) if m.is_file() && m.len() <= limit => Ok(Some(file)),
            Ok(m) if m.is_file() => Err(too_large()),
            _ => Err(unreadable("it is not a regular file".into())),
        }
    }

    /// Reads a regular file whole (`None` when it does not exist; a folder reads empty, as
    /// git reads it); past `limit` bytes, or anything but a regular file, is an error.
    fn read(&mut self, path: &Path, limit: u64) -> Result<Option<Vec<u8>>, GitConfigError> {
        if self.note(path).is_some_and(|m| m.is_dir()) {
            return Ok(Some(Vec::new()));
        }
        let Some(file) = self.open(path, limit)? else {
            return Ok(None);
        };
        let mut bytes = Vec::new();
        file.take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| GitConfigError::Unreadable {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })?;
        if bytes.len() as u64 > limit {
            return Err(GitConfigError::TooLarge {
                path: path.to_path_buf(),
                limit,
            });
        }
        Ok(Some(bytes))
    }

    /// One repository: its configuration, then the repositories git opens for its
    /// submodules. `worktrees` are the folders its gitlinks' paths start from.
    fn repo(&mut self, git_dir: &Path, mut worktrees: Vec<PathBuf>) -> Found {
        if self.note(git_dir).is_none_or(|m| !m.is_dir()) {
            return Ok(());
        }
        let key = git_dir
            .canonicalize()
            .unwrap_or_else(|_| git_dir.to_path_buf());
        if !self.repos.insert(key) {
            return Ok(());
        }
        if self.repos.len() > self.limits.repositories {
            return Err(GitConfigError::TooMany {
                path: git_dir.to_path_buf(),
                what: "repositories (submodules and repositories inside others counted)",
                limit: self.limits.repositories,
            });
        }
        let mut dirs = vec![git_dir.to_path_buf()];
        // A linked worktree's (or a submodule's) folder names the common one.
        if let Some(common) = self.read(&git_dir.join("commondir"), MAX_CONFIG_BYTES)? {
            let common = common.trim_ascii_end();
            dirs.push(git_dir.join(std::ffi::OsStr::from_bytes(common)));
        }
        let mut config = RepoConfig::default();
        for dir in &dirs {
            for file in ["config", "config.worktree"] {
                self.config_file(&dir.join(file), &mut config, 0)?;
            }
        }
        for tree in &config.worktrees {
            worktrees.push(git_dir.join(std::ffi::OsStr::from_bytes(tree)));
        }
        let hash_len = if config.sha256 { 32 } else { 20 };
        for link in self.gitlinks(&git_dir.join("index"), hash_len, git_dir)? {
            let link = Path::new(std::ffi::OsStr::from_bytes(&link)).to_path_buf();
            for tree in worktrees.clone() {
                let path = tree.join(&link);
                let dot_git = path.join(".git");
                match self.note(&dot_git) {
                    Some(m) if m.is_dir() => self.repo(&dot_git, vec![path])?,
                    Some(m) if m.is_file() => {
                        if let Some(target) = self.gitfile(&dot_git)? {
                            self.repo(&target, vec![path])?;
                        }
                    }
                    _ => {}
                }
            }
        }
        for dir in &dirs {
            self.modules(&dir.join("modules"))?;
        }
        Ok(())
    }

    /// Every git directory under a `modules/` folder (a submodule's name may hold `/`).
    fn modules(&mut self, dir: &Path) -> Found {
        if self.note(dir).is_none_or(|m| !m.is_dir()) {
            return Ok(());
        }
        self.module_dirs += 1;
        if self.module_dirs > self.limits.module_dirs {
            return Err(GitConfigError::TooMany {
                path: dir.to_path_buf(),
                what: "folders under `modules/`",
                limit: self.limits.module_dirs,
            });
        }
        let entries = std::fs::read_dir(dir).map_err(|e| GitConfigError::Unreadable {
            path: dir.to_path_buf(),
            reason: e.to_string(),
        })?;
        let mut subdirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        subdirs.sort();
        for sub in subdirs {
            let is_git_dir = ["HEAD", "config"]
                .iter()
                .any(|f| self.note(&sub.join(f)).is_some());
            if is_git_dir {
                self.repo(&sub, Vec::new())?;
            } else {
                self.modules(&sub)?;
            }
        }
        Ok(())
    }

    /// The paths of the gitlinks (mode 160000) an index records, the shared index of a
    /// split index included.
    fn gitlinks(
        &mut self,
        index: &Path,
        hash_len: usize,
        git_dir: &Path,
    ) -> Result<Vec<Vec<u8>>, GitConfigError> {
        let Some((mut links, shared)) = self.index(index, hash_len)? else {
            return Ok(Vec::new());
        };
        if let Some(shared) = shared
            && let Some((more, _)) =
                self.index(&git_dir.join(format!("sharedindex.{shared}")), hash_len)?
        {
            links.extend(more);
        }
        Ok(links)
    }

    /// One index file, read as a stream (`None` when there is none).
    #[allow(clippy::type_complexity)]
    fn index(
        &mut self,
        path: &Path,
        hash_len: usize,
    ) -> Result<Option<(Vec<Vec<u8>>, Option<String>)>, GitConfigError> {
        let Some(file) = self.open(path, self.limits.index_bytes)? else {
            return Ok(None);
        };
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        if len == 0 {
            return Ok(None);
        }
        parse_index(file, len, hash_len)
            .map(Some)
            .map_err(|reason| GitConfigError::Unparsed {
                path: path.to_path_buf(),
                reason: format!("is not an index git reads ({reason})"),
            })
    }

    /// One configuration file and what it includes.
    fn config_file(&mut self, path: &Path, repo: &mut RepoConfig, depth: usize) -> Found {
        if depth > MAX_INCLUDE_DEPTH {
            return Err(GitConfigError::TooDeep {
                path: path.to_path_buf(),
                limit: MAX_INCLUDE_DEPTH,
            });
        }
        let Some(text) = self.read(path, MAX_CONFIG_BYTES)? else {
            return Ok(());
        };
        repo.files += 1;
        if repo.files > MAX_CONFIG_FILES {
            return Err(GitConfigError::TooManyFiles {
                path: path.to_path_buf(),
                limit: MAX_CONFIG_FILES,
            });
        }
        let unparsed = |reason: String| GitConfigError::Unparsed {
            path: path.to_path_buf(),
            reason,
        };
        let entries = parse_config(&text).map_err(unparsed)?;
        for (var, value) in entries {
            let Some((section, sub, key)) = split_var(&var) else {
                continue;
            };
            let text = |b: &[u8]| {
                String::from_utf8(b.to_vec()).map_err(|_| {
                    unparsed(format!(
                        "names a section, subsection or key that is not UTF-8 (`{}`)",
                        String::from_utf8_lossy(&var)
                    ))
                })
            };
            let (section, key) = (text(section)?, text(key)?);
            match sub {
                Some(sub) => {
                    self.names.subsections.insert((section.clone(), text(sub)?));
                }
                None => {
                    self.names.keys.insert(format!("{section}.{key}"));
                    if section == "alias" {
                        self.names.aliases.insert(key.clone());
                    }
                }
            }
            match (section.as_str(), sub.is_some(), key.as_str()) {
                ("include", false, "path") | ("includeif", true, "path") => {
                    let Some(value) = value else {
                        return Err(unparsed("has an `include.path` without a value".into()));
                    };
                    let target = self.include_target(path, &value)?;
                    self.config_file(&target, repo, depth + 1)?;
                }
                ("core", false, "worktree") => repo.worktrees.extend(value),
                ("extensions", false, "objectformat") => {
                    repo.sha256 = value.is_some_and(|v| v.eq_ignore_ascii_case(b"sha256"));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Where an include path leads, as git's `interpolate_path` and `handle_path_include`
    /// resolve it; a form nanotool does not resolve (`~user/`, `%(prefix)/`, `~/` without
    /// a `HOME`) is an error.
    fn include_target(&self, from: &Path, value: &[u8]) -> Result<PathBuf, GitConfigError> {
        let unresolved = |why: &str| GitConfigError::Unparsed {
            path: from.to_path_buf(),
            reason: format!("includes `{}`, {why}", String::from_utf8_lossy(value)),
        };
        let os = |b: &[u8]| Path::new(std::ffi::OsStr::from_bytes(b)).to_path_buf();
        if value.starts_with(b"%(prefix)/") {
            return Err(unresolved(
                "a path under git's install prefix, which nanotool does not resolve",
            ));
        }
        let expanded = if value == b"~" || value.starts_with(b"~/") {
            let home = self
                .home
                .ok_or_else(|| unresolved("under `~/`, and commands have no HOME"))?;
            home.join(os(value.get(2..).unwrap_or_default()))
        } else if value.starts_with(b"~") {
            return Err(unresolved(
                "under another user's home, which nanotool does not resolve",
            ));
        } else {
            os(value)
        };
        Ok(if expanded.is_absolute() {
            expanded
        } else {
            from.parent().unwrap_or(Path::new("/")).join(expanded)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::cache::CacheDir;
    use super::*;
    use std::os::unix::fs::MetadataExt;

    /// The test's user: the owner of a file it makes.
    fn euid() -> u32 {
        tempfile::tempfile().unwrap().metadata().unwrap().uid()
    }

    /// Plain git in `dir`, without the machine's or the user's configuration.
    fn git(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// A repository in `dir` whose index holds `files` plain files (one with a name longer
    /// than 0xFFF bytes), an intent-to-add entry (extended flags) and `links` gitlinks.
    fn repo_with_index(dir: &Path, files: usize, links: usize) {
        git(dir, &["init", "-q", "."]);
        let blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
        let commit = "0123456789abcdef0123456789abcdef01234567";
        let mut info = String::new();
        for i in 0..files {
            info.push_str(&format!("100644 {blob}\tdir{}/file{i}.txt\n", i % 7));
        }
        info.push_str(&format!("100644 {blob}\t{}/long.txt\n", "n".repeat(5000)));
        for i in 0..links {
            info.push_str(&format!("160000 {commit}\tlinks/l{i}\n"));
        }
        let mut child = std::process::Command::new("git")
            .args(["update-index", "--add", "--index-info"])
            .current_dir(dir)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(info.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success());
        std::fs::write(dir.join("new.txt"), "n").unwrap();
        git(dir, &["add", "-N", "new.txt"]);
    }

    fn links_of(index: &Path) -> Vec<String> {
        let file = std::fs::File::open(index).unwrap();
        let len = file.metadata().unwrap().len();
        let (links, _) = parse_index(file, len, 20).unwrap();
        let mut links: Vec<String> = links
            .into_iter()
            .map(|l| String::from_utf8(l).unwrap())
            .collect();
        links.sort();
        links
    }

    #[test]
    fn the_index_is_read_as_a_stream_in_every_version_git_writes() {
        let dir = tempfile::tempdir().unwrap();
        repo_with_index(dir.path(), 300, 12);
        let mut want: Vec<String> = (0..12).map(|i| format!("links/l{i}")).collect();
        want.sort();
        let index = dir.path().join(".git/index");
        for version in ["2", "3", "4"] {
            git(dir.path(), &["update-index", "--index-version", version]);
            assert_eq!(links_of(&index), want, "v{version}");
            // Cut short anywhere: an error, never a panic or a shorter list.
            let data = std::fs::read(&index).unwrap();
            for cut in [5, 12, 40, 100, data.len() / 2, data.len() - 30] {
                let short = &data[..cut];
                assert!(
                    parse_index(short, data.len() as u64, 20).is_err(),
                    "v{version} {cut}"
                );
            }
        }
        // A split index: the gitlinks of the shared index count too.
        git(dir.path(), &["update-index", "--split-index"]);
        let mut scanner = Scanner {
            home: None,
            limits: Limits::DEFAULT,
            seen: Vec::new(),
            noted: HashSet::new(),
            names: Names::default(),
            repos: HashSet::new(),
            module_dirs: 0,
        };
        let mut got: Vec<String> = scanner
            .gitlinks(&index, 20, &dir.path().join(".git"))
            .unwrap()
            .into_iter()
            .map(|l| String::from_utf8(l).unwrap())
            .collect();
        got.sort();
        assert_eq!(got, want);
        assert!(
            links_of(&index).len() < want.len(),
            "the split did not move entries"
        );
    }

    #[test]
    fn a_limit_reached_names_the_limit_and_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "."]);
        for name in ["a", "b", "c"] {
            let sub = dir.path().join(name);
            std::fs::create_dir(&sub).unwrap();
            git(&sub, &["init", "-q", "."]);
            git(
                &sub,
                &[
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "commit",
                    "-q",
                    "--allow-empty",
                    "-m",
                    "x",
                ],
            );
            git(dir.path(), &["add", name]);
        }
        let limits = Limits {
            repositories: 3,
            ..Limits::DEFAULT
        };
        let scan = Scan::with_limits(dir.path(), None, None, limits);
        let message = scan.refused.expect("past the limit").to_string();
        for part in ["3 nanotool reads", "repositories", "c/.git"] {
            assert!(message.contains(part), "`{part}` not in: {message}");
        }
        // Within the limit, all four are read.
        let limits = Limits {
            repositories: 4,
            ..Limits::DEFAULT
        };
        assert!(
            Scan::with_limits(dir.path(), None, None, limits)
                .refused
                .is_none()
        );
        let limits = Limits {
            index_bytes: 64,
            ..Limits::DEFAULT
        };
        let message = Scan::with_limits(dir.path(), None, None, limits)
            .refused
            .expect("an index past the limit")
            .to_string();
        assert!(message.contains(".git/index"), "{message}");
    }

    /// A repository whose configuration defines the diff driver `first`, made old enough
    /// that its reading may be kept.
    fn aged_repo(dir: &Path) {
        git(dir, &["init", "-q", "."]);
        std::fs::write(dir.join(".git/config"), "[diff \"first\"]\n\tcommand = x\n").unwrap();
        age(dir);
    }

    /// Sets every status in `dir`'s repository back past the racy window (`touch -d`
    /// changes the mtime; the ctime is what counts, so the test waits it out instead).
    fn age(_dir: &Path) {
        std::thread::sleep(std::time::Duration::from_secs(cache::RACY_SECS as u64 + 1));
    }

    fn drivers(scan: &Scan) -> Vec<String> {
        scan.names
            .subsections
            .iter()
            .map(|(_, s)| s.clone())
            .collect()
    }

    #[test]
    fn a_kept_reading_is_used_until_anything_it_consulted_changes() {
        let ws = tempfile::tempdir().unwrap();
        let cache_dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(
            cache_dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .unwrap();
        let cache = CacheDir::checked(cache_dir.path(), ws.path(), &[]).expect("a usable folder");
        aged_repo(ws.path());
        let first = Scan::cached(ws.path(), None, None, Some(&cache));
        assert!(!first.from_cache);
        let again = Scan::cached(ws.path(), None, None, Some(&cache));
        assert!(
            again.from_cache,
            "the second process reads the kept reading"
        );
        assert_eq!(drivers(&again), ["first"]);
        // A driver added: the kept reading is not current, the new one names both.
        std::fs::write(
            ws.path().join(".git/config"),
            "[diff \"first\"]\n\tcommand = x\n[diff \"second\"]\n\tcommand = y\n",
        )
        .unwrap();
        let changed = Scan::cached(ws.path(), None, None, Some(&cache));
        assert!(!changed.from_cache);
        assert_eq!(drivers(&changed), ["first", "second"]);
        // That reading was racy (the config had just changed): not kept, read again.
        assert!(!Scan::cached(ws.path(), None, None, Some(&cache)).from_cache);
        // An include that appears where the config names one counts as a change too.
        age(ws.path());
        let _ = Scan::cached(ws.path(), None, None, Some(&cache));
        assert!(Scan::cached(ws.path(), None, None, Some(&cache)).from_cache);
        std::fs::write(
            ws.path().join(".git/config.worktree"),
            "[diff \"third\"]\n\tcommand = z\n",
        )
        .unwrap();
        let appeared = Scan::cached(ws.path(), None, None, Some(&cache));
        assert!(!appeared.from_cache);
        assert_eq!(drivers(&appeared), ["first", "second", "third"]);
    }

    #[test]
    fn a_kept_reading_nobody_may_trust_is_ignored() {
        use std::os::unix::fs::PermissionsExt;
        let ws = tempfile::tempdir().unwrap();
        let cache_dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(cache_dir.path(), PermissionsExt::from_mode(0o700)).unwrap();
        let cache = CacheDir::checked(cache_dir.path(), ws.path(), &[]).unwrap();
        aged_repo(ws.path());
        let _ = Scan::cached(ws.path(), None, None, Some(&cache));
        let file = std::fs::read_dir(cache_dir.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let kept = || Scan::cached(ws.path(), None, None, Some(&cache)).from_cache;
        assert!(kept());
        // Readable or writable by others.
        std::fs::set_permissions(&file, PermissionsExt::from_mode(0o666)).unwrap();
        assert!(!kept());
        // Rewritten by the reading above, as the agent's user, 0600: trusted again.
        assert!(kept());
        // Another user's file.
        if euid() == 0 {
            std::os::unix::fs::chown(&file, Some(65534), None).unwrap();
            assert!(!kept());
            assert!(kept());
        }
        // A link in the file's place, to a file that says what the attacker likes.
        let elsewhere = cache_dir.path().join("elsewhere");
        std::fs::rename(&file, &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &file).unwrap();
        assert!(!kept());
        // A file written for another workspace (the key inside is checked).
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::remove_file(&file).unwrap();
        let other = text.replace(ws.path().to_str().unwrap(), "/elsewhere");
        std::fs::write(&file, other).unwrap();
        std::fs::set_permissions(&file, PermissionsExt::from_mode(0o600)).unwrap();
        assert!(!kept());
        // A folder commands may reach is not used at all.
        assert!(CacheDir::checked(&ws.path().join("cache"), ws.path(), &[]).is_none());
        assert!(
            CacheDir::checked(
                cache_dir.path(),
                ws.path(),
                &[cache_dir.path().canonicalize().unwrap()]
            )
            .is_none()
        );
        std::fs::set_permissions(cache_dir.path(), PermissionsExt::from_mode(0o755)).unwrap();
        assert!(CacheDir::checked(cache_dir.path(), ws.path(), &[]).is_none());
    }
}
