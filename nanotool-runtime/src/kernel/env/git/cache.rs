//! A reading of the repositories kept between processes, so that a `nanotool call` in a
//! large repository does not read its index again while nothing changed.
//!
//! **What is kept**: the names a [`super::Scan`] found and the status of every path it
//! consulted, in one file per workspace (its working directory, `HOME` and `GIT_DIR`), under
//! the agent's user's cache folder: `$XDG_CACHE_HOME/nanotool/git`, else
//! `$HOME/.cache/nanotool/git`. A reading that was refused is never kept.
//!
//! **When it is used**: only when every path it consulted has the status it had then (the
//! same check a kernel makes before every call), so a configuration, include, `.git` file or
//! index that changed, appeared or went away means a new reading, as in one process. A
//! reading that consulted a path changed less than [`RACY_SECS`] before it began is not
//! kept ([`super::Scan::racy`]): a file rewritten within the same tick of the file system's
//! clock keeps its status, so only a status older than that proves the content unchanged.
//!
//! **Who can write it**: the cache decides which programs git may run, so only the agent's
//! user may have written it and no command may reach it. A cache folder inside the working
//! directory or inside a path the host let commands read or write is not used; the folder
//! must be a folder (not a link) of the agent's user, mode `0700`; a file must be a regular
//! file (opened without following links or blocking) of the agent's user, mode `0600`, and
//! name the workspace it was written for. Anything else is ignored (and the reading done
//! again), never trusted. With the sandbox off a command can write the agent's home, and so
//! this folder: it can then also do anything else the agent can, so the cache adds nothing
//! to what it may do (docs/DECISIONS.md).

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The status of a path that decides what a scan read: `None` when it does not exist (or
/// cannot be looked at).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    dev: u64,
    ino: u64,
    mode: u32,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    /// Whether the path changed at `since` (seconds since the epoch, as `ctime`) or later.
    pub(crate) fn changed_since(&self, since: i64) -> bool {
        self.ctime.0 >= since
    }
}

pub(crate) fn stamp(path: &Path) -> Option<Stamp> {
    std::fs::metadata(path).ok().as_ref().map(stamp_of)
}

pub(crate) fn stamp_of(m: &std::fs::Metadata) -> Stamp {
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
pub(crate) struct Names {
    /// `(section, subsection)` pairs: the section lower case, the subsection as git keys it.
    pub subsections: BTreeSet<(String, String)>,
    /// Alias names (lower case).
    pub aliases: BTreeSet<String>,
    /// `section.key` of every variable outside a subsection (lower case).
    pub keys: BTreeSet<String>,
}

/// Seconds before a reading's start within which a consulted path's change makes the reading
/// one that is not kept: well over the coarsest clock of the file systems in use (ext4's and
/// tmpfs's tick is a few milliseconds; some keep whole seconds).
pub(crate) const RACY_SECS: i64 = 2;

/// The largest cache file read.
const MAX_CACHE_BYTES: u64 = 256 << 20;

/// Readings kept (one per workspace); past it the oldest half is removed.
const MAX_FILES: usize = 512;

/// The format of the files; another one is ignored.
const FORMAT: u64 = 1;

/// The agent's user (the effective user id).
#[allow(unsafe_code)]
fn euid() -> u32 {
    // SAFETY: geteuid takes no argument, touches no memory and cannot fail.
    unsafe { libc::geteuid() }
}

/// The folder the readings are kept in, checked as the module doc says.
#[derive(Debug, Clone)]
pub(crate) struct CacheDir {
    dir: PathBuf,
}

/// What identifies a workspace's reading: the working directory, `HOME` (include paths
/// under `~/`), `GIT_DIR`.
pub(crate) struct Key<'a> {
    pub cwd: &'a Path,
    pub home: Option<&'a Path>,
    pub git_dir: Option<&'a Path>,
}

/// A reading read back: its names and what it consulted.
pub(crate) struct Saved {
    pub names: Names,
    pub seen: Vec<(PathBuf, Option<Stamp>)>,
}

impl CacheDir {
    /// The folder `dir` (made `0700` if missing) when it may hold readings: a folder, not a
    /// link, of the agent's user with mode `0700`, neither inside `cwd` or one of `exposed`
    /// (the paths commands may read or write, canonical) nor holding one of them; else
    /// `None`, and readings stay in memory.
    pub(crate) fn checked(dir: &Path, cwd: &Path, exposed: &[PathBuf]) -> Option<CacheDir> {
        if !dir.is_absolute() {
            return None;
        }
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .ok()?;
        let real = dir.canonicalize().ok()?;
        let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
        let overlaps = |p: &Path| real.starts_with(p) || p.starts_with(&real);
        if overlaps(&cwd) || exposed.iter().any(|p| overlaps(p)) {
            return None;
        }
        let meta = std::fs::symlink_metadata(&real).ok()?;
        if !meta.is_dir() || meta.uid() != euid() || meta.mode() & 0o077 != 0 {
            return None;
        }
        Some(CacheDir { dir: real })
    }

    /// The agent's user's cache folder for readings: `$XDG_CACHE_HOME/nanotool/git`, else
    /// `$HOME/.cache/nanotool/git` (absolute paths only); `None` without either.
    pub(crate) fn user_default(xdg_cache: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
        match (xdg_cache, home) {
            (Some(xdg), _) if xdg.is_absolute() => Some(xdg.join("nanotool/git")),
            (_, Some(home)) if home.is_absolute() => Some(home.join(".cache/nanotool/git")),
            _ => None,
        }
    }

    fn file(&self, key: &Key<'_>) -> PathBuf {
        let mut hasher = std::hash::DefaultHasher::new();
        (key.cwd, key.home, key.git_dir).hash(&mut hasher);
        self.dir.join(format!("{:016x}.json", hasher.finish()))
    }

    /// The reading kept for `key`, if there is one that may be trusted (see the module doc).
    pub(crate) fn load(&self, key: &Key<'_>) -> Option<Saved> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(self.file(key))
            .ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file()
            || meta.uid() != euid()
            || meta.mode() & 0o077 != 0
            || meta.len() > MAX_CACHE_BYTES
        {
            return None;
        }
        let mut text = Vec::new();
        file.take(MAX_CACHE_BYTES).read_to_end(&mut text).ok()?;
        let value: Value = serde_json::from_slice(&text).ok()?;
        if value["format"].as_u64() != Some(FORMAT) || value["key"] != key_json(key)? {
            return None;
        }
        let strings = |v: &Value| -> Option<BTreeSet<String>> {
            v.as_array()?
                .iter()
                .map(|s| s.as_str().map(str::to_owned))
                .collect()
        };
        let names = Names {
            subsections: value["subsections"]
                .as_array()?
                .iter()
                .map(|pair| Some((pair[0].as_str()?.to_owned(), pair[1].as_str()?.to_owned())))
                .collect::<Option<_>>()?,
            aliases: strings(&value["aliases"])?,
            keys: strings(&value["keys"])?,
        };
        let seen = value["seen"]
            .as_array()?
            .iter()
            .map(|entry| {
                let path = PathBuf::from(entry[0].as_str()?);
                let stamp = match &entry[1] {
                    Value::Null => None,
                    v => Some(stamp_from(v)?),
                };
                Some((path, stamp))
            })
            .collect::<Option<_>>()?;
        Some(Saved { names, seen })
    }

    /// Keeps a reading for `key` (a temporary file renamed over the last one, so a reader
    /// never sees half of it); a reading with a path that is not UTF-8 is not kept.
    pub(crate) fn store(&self, key: &Key<'_>, names: &Names, seen: &[(PathBuf, Option<Stamp>)]) {
        let Some(key_value) = key_json(key) else {
            return;
        };
        let seen: Option<Vec<Value>> = seen
            .iter()
            .map(|(path, stamp)| Some(json!([path.to_str()?, stamp.as_ref().map(stamp_json)])))
            .collect();
        let Some(seen) = seen else {
            return;
        };
        let value = json!({
            "format": FORMAT,
            "key": key_value,
            "subsections": names.subsections.iter().map(|(s, sub)| json!([s, sub])).collect::<Vec<_>>(),
            "aliases": names.aliases,
            "keys": names.keys,
            "seen": seen,
        });
        let target = self.file(key);
        let temp = target.with_extension(format!("json.{}.tmp", std::process::id()));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&temp)
            .and_then(|mut file| file.write_all(value.to_string().as_bytes()));
        if written.is_err() || std::fs::rename(&temp, &target).is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        self.prune();
    }

    /// Past [`MAX_FILES`] readings (one per workspace ever used), removes the oldest half.
    fn prune(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut files: Vec<(i64, PathBuf)> = entries
            .filter_map(|e| {
                let e = e.ok()?;
                Some((e.metadata().ok()?.mtime(), e.path()))
            })
            .collect();
        if files.len() <= MAX_FILES {
            return;
        }
        files.sort();
        for (_, path) in &files[..files.len() - MAX_FILES / 2] {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn os_str(path: &Path) -> Option<&str> {
    path.to_str()
}

fn key_json(key: &Key<'_>) -> Option<Value> {
    let opt = |p: Option<&Path>| -> Option<Value> {
        match p {
            None => Some(Value::Null),
            Some(p) => Some(Value::from(os_str(p)?)),
        }
    };
    Some(json!([os_str(key.cwd)?, opt(key.home)?, opt(key.git_dir)?]))
}

fn stamp_json(s: &Stamp) -> Value {
    json!([
        s.dev, s.ino, s.mode, s.size, s.mtime.0, s.mtime.1, s.ctime.0, s.ctime.1
    ])
}

fn stamp_from(v: &Value) -> Option<Stamp> {
    let n = |i: usize| v.get(i).and_then(Value::as_u64);
    let s = |i: usize| v.get(i).and_then(Value::as_i64);
    Some(Stamp {
        dev: n(0)?,
        ino: n(1)?,
        mode: u32::try_from(n(2)?).ok()?,
        size: n(3)?,
        mtime: (s(4)?, s(5)?),
        ctime: (s(6)?, s(7)?),
    })
}
