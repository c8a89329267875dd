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

use std::collections::{BTreeSet, HashSet};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use thiserror::Error;

/// Bytes of one configuration file read.
pub(crate) const MAX_CONFIG_BYTES: u64 = 1024 * 1024;
/// Configuration files read for one repository, includes counted.
pub(crate) const MAX_CONFIG_FILES: usize = 16;
/// Levels of includes (git's own `MAX_INCLUDE_DEPTH`: git dies past it).
pub(crate) const MAX_INCLUDE_DEPTH: usize = 10;
/// Repositories read: the workspace's, its submodules and repositories recorded inside it.
pub(crate) const MAX_REPOSITORIES: usize = 64;
/// Folders visited under the `modules/` folders of all repositories.
pub(crate) const MAX_MODULE_DIRS: usize = 1024;
/// Bytes of one index file read (for its gitlinks).
pub(crate) const MAX_INDEX_BYTES: u64 = 256 * 1024 * 1024;

/// Why git is refused in a workspace: a configuration nanotool could not read whole, so the
/// programs it names could not all be neutralised.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GitConfigError {
    /// A configuration file is larger than `MAX_CONFIG_BYTES`.
    #[error(
        "git is refused in this workspace: the configuration file `{}` is over {} MiB, the most nanotool reads of one file to neutralise the programs a configuration names; make it smaller",
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
        "git is refused in this workspace: at `{}`, more {what} than the {limit} nanotool reads to neutralise the programs their configurations name",
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

/// The status of a path that decides what a scan read: `None` when it does not exist (or
/// cannot be looked at).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    mode: u32,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

fn stamp(path: &Path) -> Option<Stamp> {
    std::fs::metadata(path).ok().as_ref().map(stamp_of)
}

fn stamp_of(m: &std::fs::Metadata) -> Stamp {
    Stamp {
        dev: m.dev(),
        ino: m.ino(),
        mode: m.mode(),
        size: m.size(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ctime: (m.ctime(), m.ctime_nsec()),
    }
}

/// The names the configurations of every repository git may open define.
#[derive(Debug, Default)]
pub(super) struct Names {
    /// `(section, subsection)` pairs: the section lower case, the subsection as git keys it.
    pub subsections: BTreeSet<(String, String)>,
    /// Alias names (lower case).
    pub aliases: BTreeSet<String>,
    /// `section.key` of every variable outside a subsection (lower case).
    pub keys: BTreeSet<String>,
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
}

impl Scan {
    /// Reads the repository around `cwd` (or the git dir `git_dir`, as `GIT_DIR` names it)
    /// and every repository git may open from it; `home` expands `~/` in include paths.
    pub(super) fn new(cwd: &Path, home: Option<&Path>, git_dir: Option<&Path>) -> Scan {
        let mut scanner = Scanner {
            home,
            seen: Vec::new(),
            noted: HashSet::new(),
            names: Names::default(),
            repos: HashSet::new(),
            module_dirs: 0,
        };
        let refused = scanner.discover(cwd, git_dir).err();
        Scan {
            names: scanner.names,
            refused,
            seen: scanner.seen,
        }
    }

    /// Whether every path consulted is as it was (a `stat` of each).
    pub(super) fn is_current(&self) -> bool {
        self.seen.iter().all(|(path, was)| stamp(path) == *was)
    }
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

    /// Reads a regular file whole (`None` when it does not exist; a folder reads empty, as
    /// git reads it); past `limit` bytes, or anything but a regular file, is an error.
    fn read(&mut self, path: &Path, limit: u64) -> Result<Option<Vec<u8>>, GitConfigError> {
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
            return Ok(Some(Vec::new()));
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
        let is_file = file.metadata().map(|m| m.is_file()).unwrap_or(false);
        if !is_file {
            return Err(unreadable("it is not a regular file".into()));
        }
        let mut bytes = Vec::new();
        file.take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| unreadable(e.to_string()))?;
        if bytes.len() as u64 > limit {
            return Err(too_large());
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
        if self.repos.len() > MAX_REPOSITORIES {
            return Err(GitConfigError::TooMany {
                path: git_dir.to_path_buf(),
                what: "repositories (submodules and repositories inside others counted)",
                limit: MAX_REPOSITORIES,
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
        if self.module_dirs > MAX_MODULE_DIRS {
            return Err(GitConfigError::TooMany {
                path: dir.to_path_buf(),
                what: "folders under `modules/`",
                limit: MAX_MODULE_DIRS,
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
        let Some(data) = self.read(index, MAX_INDEX_BYTES)? else {
            return Ok(Vec::new());
        };
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let unparsed = |reason: &str| GitConfigError::Unparsed {
            path: index.to_path_buf(),
            reason: format!("is not an index git reads ({reason})"),
        };
        let (mut links, shared) = parse_index(&data, hash_len).map_err(unparsed)?;
        if let Some(shared) = shared {
            let path = git_dir.join(format!("sharedindex.{shared}"));
            if let Some(data) = self.read(&path, MAX_INDEX_BYTES)? {
                let (more, _) = parse_index(&data, hash_len).map_err(unparsed)?;
                links.extend(more);
            }
        }
        Ok(links)
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

/// A variable's section, subsection and key.
type VarParts<'a> = (&'a [u8], Option<&'a [u8]>, &'a [u8]);

/// A variable's name and value (`None`: a bare `key`, which means true).
type Var = (Vec<u8>, Option<Vec<u8>>);

/// `section`, the subsection and `key` of a variable as git names it (`section.sub.key`:
/// the section up to the first dot, the key after the last).
fn split_var(var: &[u8]) -> Option<VarParts<'_>> {
    let first = var.iter().position(|&c| c == b'.')?;
    let last = var.iter().rposition(|&c| c == b'.')?;
    let section = &var[..first];
    let key = &var[last + 1..];
    let sub = (last > first).then(|| &var[first + 1..last]);
    Some((section, sub, key))
}

/// git's `isspace` (its own table: space, tab, newline, carriage return).
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

/// A configuration file read a character at a time, as git's `get_next_char` does: `\r\n`
/// is `\n`, the end of the file is a last `\n`.
struct Chars<'a> {
    bytes: &'a [u8],
    pos: usize,
    eof: bool,
    line: usize,
}

impl Chars<'_> {
    fn next(&mut self) -> u8 {
        let Some(&c) = self.bytes.get(self.pos) else {
            self.eof = true;
            return b'\n';
        };
        self.pos += 1;
        if c == b'\r' && self.bytes.get(self.pos) == Some(&b'\n') {
            self.pos += 1;
            self.line += 1;
            return b'\n';
        }
        if c == b'\n' {
            self.line += 1;
        }
        c
    }
}

/// The variables of a configuration file, as git's `git_parse_source` reads them: the name
/// (`section[.subsection].key`, section and key lower case) and the value (`None` for a bare
/// `key`, which means true). A line git would refuse is an error naming it.
fn parse_config(bytes: &[u8]) -> Result<Vec<Var>, String> {
    if bytes.contains(&0) {
        return Err("contains a NUL byte".into());
    }
    const BOM: &[u8] = b"\xef\xbb\xbf";
    let bytes = match bytes.strip_prefix(BOM) {
        Some(rest) => rest,
        None if bytes.first() == Some(&0xef) => {
            return Err("begins with part of a byte order mark".into());
        }
        None => bytes,
    };
    let mut chars = Chars {
        bytes,
        pos: 0,
        eof: false,
        line: 1,
    };
    let mut out = Vec::new();
    let mut var: Vec<u8> = Vec::new();
    let mut base_len = 0;
    let mut comment = false;
    loop {
        let line = chars.line;
        let bad = || Err(format!("has a line git does not read (line {line})"));
        let c = chars.next();
        if c == b'\n' {
            if chars.eof {
                return Ok(out);
            }
            comment = false;
            continue;
        }
        if comment || is_space(c) {
            continue;
        }
        if c == b'#' || c == b';' {
            comment = true;
            continue;
        }
        if c == b'[' {
            var.clear();
            if section_header(&mut chars, &mut var).is_none() || var.is_empty() {
                return bad();
            }
            var.push(b'.');
            base_len = var.len();
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return bad();
        }
        var.truncate(base_len);
        var.push(c.to_ascii_lowercase());
        let mut c;
        loop {
            c = chars.next();
            if chars.eof || !is_key_char(c) {
                break;
            }
            var.push(c.to_ascii_lowercase());
        }
        while c == b' ' || c == b'\t' {
            c = chars.next();
        }
        let value = if c == b'\n' {
            None
        } else if c == b'=' {
            match value_of(&mut chars) {
                Some(v) => Some(v),
                None => return bad(),
            }
        } else {
            return bad();
        };
        out.push((var.clone(), value));
    }
}

/// `section]`, `section.sub]` or `section "sub"]` after the `[` (git's `get_base_var`).
fn section_header(chars: &mut Chars<'_>, var: &mut Vec<u8>) -> Option<()> {
    loop {
        let c = chars.next();
        if chars.eof {
            return None;
        }
        if c == b']' {
            return Some(());
        }
        if is_space(c) {
            return quoted_subsection(chars, var, c);
        }
        if !is_key_char(c) && c != b'.' {
            return None;
        }
        var.push(c.to_ascii_lowercase());
    }
}

/// ` "sub"]`: the subsection keeps its case, `\x` is `x` (git's `get_extended_base_var`).
fn quoted_subsection(chars: &mut Chars<'_>, var: &mut Vec<u8>, mut c: u8) -> Option<()> {
    loop {
        if c == b'\n' {
            return None;
        }
        c = chars.next();
        if !is_space(c) {
            break;
        }
    }
    if c != b'"' {
        return None;
    }
    var.push(b'.');
    loop {
        let mut c = chars.next();
        if c == b'\n' {
            return None;
        }
        if c == b'"' {
            break;
        }
        if c == b'\\' {
            c = chars.next();
            if c == b'\n' {
                return None;
            }
        }
        var.push(c);
    }
    (chars.next() == b']').then_some(())
}

/// A value after `=` (git's `parse_value`): quotes removed, `\t \b \n \\ \"` unescaped, a
/// backslash at the end of a line continues it, a comment outside quotes dropped, trailing
/// space outside quotes trimmed. `None` where git refuses the value.
fn value_of(chars: &mut Chars<'_>) -> Option<Vec<u8>> {
    let mut value = Vec::new();
    let mut quote = false;
    let mut comment = false;
    let mut trim_len = 0;
    loop {
        let mut c = chars.next();
        if c == b'\n' {
            if quote {
                return None;
            }
            if trim_len > 0 {
                value.truncate(trim_len);
            }
            return Some(value);
        }
        if comment {
            continue;
        }
        if is_space(c) && !quote {
            if trim_len == 0 {
                trim_len = value.len();
            }
            if !value.is_empty() {
                value.push(c);
            }
            continue;
        }
        if !quote && (c == b';' || c == b'#') {
            comment = true;
            continue;
        }
        trim_len = 0;
        if c == b'\\' {
            c = chars.next();
            c = match c {
                b'\n' => continue,
                b't' => b'\t',
                b'b' => 8,
                b'n' => b'\n',
                b'\\' | b'"' => c,
                _ => return None,
            };
            value.push(c);
            continue;
        }
        if c == b'"' {
            quote = !quote;
            continue;
        }
        value.push(c);
    }
}

/// The gitlink paths of an index (versions 2 to 4) and the shared index it names, if split.
fn parse_index(
    data: &[u8],
    hash_len: usize,
) -> Result<(Vec<Vec<u8>>, Option<String>), &'static str> {
    let u32_at = |at: usize| -> Result<u32, &'static str> {
        data.get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or("cut short")
    };
    let u16_at = |at: usize| -> Result<u16, &'static str> {
        data.get(at..at + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .ok_or("cut short")
    };
    if data.get(..4) != Some(b"DIRC") {
        return Err("no index signature");
    }
    let version = u32_at(4)?;
    if !(2..=4).contains(&version) {
        return Err("an index version git does not write");
    }
    let count = u32_at(8)?;
    let mut pos = 12;
    let mut links = Vec::new();
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let mode = u32_at(pos + 24)?;
        let flags = u16_at(pos + 40 + hash_len)?;
        let mut name_at = pos + 40 + hash_len + 2;
        if flags & 0x4000 != 0 {
            if version < 3 {
                return Err("extended flags in a version 2 index");
            }
            name_at += 2;
        }
        let name = if version == 4 {
            let (strip, after) = varint(data, name_at).ok_or("cut short")?;
            let keep = previous
                .len()
                .checked_sub(strip as usize)
                .ok_or("a name prefix longer than the name before it")?;
            let end = data[after..]
                .iter()
                .position(|&c| c == 0)
                .ok_or("cut short")?;
            let mut name = previous[..keep].to_vec();
            name.extend_from_slice(&data[after..after + end]);
            pos = after + end + 1;
            name
        } else {
            let end = data
                .get(name_at..)
                .and_then(|rest| rest.iter().position(|&c| c == 0))
                .ok_or("cut short")?;
            let name = data[name_at..name_at + end].to_vec();
            pos += (name_at - pos + end + 8) & !7;
            name
        };
        if mode & 0o170000 == 0o160000 {
            links.push(name.clone());
        }
        previous = name;
    }
    // Extensions, before the trailing checksum: only `link` (a split index) matters.
    let mut shared = None;
    while pos + 8 + hash_len <= data.len() {
        let size = u32_at(pos + 4)? as usize;
        if &data[pos..pos + 4] == b"link" {
            let id = data.get(pos + 8..pos + 8 + hash_len).ok_or("cut short")?;
            if id.iter().any(|&b| b != 0) {
                shared = Some(id.iter().map(|b| format!("{b:02x}")).collect());
            }
        }
        pos = pos.checked_add(8 + size).ok_or("cut short")?;
    }
    Ok((links, shared))
}

/// git's offset varint (`decode_varint`): the value and the position after it.
fn varint(data: &[u8], mut pos: usize) -> Option<(u64, usize)> {
    let mut c = *data.get(pos)?;
    pos += 1;
    let mut value = u64::from(c & 127);
    while c & 128 != 0 {
        value = value.checked_add(1)?;
        if value >> 57 != 0 {
            return None;
        }
        c = *data.get(pos)?;
        pos += 1;
        value = (value << 7) + u64::from(c & 127);
    }
    Some((value, pos))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(text: &str) -> Vec<String> {
        parse_config(text.as_bytes())
            .unwrap()
            .into_iter()
            .map(|(k, v)| {
                format!(
                    "{}={}",
                    String::from_utf8_lossy(&k),
                    v.map(|v| String::from_utf8_lossy(&v).into_owned())
                        .unwrap_or_else(|| "<none>".into())
                )
            })
            .collect()
    }

    #[test]
    fn the_reader_parses_as_git_does() {
        assert_eq!(
            vars("[Core]\n\tBare = false\n[diff \"Ev\\\"il\"] command = x ; c\n"),
            ["core.bare=false", "diff.Ev\"il.command=x"]
        );
        // A comment ends at its line's end, a backslash or not.
        assert_eq!(
            vars("# c \\\n[diff \"e\"]\n\tcommand = a \\\n b\n"),
            ["diff.e.command=a  b"]
        );
        assert_eq!(vars("[remote.Origin]\nurl\n"), ["remote.origin.url=<none>"]);
        assert_eq!(vars("[a]x=\"q ; \" # c\n"), ["a.x=q ; "]);
        assert_eq!(vars("\u{feff}[a]\r\nx = 1\r\n"), ["a.x=1"]);
        for bad in [
            "[diff\"e\"]\n",
            "[a]\nx = \\q\n",
            "[a]\nx = \"open\n",
            "[a \"b\"\n",
            "[a]\n=x\n",
            "[a]\nx\0 = 1\n",
        ] {
            assert!(parse_config(bad.as_bytes()).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn variables_split_into_section_subsection_and_key() {
        assert_eq!(
            split_var(b"diff.a.b.command"),
            Some((&b"diff"[..], Some(&b"a.b"[..]), &b"command"[..]))
        );
        assert_eq!(
            split_var(b"core.bare"),
            Some((&b"core"[..], None, &b"bare"[..]))
        );
        assert_eq!(split_var(b"nodot"), None);
    }
}
