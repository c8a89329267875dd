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
//!   `git help config`), and the keys of every named driver, tool, alias, remote and
//!   submodule the repository's configuration defines (read, with its includes, when the
//!   kernel is built: [`GIT_NAMED_KEYS`]).
//! - **Mercurial** reads no repository `hgrc` (`HGRCSKIPREPO=1`), whose hooks run on any
//!   command.
//!
//! The host's own additions ([`super::KernelSettings::env`]) are applied last and win.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::{DEFAULT_PATH, KernelError};

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
];

/// git configuration keys that name a program and for which every value runs one (no value
/// means "none"): each is set, to a program that does nothing, only when the repository's
/// configuration defines it, so a plain repository's output stays the same.
pub const GIT_DEFINED_KEYS: &[(&str, &str)] = &[("diff.external", "true")];

/// git configuration keys under a name the repository chooses (`diff.<driver>.textconv`):
/// for each section, the keys that run a program and their neutral values. Every name the
/// repository's configuration defines in these sections gets them.
pub const GIT_NAMED_KEYS: &[(&str, &[(&str, &str)])] = &[
    // `true` prints nothing: a driver-routed file shows no external diff; textconv empty
    // means none.
    ("diff", &[("command", "true"), ("textconv", "")]),
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

/// Files of configuration read when looking for names, includes counted.
const MAX_CONFIG_FILES: usize = 16;
/// Bytes of one configuration file read.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The child's environment: allowlisted host variables, the fixed ones (with the git
/// overrides for the repository around `cwd`, if any), the host's additions.
pub(super) fn child_env(
    host: impl Iterator<Item = (OsString, OsString)>,
    extra: &[(String, String)],
    cwd: &Path,
) -> Result<Vec<(OsString, OsString)>, KernelError> {
    let mut env: BTreeMap<OsString, OsString> = host.filter(|(k, _)| allowlisted(k)).collect();
    env.entry("PATH".into())
        .or_insert_with(|| DEFAULT_PATH.into());
    for (k, v) in FIXED {
        env.insert(k.into(), v.into());
    }
    let home = env.get(OsStr::new("HOME")).map(PathBuf::from);
    let overrides = git_overrides(cwd, home.as_deref());
    env.insert(
        "GIT_CONFIG_COUNT".into(),
        overrides.len().to_string().into(),
    );
    for (i, (key, value)) in overrides.into_iter().enumerate() {
        env.insert(format!("GIT_CONFIG_KEY_{i}").into(), key.into());
        env.insert(format!("GIT_CONFIG_VALUE_{i}").into(), value.into());
    }
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
        env.insert(name.into(), value.into());
    }
    Ok(env.into_iter().collect())
}

/// The git configuration set at command-line precedence for commands run in `cwd`: the fixed
/// program keys, then the program keys of every named section and alias the repository
/// around `cwd` defines.
pub fn git_overrides(cwd: &Path, home: Option<&Path>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = GIT_PROGRAM_KEYS
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let Some(names) = find_git_dir(cwd).map(|dir| RepoNames::read(&dir, home)) else {
        return out;
    };
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

/// The git directory of the repository around `cwd`: the first `.git` (a folder, or a file
/// `gitdir: <path>`) from `cwd` up.
fn find_git_dir(cwd: &Path) -> Option<PathBuf> {
    for dir in cwd.ancestors() {
        let dot_git = dir.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        if meta.is_dir() {
            return Some(dot_git);
        }
        if meta.is_file() {
            let text = read_bounded(&dot_git)?;
            let path = text.trim().strip_prefix("gitdir:")?.trim();
            return Some(dir.join(path));
        }
    }
    None
}

fn read_bounded(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut text = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_CONFIG_BYTES)
        .read_to_end(&mut text)
        .ok()?;
    Some(String::from_utf8_lossy(&text).into_owned())
}

/// The names a repository's configuration defines: `(section, subsection)` pairs and alias
/// names, gathered from its configuration files and everything they include.
#[derive(Default)]
struct RepoNames {
    subsections: Vec<(String, String)>,
    aliases: Vec<String>,
    /// `section.key` of every variable outside a subsection.
    keys: Vec<String>,
    files: usize,
}

impl RepoNames {
    fn read(git_dir: &Path, home: Option<&Path>) -> RepoNames {
        let mut names = RepoNames::default();
        let mut dirs = vec![git_dir.to_path_buf()];
        // A linked worktree's own folder names the common one.
        if let Some(common) = read_bounded(&git_dir.join("commondir")) {
            dirs.push(git_dir.join(common.trim()));
        }
        for dir in dirs {
            for file in ["config", "config.worktree"] {
                names.read_file(&dir.join(file), home, 0);
            }
        }
        names.subsections.sort();
        names.subsections.dedup();
        names.aliases.sort();
        names.aliases.dedup();
        names
    }

    fn read_file(&mut self, path: &Path, home: Option<&Path>, depth: usize) {
        if depth > 8 || self.files >= MAX_CONFIG_FILES {
            return;
        }
        let Some(text) = read_bounded(path) else {
            return;
        };
        self.files += 1;
        let base = path.parent().unwrap_or(Path::new("/"));
        let mut section = String::new();
        let mut subsection: Option<String> = None;
        for raw in join_continued(&text) {
            let mut line = raw.trim_start();
            if let Some(rest) = line.strip_prefix('[') {
                let Some((header, after)) = parse_header(rest) else {
                    continue;
                };
                (section, subsection) = header;
                if let Some(sub) = &subsection {
                    self.subsections.push((section.clone(), sub.clone()));
                }
                // A variable may follow the header on the same line.
                line = after.trim_start();
            }
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            let (key, value) = match line.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v)),
                None => (line.trim(), None),
            };
            if subsection.is_none() {
                self.keys
                    .push(format!("{section}.{}", key.to_ascii_lowercase()));
                if section.eq_ignore_ascii_case("alias") {
                    self.aliases.push(key.to_ascii_lowercase());
                }
            }
            let including = (section.eq_ignore_ascii_case("include") && subsection.is_none())
                || section.eq_ignore_ascii_case("includeif");
            if including
                && key.eq_ignore_ascii_case("path")
                && let Some(value) = value
            {
                let value = config_value(value);
                let target = match value.strip_prefix("~/") {
                    Some(rest) => match home {
                        Some(home) => home.join(rest),
                        None => continue,
                    },
                    None => base.join(&value),
                };
                self.read_file(&target, home, depth + 1);
            }
        }
    }
}

/// Lines of a configuration file, a line ending in `\` joined with the next.
fn join_continued(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        match line.strip_suffix('\\') {
            Some(head) if !head.ends_with('\\') => current.push_str(head),
            _ => {
                current.push_str(line);
                lines.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// `section "sub"]rest` or `section.sub]rest` (the text after `[`): the section (lower
/// case), the subsection, and what follows the `]`.
fn parse_header(rest: &str) -> Option<((String, Option<String>), &str)> {
    let name_end = rest.find(|c: char| c == ']' || c.is_whitespace() || c == '"')?;
    let name = &rest[..name_end];
    let after_name = rest[name_end..].trim_start();
    if let Some(quoted) = after_name.strip_prefix('"') {
        // `[section "sub"]`: the subsection keeps its case; `\x` is `x`.
        let mut sub = String::new();
        let mut chars = quoted.char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, next)) = chars.next() {
                        sub.push(next);
                    }
                }
                '"' => {
                    end = Some(i + 1);
                    break;
                }
                c => sub.push(c),
            }
        }
        let tail = quoted[end?..].trim_start().strip_prefix(']')?;
        return Some(((name.to_ascii_lowercase(), Some(sub)), tail));
    }
    let tail = after_name.strip_prefix(']')?;
    // `[section.sub]`: the old form, whose subsection is lower-cased.
    Some(match name.split_once('.') {
        Some((section, sub)) => (
            (section.to_ascii_lowercase(), Some(sub.to_ascii_lowercase())),
            tail,
        ),
        None => ((name.to_ascii_lowercase(), None), tail),
    })
}

/// A configuration value as git reads it: quotes removed, `\"`, `\\`, `\t`, `\n` unescaped,
/// a comment after `#` or `;` outside quotes dropped, outer space trimmed.
fn config_value(raw: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = raw.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => match chars.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => {}
            },
            '#' | ';' if !quoted => break,
            c => out.push(c),
        }
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let keys: Vec<String> = git_overrides(&dir.join("repo/sub"), None)
            .into_iter()
            .skip(GIT_PROGRAM_KEYS.len())
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        std::fs::remove_dir_all(&dir).unwrap();
        for want in [
            "diff.ev\"il.command=true",
            "diff.ev\"il.textconv=",
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
}
