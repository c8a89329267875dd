//! The environment every command gets: the host's allowlisted variables, fixed values, and
//! the overrides that keep a workspace's own configuration from making a program run
//! another program.
//!
//! A workspace is untrusted input: a cloned repository carries a `.git/config` and hooks, a
//! folder carries a `json.py`. Programs that read such files and run what they name are
//! closed here, once for every tool, in the command's environment:
//!
//! - **Python** does not put the working directory (for `-m`) or the script's folder first on
//!   the module path (`PYTHONSAFEPATH=1`, Python 3.11 and later) when what it runs is not the
//!   project's code: a module of the standard library, `-c` (decided from the argv, see
//!   `python`); it reads no user site-packages (`PYTHONNOUSERSITE=1`), and writes no
//!   `__pycache__` into the workspace (`PYTHONDONTWRITEBYTECODE=1`).
//! - **git** reads no system or user configuration (`GIT_CONFIG_NOSYSTEM`,
//!   `GIT_CONFIG_GLOBAL=/dev/null`, `GIT_ATTR_NOSYSTEM`), never prompts (`GIT_TERMINAL_PROMPT=0`,
//!   empty `GIT_ASKPASS`/`SSH_ASKPASS`), speaks only the local `file` transport
//!   (`GIT_ALLOW_PROTOCOL=file`, which overrides every `protocol.*` setting, so no `ext::`
//!   command and no network) — in a tool that declares `network`, `file`, `git`, `http`,
//!   `https` and `ssh` ([`NETWORK_PROTOCOLS`]), never `ext` nor `fd`, with `core.sshCommand`
//!   set to plain `ssh` — uses no proxy command, no editor and no pager program, and takes
//!   no optional locks. Every configuration key that names a program to run is set at
//!   command-line precedence through `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`, which wins over
//!   the repository's own `.git/config`: the fixed keys of [`GIT_PROGRAM_KEYS`] (from
//!   `git help config`, with `safe.bareRepository=explicit`), and the keys of every named
//!   driver, tool, alias, remote and submodule that the configuration of any repository git
//!   may open from the working directory defines — its own, its submodules', repositories
//!   recorded inside it — read with their includes by the `git` module ([`GIT_NAMED_KEYS`]).
//!   The reading is checked before every call of a program that runs programs (a `stat` of
//!   each path it consulted; a leaf's environment holds nothing of it) and done again when
//!   anything changed, whoever changed it. When it cannot be done whole (a
//!   limit, a file that cannot be read or parsed), git is refused: a call of git fails with
//!   the reason ([`GitConfigError`]) and any git a command starts finds `GIT_DIR` pointing
//!   nowhere ([`GIT_DIR_REFUSED`]).
//! - **`PATH`** keeps its absolute entries only (`absolute_path`): the kernel resolves
//!   with the same list, and no program the command runs looks a bare name up in the
//!   working directory.
//! - **Mercurial** reads no repository `hgrc` (`HGRCSKIPREPO=1`), whose hooks run on any
//!   command.
//!
//! **By binary**: every program gets these overrides except the ones known never to start
//! another program, whatever their arguments ([`LEAF_PROGRAMS`]: `cat`, `grep`, `wc`, `ls`,
//! `jq`, ...), which get the short part only (the allowlisted host variables and [`FIXED`]). The
//! list is of programs that cannot run git, never of programs that are believed not to: a
//! shell, `make`, `find -exec`, `sed`'s `e` command, `sort --compress-program`, `tar -I` or
//! `rg --pre` or `split --filter` can run git, so they keep the overrides, as does any program the list does not
//! name.
//!
//! **A private home**: a confined command's `HOME` and XDG directories (`XDG_CACHE_HOME`,
//! `XDG_CONFIG_HOME`, `XDG_DATA_HOME`, `XDG_STATE_HOME`) are under an empty, writable
//! directory of the kernel's, removed with it, so npm, pip, cargo and go keep their caches
//! and logs there, and the real home stays out of reach. A toolchain home the host let
//! commands read or write (`--sandbox-read ~/.cargo`) is named by its variable
//! ([`TOOLCHAIN_HOMES`]: `CARGO_HOME`, `RUSTUP_HOME`, ...), so the toolchain finds itself.
//!
//! The host's own additions ([`super::KernelSettings::env`]) are applied last and win (a
//! `HOME` or `CARGO_HOME` the host sets is kept).

mod git;
mod python;

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::sandbox::Access;
use super::sandbox::spawn::CStrings;
use super::settings::{DEFAULT_PATH, KernelError};
pub use git::GitConfigError;
use git::{CacheDir, Scan};

/// The agent's user's folder for the reading of a workspace's git configuration kept between
/// processes ([`super::KernelSettings::git_cache`]): `$XDG_CACHE_HOME/nanotool/git`, else
/// `$HOME/.cache/nanotool/git`; `None` when neither variable holds an absolute path.
pub fn user_git_cache() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).map(PathBuf::from);
    CacheDir::user_default(var("XDG_CACHE_HOME").as_deref(), var("HOME").as_deref())
}

/// Whether a host variable passes the allowlist.
pub(super) fn allowlisted(name: &OsStr) -> bool {
    matches!(name.as_bytes(), b"PATH" | b"HOME" | b"LANG" | b"TZ")
        || name.as_bytes().starts_with(b"LC_")
}

/// Fixed variables every command gets (after the allowlisted host ones, before the host's
/// additions).
pub const FIXED: &[(&str, &str)] = &[("TERM", "dumb"), ("NO_COLOR", "1"), ("PAGER", "cat")];

/// Fixed variables of the programs that run other programs (see the module doc), with the git
/// overrides; `PYTHONSAFEPATH=1` joins them for a Python command that runs no project code.
pub const RUNNER_FIXED: &[(&str, &str)] = &[
    // Python: no user site, no bytecode files.
    ("PYTHONNOUSERSITE", "1"),
    ("PYTHONDONTWRITEBYTECODE", "1"),
    // git: only the repository's configuration, and what follows overrides it.
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_ATTR_NOSYSTEM", "1"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_ASKPASS", ""),
    ("SSH_ASKPASS", ""),
    ("GIT_ALLOW_PROTOCOL", "file"),
    // Empty: no proxy (the variable wins over a planted `core.gitProxy`; `none` would be run).
    ("GIT_PROXY_COMMAND", ""),
    ("GIT_PAGER", "cat"),
    ("GIT_EDITOR", ":"),
    ("GIT_SEQUENCE_EDITOR", ":"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    // Mercurial: no repository hgrc (its hooks run on any command), plain output.
    ("HGRCSKIPREPO", "1"),
    ("HGPLAIN", "1"),
];

/// The transports a tool that declares `network` lets git speak (`GIT_ALLOW_PROTOCOL`): the
/// local one and those of ordinary remotes. Never `ext` (it runs a command) nor `fd`.
pub const NETWORK_PROTOCOLS: &str = "file:git:http:https:ssh";

/// Programs that start no other program, whatever their arguments: they get the short
/// environment, without git's and Python's overrides (which only a program that runs git or
/// Python reads). A program missing here keeps the overrides: the list errs towards them.
pub const LEAF_PROGRAMS: &[&str] = &[
    "true",
    "false",
    "cat",
    "tac",
    "head",
    "tail",
    "wc",
    "ls",
    "dir",
    "stat",
    "grep",
    "cut",
    "tr",
    "uniq",
    "nl",
    "od",
    "base64",
    "base32",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "cmp",
    "comm",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "pwd",
    "echo",
    "printf",
    "date",
    "du",
    "df",
    "tree",
    "rev",
    "fold",
    "fmt",
    "column",
    "paste",
    "join",
    "expand",
    "unexpand",
    "seq",
    "yes",
    "sleep",
    "id",
    "whoami",
    "uname",
    "nproc",
    "touch",
    "mkdir",
    "rmdir",
    "cp",
    "mv",
    "ln",
    "rm",
    "chmod",
    "jq",
    "file",
    "hexdump",
    "xxd",
    "strings",
    "numfmt",
    "shuf",
    "csplit",
    "truncate",
    "mktemp",
    "uptime",
    "free",
    "arch",
    "hostname",
    "tsort",
    "factor",
    "expr",
    "test",
    "[",
];

/// Toolchain homes under the agent's home, each with the variable that names it: when the host
/// lets commands read or write one (`--sandbox-read ~/.cargo`), confined commands get the
/// variable pointing at it, since their `HOME` is private.
pub const TOOLCHAIN_HOMES: &[(&str, &str)] = &[
    (".cargo", "CARGO_HOME"),
    (".rustup", "RUSTUP_HOME"),
    (".pyenv", "PYENV_ROOT"),
    (".nvm", "NVM_DIR"),
    ("go", "GOPATH"),
    (".bun", "BUN_INSTALL"),
    (".volta", "VOLTA_HOME"),
];

/// The XDG variables of the private home, each with its folder under it.
pub const XDG_DIRS: &[(&str, &str)] = &[
    ("XDG_CACHE_HOME", ".cache"),
    ("XDG_CONFIG_HOME", ".config"),
    ("XDG_DATA_HOME", ".local/share"),
    ("XDG_STATE_HOME", ".local/state"),
];

/// git configuration keys that name a program to run, with the value that neutralises each
/// (empty where git then runs nothing, else the built-in default or a program that does
/// nothing). Set at command-line precedence, they win over the repository's configuration.
pub const GIT_PROGRAM_KEYS: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", ":"),
    ("sequence.editor", ":"),
    ("core.askPass", ""),
    ("core.sshCommand", "false"),
    ("core.alternateRefsCommand", ""),
    ("diff.tool", ""),
    ("diff.guitool", ""),
    ("merge.tool", ""),
    ("merge.guitool", ""),
    ("interactive.diffFilter", ""),
    ("gpg.program", "gpg"),
    ("gpg.openpgp.program", "gpg"),
    ("gpg.x509.program", "gpgsm"),
    ("gpg.ssh.program", "ssh-keygen"),
    ("gpg.ssh.defaultKeyCommand", ""),
    ("log.showSignature", "false"),
    // An empty helper resets the list a repository may have started.
    ("credential.helper", ""),
    // `gc.recentObjectsHook` may be given many times and cannot be reset: automatic gc and
    // maintenance, which would run it after a commit, are off.
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("sendemail.sendmailCmd", ""),
    ("sendemail.toCmd", ""),
    ("sendemail.ccCmd", ""),
    ("sendemail.headerCmd", ""),
    ("sendemail.smtpServer", ""),
    ("help.browser", ""),
    ("web.browser", ""),
    ("instaweb.browser", ""),
    ("man.viewer", ""),
    // Not a program key: git opens no bare repository it discovers (a workspace that is one
    // would be read with a configuration nobody looked at). Only protected configuration,
    // the command line included, may set it.
    ("safe.bareRepository", "explicit"),
];

/// git configuration keys that name a program and for which every value runs one (no value
/// means "none"): each is set, to a program that does nothing, only when the repository's
/// configuration defines it, so a plain repository's output stays the same.
pub const GIT_DEFINED_KEYS: &[(&str, &str)] = &[("diff.external", "true")];

/// git configuration keys under a name the repository chooses (`diff.<driver>.textconv`):
/// for each section, the keys that run a program and their neutral values. Every name the
/// repository's configuration defines in these sections gets them.
pub const GIT_NAMED_KEYS: &[(&str, &[(&str, &str)])] = &[
    // `true` prints nothing: a driver-routed file shows no external diff. An empty textconv
    // is a program git cannot run (the whole diff fails): `cat` converts nothing, so the
    // file diffs as it would without a driver.
    ("diff", &[("command", "true"), ("textconv", "cat")]),
    ("filter", &[("clean", ""), ("smudge", ""), ("process", "")]),
    ("merge", &[("driver", "false")]),
    ("difftool", &[("cmd", "false"), ("path", "false")]),
    ("mergetool", &[("cmd", "false"), ("path", "false")]),
    ("guitool", &[("cmd", "false")]),
    ("browser", &[("cmd", "false"), ("path", "false")]),
    ("man", &[("cmd", "false"), ("path", "false")]),
    ("credential", &[("helper", "")]),
    (
        "remote",
        &[
            ("uploadpack", "git-upload-pack"),
            ("receivepack", "git-receive-pack"),
            // Not `vcs`: an empty one names the helper `""`, which breaks every remote, and the
            // helper a `vcs` names is a transport `GIT_ALLOW_PROTOCOL` already governs.
            ("proxy", ""),
        ],
    ),
    ("submodule", &[("update", "none")]),
];

/// The value of `GIT_DIR` when git is refused in the workspace: a path under `/dev/null`,
/// which nothing can create, so any git a command starts finds no repository.
pub const GIT_DIR_REFUSED: &str = "/dev/null/nanotool-refused-this-repository";

/// The environment of every command, kept in step with the configuration of the
/// repositories git may open from the working directory.
#[derive(Debug)]
pub(super) struct ChildEnv {
    parts: Arc<Parts>,
    cwd: PathBuf,
    home: Option<PathBuf>,
    /// `GIT_DIR` as the host set it.
    git_dir: Option<PathBuf>,
    /// Where readings are kept between processes, when the host asked for it and the folder
    /// passed its checks.
    cache: Option<CacheDir>,
    current: Mutex<Arc<CallEnv>>,
}

/// What every call's environment is made of, besides the git overrides.
#[derive(Debug)]
struct Parts {
    /// Allowlisted host variables and [`FIXED`].
    base: BTreeMap<OsString, OsString>,
    /// The host's additions, checked.
    extra: Vec<(OsString, OsString)>,
    /// What confined commands get on top: the toolchain homes the host added (those the host
    /// set itself left out).
    confined: Vec<(OsString, OsString)>,
    /// Which of `TMPDIR`, `HOME` and the XDG variables point into a profile's private folders
    /// ([`PrivateDirs`]): those the sandbox makes and the host does not set itself.
    private_vars: PrivateVars,
}

/// Which private variables confined commands get (the host's own value wins).
#[derive(Debug, Default, Clone, Copy)]
struct PrivateVars {
    tmpdir: bool,
    home: bool,
    /// One per [`XDG_DIRS`] entry.
    xdg: [bool; 4],
}

/// One profile's private folders: its `TMPDIR` and its home (the XDG folders inside). Each
/// profile (a tool's rights: writes, network, readable paths) has its own, so what a call
/// leaves there serves the next calls with the same rights and never reaches a call with
/// other rights.
#[derive(Debug, Clone, Copy)]
pub(super) struct PrivateDirs<'a> {
    pub tmpdir: &'a Path,
    pub home: &'a Path,
}

/// The number of profiles whose confined environment blocks a [`CallEnv`] keeps: the plain
/// ones; a profile with readable paths of its own builds its block per call.
const CACHED_PROFILES: usize = super::sandbox::PLAIN_PROFILES;

/// The paths of the sandbox a confined command's environment names.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Private<'a> {
    /// The private temp dir (`TMPDIR`).
    pub tmpdir: Option<&'a Path>,
    /// The private home (`HOME`, the XDG folders).
    pub home: Option<&'a Path>,
    /// Every path the host let commands read or write, canonical.
    pub added: &'a [PathBuf],
    /// Where the reading of the repositories' configuration is kept between processes
    /// ([`git::CacheDir`]; `None`: in memory only).
    pub git_cache: Option<&'a Path>,
}

/// What a command's environment carries beyond the short part, chosen per call from its
/// program, its argv and its tool's profile ([`EnvKind::of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct EnvKind {
    /// The program runs other programs: git's, Mercurial's and Python's overrides.
    runs_programs: bool,
    /// The tool declares `network`: git may speak [`NETWORK_PROTOCOLS`].
    network: bool,
    /// `PYTHONSAFEPATH=1`: a Python command that runs none of the project's code.
    safe_path: bool,
}

impl EnvKind {
    /// The kind of a call of `program` with `argv` under `access`.
    pub(super) fn of(program: &Path, argv: &[String], access: Access) -> EnvKind {
        let name = program.file_name().map(OsStr::as_bytes).unwrap_or_default();
        let python = python::is_python(name);
        let runs_programs = python || is_git(program) || {
            let name = String::from_utf8_lossy(name);
            !LEAF_PROGRAMS.contains(&name.as_ref())
        };
        EnvKind {
            runs_programs,
            network: runs_programs && access.network,
            safe_path: python && python::safe_path(argv.get(1..).unwrap_or_default()),
        }
    }

    /// The kind of a program that runs others, offline: the fullest environment.
    pub(super) const RUNNER: EnvKind = EnvKind {
        runs_programs: true,
        network: false,
        safe_path: true,
    };

    fn index(self) -> usize {
        usize::from(self.runs_programs)
            | usize::from(self.network) << 1
            | usize::from(self.safe_path) << 2
    }
}

/// The environment of one call.
#[derive(Debug)]
pub(super) struct CallEnv {
    /// For a program that runs others, started directly, offline, with the safe path
    /// ([`EnvKind::RUNNER`]): every variable any command may get, what
    /// [`super::CommandExecKernel::child_env`] shows.
    pub env: Vec<(OsString, OsString)>,
    /// Why git is refused, when the repositories' configuration could not be read whole.
    pub refused: Option<GitConfigError>,
    parts: Arc<Parts>,
    overrides: Vec<(String, String)>,
    /// Each kind's environment ready for `execve`: unconfined, then confined for each cached
    /// profile ([`CACHED_PROFILES`]), built on first use.
    built: [OnceLock<CStrings>; 8 * (1 + CACHED_PROFILES)],
    scan: Scan,
}

impl ChildEnv {
    /// Checks the host's additions, reads the repositories around `cwd` and builds the first
    /// environment.
    pub(super) fn new(
        host: impl Iterator<Item = (OsString, OsString)>,
        extra: &[(String, String)],
        cwd: &Path,
        private: Private<'_>,
    ) -> Result<ChildEnv, KernelError> {
        let mut base: BTreeMap<OsString, OsString> = host.filter(|(k, _)| allowlisted(k)).collect();
        for (k, v) in FIXED {
            base.insert(k.into(), v.into());
        }
        let mut checked = Vec::with_capacity(extra.len());
        for (name, value) in extra {
            let reason = if name.is_empty() {
                Some("the name is empty")
            } else if name.contains('=') {
                Some("the name contains `=`")
            } else if name.contains('\0') {
                Some("the name contains a NUL byte")
            } else if value.contains('\0') {
                Some("the value contains a NUL byte")
            } else {
                None
            };
            if let Some(reason) = reason {
                return Err(KernelError::Env {
                    name: name.clone(),
                    reason,
                });
            }
            checked.push((OsString::from(name), OsString::from(value)));
        }
        let host_sets = |name: &str| checked.iter().any(|(k, _)| k == name);
        let last = |name: &str| {
            checked
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .or_else(|| base.get(OsStr::new(name)).cloned())
        };
        let home = last("HOME").map(PathBuf::from);
        let git_dir = checked
            .iter()
            .rev()
            .find(|(k, _)| k == "GIT_DIR")
            .map(|(_, v)| PathBuf::from(v));
        let mut confined: Vec<(OsString, OsString)> = Vec::new();
        let mut private_vars = PrivateVars {
            tmpdir: private.tmpdir.is_some() && !host_sets("TMPDIR"),
            ..PrivateVars::default()
        };
        if private.home.is_some() {
            private_vars.home = !host_sets("HOME");
            for (i, (var, _)) in XDG_DIRS.iter().enumerate() {
                private_vars.xdg[i] = !host_sets(var);
            }
            // The toolchain homes the host let commands reach, under the real home.
            let real_home = home.as_deref().and_then(|h| h.canonicalize().ok());
            for (dir, var) in TOOLCHAIN_HOMES {
                let Some(path) = real_home.as_ref().map(|h| h.join(dir)) else {
                    break;
                };
                if !host_sets(var) && private.added.contains(&path) {
                    confined.push(((*var).into(), path.into_os_string()));
                }
            }
        }
        let cache = private
            .git_cache
            .and_then(|dir| CacheDir::checked(dir, cwd, private.added));
        let scan = Scan::cached(cwd, home.as_deref(), git_dir.as_deref(), cache.as_ref());
        let parts = Arc::new(Parts {
            base,
            extra: checked,
            confined,
            private_vars,
        });
        let first = CallEnv::new(&parts, scan);
        Ok(ChildEnv {
            parts,
            cwd: cwd.to_path_buf(),
            home,
            git_dir,
            cache,
            current: Mutex::new(Arc::new(first)),
        })
    }

    /// The variables naming the toolchain homes ([`TOOLCHAIN_HOMES`]) among `added` (a tool's
    /// own readable paths, canonical), for its confined commands: `CARGO_HOME` for a tool that
    /// may read `~/.cargo`, as the host's `--sandbox-read` gives every tool. A variable the host
    /// sets is left to the host.
    pub(super) fn toolchain_vars(&self, added: &[PathBuf]) -> Vec<(String, String)> {
        if added.is_empty() {
            return Vec::new();
        }
        let Some(real_home) = self.home.as_deref().and_then(|h| h.canonicalize().ok()) else {
            return Vec::new();
        };
        let host_sets = |var: &str| self.parts.extra.iter().any(|(k, _)| k == var);
        TOOLCHAIN_HOMES
            .iter()
            .filter(|(dir, var)| added.contains(&real_home.join(dir)) && !host_sets(var))
            .filter_map(|(dir, var)| {
                let path = real_home.join(dir).into_os_string().into_string().ok()?;
                Some(((*var).to_owned(), path))
            })
            .collect()
    }

    /// `call`'s environment with a tool's own variables set after every other (names checked
    /// by the caller, `RunSettings::check`): the blocks for a confined and a plain command.
    pub(super) fn with_tool_env(
        &self,
        call: &CallEnv,
        kind: EnvKind,
        tool: &[(String, String)],
        private: Option<PrivateDirs<'_>>,
    ) -> io::Result<(CStrings, CStrings)> {
        let build = |confined: Option<PrivateDirs<'_>>| {
            let mut env: BTreeMap<OsString, OsString> =
                call.vars(kind, confined).into_iter().collect();
            for (name, value) in tool {
                env.insert(name.into(), value.into());
            }
            CStrings::env(&env.into_iter().collect::<Vec<_>>())
        };
        // Without the sandbox's folders (the sandbox is off) the confined block is never used.
        let confined = match private {
            Some(dirs) => build(Some(dirs))?,
            None => build(None)?,
        };
        Ok((confined, build(None)?))
    }

    /// The environment as it is now: the same as the last call's unless a configuration
    /// file (or any path the last reading consulted) changed since, then read again.
    pub(super) fn current(&self) -> io::Result<Arc<CallEnv>> {
        self.current_for(EnvKind::RUNNER)
    }

    /// The environment for a call of `kind`. A program that runs others gets the
    /// repositories' configuration as it is now ([`Self::current`]); a leaf program's
    /// environment holds nothing read from the repositories, so it takes the last one as it
    /// is, without the check (a `stat` of every path the reading consulted: 8 in a folder that
    /// is no repository, 23 in one with a submodule and two includes). The next call of a
    /// program that runs others checks, and reads again, as before.
    pub(super) fn current_for(&self, kind: EnvKind) -> io::Result<Arc<CallEnv>> {
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if kind.runs_programs && !current.scan.is_current() {
            let (cwd, home, git_dir) = (&self.cwd, self.home.as_deref(), self.git_dir.as_deref());
            let scan = Scan::new(cwd, home, git_dir);
            scan.keep(cwd, home, git_dir, self.cache.as_ref());
            *current = Arc::new(CallEnv::new(&self.parts, scan));
        }
        Ok(Arc::clone(&current))
    }
}

impl CallEnv {
    fn new(parts: &Arc<Parts>, scan: Scan) -> CallEnv {
        let overrides = git_overrides(&scan.names);
        let mut call = CallEnv {
            env: Vec::new(),
            refused: scan.refused.clone(),
            parts: Arc::clone(parts),
            overrides,
            built: std::array::from_fn(|_| OnceLock::new()),
            scan,
        };
        call.env = call.vars(EnvKind::RUNNER, None);
        call
    }

    /// The environment of a call of `kind`, ready for `execve`: unconfined (`None`), or
    /// confined in cached profile `n` (below [`CACHED_PROFILES`]) with its private folders.
    pub(super) fn for_call(
        &self,
        kind: EnvKind,
        confined: Option<(usize, PrivateDirs<'_>)>,
    ) -> io::Result<&CStrings> {
        let index = match confined {
            None => kind.index(),
            Some((profile, _)) => 8 * (1 + profile) + kind.index(),
        };
        let slot = &self.built[index];
        if let Some(built) = slot.get() {
            return Ok(built);
        }
        let built = CStrings::env(&self.vars(kind, confined.map(|(_, dirs)| dirs)))?;
        Ok(slot.get_or_init(|| built))
    }

    /// The variables of a call of `kind`: the short part, then (for a program that runs
    /// others) the overrides, then the host's additions, then the sandbox's paths.
    fn vars(&self, kind: EnvKind, confined: Option<PrivateDirs<'_>>) -> Vec<(OsString, OsString)> {
        let parts = &self.parts;
        let mut env = parts.base.clone();
        if kind.runs_programs {
            for (k, v) in RUNNER_FIXED {
                env.insert(k.into(), v.into());
            }
            if kind.safe_path {
                env.insert("PYTHONSAFEPATH".into(), "1".into());
            }
            if kind.network {
                env.insert("GIT_ALLOW_PROTOCOL".into(), NETWORK_PROTOCOLS.into());
            }
            env.insert(
                "GIT_CONFIG_COUNT".into(),
                self.overrides.len().to_string().into(),
            );
            for (i, (key, value)) in self.overrides.iter().enumerate() {
                // A network tool's ssh transport runs plain `ssh`, never a planted command.
                let value = if kind.network && key == "core.sshCommand" {
                    "ssh"
                } else {
                    value
                };
                env.insert(format!("GIT_CONFIG_KEY_{i}").into(), key.into());
                env.insert(format!("GIT_CONFIG_VALUE_{i}").into(), value.into());
            }
        }
        for (name, value) in &parts.extra {
            env.insert(name.clone(), value.clone());
        }
        // Fail closed: a git started by the command (a build, a script) finds no repository.
        if kind.runs_programs && self.refused.is_some() {
            env.insert("GIT_DIR".into(), GIT_DIR_REFUSED.into());
        }
        let path = env.get(OsStr::new("PATH")).cloned();
        env.insert("PATH".into(), absolute_path(path.as_deref()));
        if let Some(dirs) = confined {
            // git, which dies when it cannot read `~/.gitconfig` (out of a confined
            // command's reach), is already pointed at no global config (`RUNNER_FIXED`).
            let private = parts.private_vars;
            if private.tmpdir {
                env.insert("TMPDIR".into(), dirs.tmpdir.as_os_str().to_owned());
            }
            if private.home {
                env.insert("HOME".into(), dirs.home.as_os_str().to_owned());
            }
            for (set, (var, dir)) in private.xdg.iter().zip(XDG_DIRS) {
                if *set {
                    env.insert((*var).into(), dirs.home.join(dir).into_os_string());
                }
            }
            for (name, value) in &parts.confined {
                env.insert(name.clone(), value.clone());
            }
        }
        env.into_iter().collect()
    }
}

/// `PATH` as commands get it and the kernel resolves with it: its absolute entries only (an
/// empty or relative entry, `::` or `.`, would have a program the command runs look in the
/// working directory), [`DEFAULT_PATH`] when none is left or none was set.
pub(super) fn absolute_path(path: Option<&OsStr>) -> OsString {
    let dirs: Vec<PathBuf> = path
        .map(|p| {
            std::env::split_paths(p)
                .filter(|d| d.is_absolute())
                .collect()
        })
        .unwrap_or_default();
    if dirs.is_empty() {
        return DEFAULT_PATH.into();
    }
    std::env::join_paths(dirs).unwrap_or_else(|_| DEFAULT_PATH.into())
}

/// Whether `program` is git or one of its programs (`git-upload-pack`, `git-lfs`): what
/// reads the repository's configuration.
pub(super) fn is_git(program: &Path) -> bool {
    program
        .file_name()
        .map(OsStr::as_bytes)
        .is_some_and(|n| n == b"git" || n.starts_with(b"git-"))
}

/// The git configuration set at command-line precedence: the fixed program keys, then the
/// program keys of every named section and alias the repositories' configurations define.
fn git_overrides(names: &git::Names) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = GIT_PROGRAM_KEYS
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    for (key, value) in GIT_DEFINED_KEYS {
        if names.keys.iter().any(|k| k.eq_ignore_ascii_case(key)) {
            out.push(((*key).to_owned(), (*value).to_owned()));
        }
    }
    for (section, sub) in &names.subsections {
        if let Some((_, keys)) = GIT_NAMED_KEYS
            .iter()
            .find(|(s, _)| s.eq_ignore_ascii_case(section))
        {
            for (key, value) in keys.iter() {
                out.push((format!("{section}.{sub}.{key}"), (*value).to_owned()));
            }
        }
    }
    // An alias that runs a shell (`!cmd`) or another git command: an empty alias is refused.
    for alias in &names.aliases {
        out.push((format!("alias.{alias}"), String::new()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The environment of a command started directly, as a kernel in `cwd` builds it.
    fn child_env(
        host: impl Iterator<Item = (OsString, OsString)>,
        extra: &[(String, String)],
        cwd: &Path,
    ) -> Result<Vec<(OsString, OsString)>, KernelError> {
        let env = ChildEnv::new(host, extra, cwd, Private::default())?;
        Ok(env.current().unwrap().env.clone())
    }

    fn git_overrides_in(cwd: &Path) -> Vec<(String, String)> {
        git_overrides(&Scan::new(cwd, None, None).names)
    }

    #[test]
    fn the_env_allowlist_is_exact() {
        let host = [
            ("PATH", "/bin"),
            ("HOME", "/root"),
            ("LC_ALL", "C"),
            ("LANGUAGE", "en"),
            ("AWS_SECRET_ACCESS_KEY", "x"),
            ("TERM", "xterm"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let none = Path::new("/nonexistent-dir-for-env-test");
        let env = child_env(host.into_iter(), &[("PAGER".into(), "less".into())], none).unwrap();
        let names: Vec<_> = env
            .iter()
            .map(|(k, v)| format!("{}={}", k.display(), v.display()))
            .filter(|kv| {
                // The fixed hardening variables are checked by their own test.
                let name = kv.split('=').next().unwrap();
                !RUNNER_FIXED.iter().any(|(k, _)| *k == name)
                    && name != "PYTHONSAFEPATH"
                    && !name.starts_with("GIT_CONFIG_")
            })
            .collect();
        assert_eq!(
            names,
            [
                "HOME=/root",
                "LC_ALL=C",
                "NO_COLOR=1",
                "PAGER=less",
                "PATH=/bin",
                "TERM=dumb"
            ]
        );
    }

    #[test]
    fn every_fixed_variable_and_git_key_is_set() {
        let env = child_env(std::iter::empty(), &[], Path::new("/nonexistent-dir")).unwrap();
        let get = |name: &str| {
            env.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.to_string_lossy().into_owned())
        };
        for (k, v) in FIXED.iter().chain(RUNNER_FIXED) {
            assert_eq!(get(k).as_deref(), Some(*v), "{k}");
        }
        let count: usize = get("GIT_CONFIG_COUNT").unwrap().parse().unwrap();
        assert_eq!(count, GIT_PROGRAM_KEYS.len());
        for (i, (k, v)) in GIT_PROGRAM_KEYS.iter().enumerate() {
            assert_eq!(get(&format!("GIT_CONFIG_KEY_{i}")).as_deref(), Some(*k));
            assert_eq!(get(&format!("GIT_CONFIG_VALUE_{i}")).as_deref(), Some(*v));
        }
    }

    #[test]
    fn named_sections_aliases_and_includes_are_found() {
        let dir = std::env::temp_dir().join(format!("nanotool-env-test-{}", std::process::id()));
        let git = dir.join("repo/.git");
        std::fs::create_dir_all(&git).unwrap();
        std::fs::create_dir_all(dir.join("repo/sub")).unwrap();
        std::fs::write(
            git.join("config"),
            "[core]\n\tbare = false\n[diff \"ev\\\"il\"]\n\ttextconv = x\n[Filter \"Up\"] clean = y\n\
             [alias]\n\tLg = !sh -c x\n[include]\n\tpath = \"../extra.cfg\" ; comment\n\
             [remote.Origin]\n\turl = x\n[diff]\n\texternal = evil\n",
        )
        .unwrap();
        std::fs::write(dir.join("repo/extra.cfg"), "[merge \"m\"]\n\tdriver = z\n").unwrap();
        let keys: Vec<String> = git_overrides_in(&dir.join("repo/sub"))
            .into_iter()
            .skip(GIT_PROGRAM_KEYS.len())
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        std::fs::remove_dir_all(&dir).unwrap();
        for want in [
            "diff.ev\"il.command=true",
            "diff.ev\"il.textconv=cat",
            "filter.Up.clean=",
            "filter.Up.process=",
            "merge.m.driver=false",
            "remote.origin.uploadpack=git-upload-pack",
            "alias.lg=",
            "diff.external=true",
        ] {
            assert!(keys.iter().any(|k| k == want), "{want} not in {keys:?}");
        }
    }

    #[test]
    fn path_keeps_its_absolute_entries_only() {
        for (given, want) in [
            (Some(".:/usr/bin::/bin:"), "/usr/bin:/bin"),
            (Some("bin:~/x"), DEFAULT_PATH),
            (Some(""), DEFAULT_PATH),
            (None, DEFAULT_PATH),
            (Some("/opt/x/bin"), "/opt/x/bin"),
        ] {
            let got = absolute_path(given.map(OsStr::new));
            assert_eq!(got, OsStr::new(want), "{given:?}");
        }
    }

    #[test]
    fn git_and_its_programs_are_recognised() {
        for (path, want) in [
            ("/usr/bin/git", true),
            ("/usr/lib/git-core/git-upload-pack", true),
            ("/usr/bin/git-lfs", true),
            ("/usr/bin/gitk", false),
            ("/usr/bin/digit", false),
        ] {
            assert_eq!(is_git(Path::new(path)), want, "{path}");
        }
    }
}
