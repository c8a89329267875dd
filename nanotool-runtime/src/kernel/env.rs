//! The environment every command gets: the host's allowlisted variables, fixed values, and
//! the overrides that keep a workspace's own configuration from making a program run
//! another program.
//!
//! A workspace is untrusted input: a cloned repository carries a `.git/config` and hooks, a
//! folder carries a `json.py`. Programs that read such files and run what they name are
//! closed here, once for every tool, in the command's environment:
//!
//! - **Python** does not put the working directory (for `-m`) or the script's folder first on
//!   the module path (`PYTHONSAFEPATH=1`, Python 3.11 and later), nor the user's
//!   site-packages (`PYTHONNOUSERSITE=1`), and writes no `__pycache__` into the workspace
//!   (`PYTHONDONTWRITEBYTECODE=1`).
//! - **git** reads no system or user configuration (`GIT_CONFIG_NOSYSTEM`,
//!   `GIT_CONFIG_GLOBAL=/dev/null`, `GIT_ATTR_NOSYSTEM`), never prompts (`GIT_TERMINAL_PROMPT=0`,
//!   empty `GIT_ASKPASS`/`SSH_ASKPASS`), speaks only the local `file` transport
//!   (`GIT_ALLOW_PROTOCOL=file`, which overrides every `protocol.*` setting, so no `ext::`
//!   command and no network), uses no proxy command, no editor and no pager program, and takes
//!   no optional locks. Every configuration key that names a program to run is set at
//!   command-line precedence through `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`, which wins over
//!   the repository's own `.git/config`: the fixed keys of [`GIT_PROGRAM_KEYS`] (from
//!   `git help config`, with `safe.bareRepository=explicit`), and the keys of every named
//!   driver, tool, alias, remote and submodule that the configuration of any repository git
//!   may open from the working directory defines — its own, its submodules', repositories
//!   recorded inside it — read with their includes by the `git` module ([`GIT_NAMED_KEYS`]).
//!   The reading is checked before every call (a `stat` of each path it consulted) and done
//!   again when anything changed, whoever changed it. When it cannot be done whole (a
//!   limit, a file that cannot be read or parsed), git is refused: a call of git fails with
//!   the reason ([`GitConfigError`]) and any git a command starts finds `GIT_DIR` pointing
//!   nowhere ([`GIT_DIR_REFUSED`]).
//! - **`PATH`** keeps its absolute entries only (`absolute_path`): the kernel resolves
//!   with the same list, and no program the command runs looks a bare name up in the
//!   working directory.
//! - **Mercurial** reads no repository `hgrc` (`HGRCSKIPREPO=1`), whose hooks run on any
//!   command.
//!
//! The host's own additions ([`super::KernelSettings::env`]) are applied last and win.

mod git;

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::sandbox::spawn::CStrings;
use super::{DEFAULT_PATH, KernelError};
pub use git::GitConfigError;
use git::Scan;

/// Whether a host variable passes the allowlist.
pub(super) fn allowlisted(name: &OsStr) -> bool {
    matches!(name.as_bytes(), b"PATH" | b"HOME" | b"LANG" | b"TZ")
        || name.as_bytes().starts_with(b"LC_")
}

/// Fixed variables every command gets (after the allowlisted host ones, before the host's
/// additions).
pub const FIXED: &[(&str, &str)] = &[
    ("TERM", "dumb"),
    ("NO_COLOR", "1"),
    ("PAGER", "cat"),
    // Python: no workspace folder first on the module path, no user site, no bytecode files.
    ("PYTHONSAFEPATH", "1"),
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
    ("GIT_PROXY_COMMAND", "none"),
    ("GIT_PAGER", "cat"),
    ("GIT_EDITOR", ":"),
    ("GIT_SEQUENCE_EDITOR", ":"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    // Mercurial: no repository hgrc (its hooks run on any command), plain output.
    ("HGRCSKIPREPO", "1"),
    ("HGPLAIN", "1"),
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
            ("vcs", ""),
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
    parts: Parts,
    cwd: PathBuf,
    home: Option<PathBuf>,
    /// `GIT_DIR` as the host set it.
    git_dir: Option<PathBuf>,
    current: Mutex<Arc<CallEnv>>,
}

/// What every call's environment is made of, besides the git overrides.
#[derive(Debug)]
struct Parts {
    /// Allowlisted host variables and the fixed ones.
    base: BTreeMap<OsString, OsString>,
    /// The host's additions, checked.
    extra: Vec<(OsString, OsString)>,
    /// The sandbox's private temp dir, `TMPDIR` of confined commands.
    tmpdir: Option<PathBuf>,
}

/// The environment of one call.
#[derive(Debug)]
pub(super) struct CallEnv {
    /// For a command started directly.
    pub env: Vec<(OsString, OsString)>,
    /// For a confined command (with the sandbox's `TMPDIR`), ready for `execve`.
    pub confined: CStrings,
    /// [`Self::env`], ready for `execve`, for a command started unconfined.
    pub plain: CStrings,
    /// Why git is refused, when the repositories' configuration could not be read whole.
    pub refused: Option<GitConfigError>,
    scan: Scan,
}

impl ChildEnv {
    /// Checks the host's additions, reads the repositories around `cwd` and builds the first
    /// environment.
    pub(super) fn new(
        host: impl Iterator<Item = (OsString, OsString)>,
        extra: &[(String, String)],
        cwd: &Path,
        tmpdir: Option<&Path>,
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
        let scan = Scan::new(cwd, home.as_deref(), git_dir.as_deref());
        let parts = Parts {
            base,
            extra: checked,
            tmpdir: tmpdir.map(Path::to_path_buf),
        };
        let first = parts.assemble(scan).map_err(KernelError::Sandbox)?;
        Ok(ChildEnv {
            parts,
            cwd: cwd.to_path_buf(),
            home,
            git_dir,
            current: Mutex::new(Arc::new(first)),
        })
    }

    /// `call`'s environment with a tool's own variables set after every other (names checked
    /// by the caller, `RunSettings::check`): the blocks for a confined and a plain command.
    pub(super) fn with_tool_env(
        &self,
        call: &CallEnv,
        tool: &[(String, String)],
    ) -> io::Result<(CStrings, CStrings)> {
        let mut env: BTreeMap<OsString, OsString> = call.env.iter().cloned().collect();
        for (name, value) in tool {
            env.insert(name.into(), value.into());
        }
        let env: Vec<(OsString, OsString)> = env.into_iter().collect();
        let mut confined = env.clone();
        if let Some(tmp) = &self.parts.tmpdir {
            confined.retain(|(k, _)| k != "TMPDIR");
            confined.push(("TMPDIR".into(), tmp.as_os_str().to_owned()));
        }
        Ok((CStrings::env(&confined)?, CStrings::env(&env)?))
    }

    /// The environment as it is now: the same as the last call's unless a configuration
    /// file (or any path the last reading consulted) changed since, then read again.
    pub(super) fn current(&self) -> io::Result<Arc<CallEnv>> {
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if !current.scan.is_current() {
            let scan = Scan::new(&self.cwd, self.home.as_deref(), self.git_dir.as_deref());
            *current = Arc::new(self.parts.assemble(scan)?);
        }
        Ok(Arc::clone(&current))
    }
}

impl Parts {
    fn assemble(&self, scan: Scan) -> io::Result<CallEnv> {
        let mut env = self.base.clone();
        let overrides = git_overrides(&scan.names);
        env.insert(
            "GIT_CONFIG_COUNT".into(),
            overrides.len().to_string().into(),
        );
        for (i, (key, value)) in overrides.into_iter().enumerate() {
            env.insert(format!("GIT_CONFIG_KEY_{i}").into(), key.into());
            env.insert(format!("GIT_CONFIG_VALUE_{i}").into(), value.into());
        }
        for (name, value) in &self.extra {
            env.insert(name.clone(), value.clone());
        }
        // Fail closed: a git started by the command (a build, a script) finds no repository.
        if scan.refused.is_some() {
            env.insert("GIT_DIR".into(), GIT_DIR_REFUSED.into());
        }
        let path = env.get(OsStr::new("PATH")).cloned();
        env.insert("PATH".into(), absolute_path(path.as_deref()));
        let env: Vec<(OsString, OsString)> = env.into_iter().collect();
        let mut confined = env.clone();
        if let Some(tmp) = &self.tmpdir {
            confined.retain(|(k, _)| k != "TMPDIR");
            confined.push(("TMPDIR".into(), tmp.as_os_str().to_owned()));
            // git, which dies when it cannot read `~/.gitconfig` (out of a confined
            // command's reach), is already pointed at no global config (`FIXED`).
        }
        Ok(CallEnv {
            confined: CStrings::env(&confined)?,
            plain: CStrings::env(&env)?,
            env,
            refused: scan.refused.clone(),
            scan,
        })
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
        let env = ChildEnv::new(host, extra, cwd, None)?;
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
                !FIXED
                    .iter()
                    .any(|(k, _)| *k == name && !["TERM", "NO_COLOR", "PAGER"].contains(k))
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
        for (k, v) in FIXED {
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
