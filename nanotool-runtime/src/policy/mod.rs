//! Policy shared by every form: the deny list and the code-entry table, as data
//! ([`tables`]), and the checks over them: [`check_template`] for the template forms (macro
//! and descriptor), [`check_exec_argv`] for ExecTool's free text. The scanner that reads a
//! command against the tables is `scan`; the refusals and their messages are `error`
//! ([`PolicyError`]).
//!
//! ```
//! use nanotool_runtime::policy::{check_template, PolicyError, SlotFreedom};
//! use nanotool_runtime::template::Template;
//!
//! let free = |_: &str| SlotFreedom::Free;
//! let ok = |src: &str| check_template(&Template::parse(src).unwrap(), &free, &[]);
//! assert!(ok("wc -l <file>").is_ok());
//! assert!(ok("python3 -m json.tool <file>").is_ok());
//! assert!(matches!(ok("python3 -Ic <x>"), Err(PolicyError::CodeEntry { .. })));
//! assert!(matches!(ok("/bin/rm <path>"), Err(PolicyError::DeniedBinary { .. })));
//! ```
//!
//! # How a binary is named
//!
//! A binary is a bare name or a path; the policy judges it by its [`name_forms`]:
//!
//! - the basename: `/bin/rm`, `./rm`, `../../bin/rm`, `bin//rm` and `/bin/rm/` are all `rm`;
//! - a trailing `.exe` is dropped (`rm.exe`);
//! - ASCII case is folded: on a case-insensitive file system (macOS, Windows) `RM` runs `rm`,
//!   and no legitimate tool is named a case variant of a denied one;
//! - each trailing version component is dropped in turn, digits with the `-`, `_` or `.`
//!   before them: `python3.12` is matched as `python3.12`, `python3` and `python`;
//!   `bash-5.2` as `bash`; `ksh93` as `ksh`; `nc6` as `nc`; `run0` stays `run0` too. A
//!   legitimate tool that is a listed name plus digits would be refused; none is known
//!   (`nc6` is netcat6, `ssh2` an SSH client: both rightly denied). `sha256sum` has no
//!   trailing digits; `base64` also matches as `base`, which no table names.
//!
//! The deny list is [`DENIED_BINARIES`] (stated once, by group, in [`DENY_GROUPS`]; `mkfs*` a prefix rule), plus
//! [`DENIED_EQUIVALENTS`] (other programs with the same danger: `ash` for `sh`, `run0` for
//! `sudo`, `setsid` for `nohup`, `watch` for `sh`...), plus the host's additions, matched by
//! the same forms (a host that denies `python3` denies `python3.12`, not `python2`). The deny
//! list applies to the binary and to every command a launcher in the command runs
//! (`timeout 5 rm x`, `find . -exec rm {} +`, `git bisect run curl ...`).
//!
//! # The code-entry table
//!
//! [`tables::CODE_ENTRY`] lists, per binary, the options whose value is code
//! ([`tables::Role::Code`]: `python3 -c`, `awk -f`; [`tables::Role::Load`]: code loaded
//! beside the program, `perl -M`, `node -r`), the options that write or run configured
//! programs, delete files, or reach outside the working directory unseen
//! ([`tables::Role::Effect`]: `sort -o`, `find -delete`, `rsync --delete`, `find -L`, `grep
//! -R`; refused by ExecTool only), the options whose value may name another machine
//! ([`tables::Role::Remote`]: `tar -f host:x`), the flags that only check the program's syntax
//! ([`tables::Role::Check`]: `node --check`, `ruby -c`, `php -l`: the file is not run), and
//! what its operands are ([`tables::Operands`]: the program, all code, a command to run, a
//! subcommand; rsync's may be remote). Interpreters (python*, node, deno, bun, perl, ruby, php, lua, awk and kin,
//! sed, R, Tcl, expect, osascript, julia, java, dc, m4, gnuplot, sqlite3, psql, mysql),
//! editors, pagers and debuggers that run commands (vim, emacs, less, man, gdb, lldb), and
//! grep (only for `-R`), launchers (find, fd, git, tar, rsync, sort, rg, zip, tcpdump, make,
//! cmake, and the wrappers timeout, nice, ionice, stdbuf, taskset, chrt, prlimit, flock, time,
//! strace, ltrace, fakeroot, xvfb-run, valgrind, sshpass, ssh-agent, firejail, bwrap, entr...),
//! package and task runners (npx and kin, npm, pnpm, yarn, just, go-task, hyperfine,
//! watchexec, concurrently, nodemon), and cargo and go (`--config`, `-exec`). The common
//! getopt tools (cat, wc, head, diff, ...) are listed only for where `--` ends their options. `jq` is deliberately absent: its filters cannot run a
//! command.
//!
//! # How a command is read
//!
//! The scanner reads a command the way the binary's own option parser would, on the safe
//! side where it cannot know:
//!
//! - **Bundles**: `-Ic` is `-I -c`, `-le` is `-l -e`. A value-taking letter takes the rest of
//!   the bundle (`-cprint(1)`, `-Wignore`, `-mjson.tool`) or else the next token
//!   (`-W ignore -c X`). perl's `-l`/`-0` take only digits (`-lane`, `-0777`); node does not
//!   attach values, so `node -pe X` reads `X` as the code. A letter the table does not know
//!   is a flag: each entry lists every value-taking option of its binary.
//! - **Long options**: `--eval=X` and `--eval X`. GNU abbreviations: a `--name` of at least
//!   three characters (`--e`, `--ev`) that begins a code-entry or effect option is taken as
//!   that option, even when it would be ambiguous (safe side: a typo is refused, never let
//!   through); a prefix of exactly one plain option is that option.
//! - **Single-dash words**: `find -exec`, `gdb -ex` (`--ex` too), `java -javaagent:X`,
//!   `sqlite3 -cmd`, `zip -TT`.
//! - **The program operand**: the first operand, when no option gave the code
//!   (`python3 <script>`, `awk <prog> <file>`, `sed <script> <file>`: GNU sed's script is its
//!   first operand even after `-n`, which is why `sed -n <range>p` with a free `range` is
//!   refused). Options after the program belong to it (`python3 -m json.tool <file>`). sed permutes
//!   like GNU getopt: an `-e` anywhere gives the script. Where an unknown option may have
//!   taken the next token as its value (node, deno, bun, julia, java have too many options
//!   to list), the next operand *and* the one after are judged as the program.
//! - **A slot where an option could be**: a token whose literal text begins with `-` and
//!   whose option name holds a slot (`-<flags>`, `-I<x>`, `--<opt>=1`) is a site: the model
//!   would choose the option, `-c` included; and the token after it may be that option's
//!   value, so it is a site too. A token that *begins* with a slot is an operand: the
//!   validator ([`crate::spec::CommandSpec::render`]) lets a free value begin with `-` only
//!   where this scanner itself reads no option ([`not_option_tokens`]: an option's separate
//!   value, a data operand after a `--` that ends the options) and for a number whose minimum
//!   is negative (a constrained slot). A constrained slot there (an enum whose values
//!   are options, like `ls <mode> .`) is the author's own text: the policy does not see enum
//!   values, so `python3 <mode> <x>` with `mode` ∈ {`-c`} is the author's code entry.
//! - **`+command`** (less, vim and kin): a `+cmd` token is a command run at start
//!   (`less +!cmd`), and so is an operand that begins with a slot, since the validator keeps
//!   a value from beginning with `-` there but not with `+`: `less <file>` needs a `path` slot
//!   (rendered `./...`, never `+`), a constrained one, or `less -- <file>`.
//! - **Remote names** (`tar -f`, rsync's operands): a `:` before any `/` names another
//!   machine, reached through a remote shell. A slot standing before the value's first `/`
//!   must be constrained or a `path` (never such a `:`); ExecTool refuses a literal one.
//! - **Subcommands** (git, deno, bun, `git config`, `git bisect run`): options before the
//!   subcommand are global ones, after it the subcommand's. A slot as the subcommand is a
//!   site (a git alias can be `!cmd`), and every subcommand's options are judged after it.
//! - **Launchers**: the command a wrapper (`timeout 5 CMD`) or `find -exec CMD +` runs is
//!   read as a command of its own: its binary must be literal, is deny-checked, and its
//!   own code-entry sites count. A slot as that binary is refused even when constrained.
//! - **Old-style tar**: a first argument without a dash is option letters whose values follow
//!   in order (`tar xIf zstd a.tar`).
//!
//! # Templates and free text
//!
//! In a template the author wrote every literal, so literal code is fine (`python3 -c
//! print(1)`, `sed -i ...`, `sort -o out`), and a slot may stand where code goes only if it is
//! [`SlotFreedom::Constrained`] (integer, number, enum, or a string with a `pattern`: the
//! author vouches), or a [`SlotFreedom::Path`] at a site whose only danger is how the value is
//! spelled ([`CodeEntrySite::path_ok`]: a `+command` operand, a remote name). Where the
//! file's content is the code (`python3 <script>`, `awk -f <prog>`), a path is as free as any
//! string. In ExecTool's free text nothing is fixed: every code-entry option and
//! program operand is refused outright, as are effect options and any command a launcher
//! would run (ExecTool's allowlist vouches for the first binary only); sed runs only with a
//! `N[,M]p` script, make only with targets (no `VAR=value`).
//!
//! What does *not* live here: the template grammar ([`crate::template`]) and what values a
//! slot accepts ([`crate::slot`]); the policy only asks whether a slot is
//! [`SlotFreedom::Free`].

mod error;
mod scan;
pub mod tables;

use crate::template::Template;
use scan::{HitKind, Scanner, Word};
use std::ops::Range;

pub use error::PolicyError;
use error::why_of;
pub use scan::{Place, Site};
pub use tables::{DENIED_BINARIES, DENIED_EQUIVALENTS, DENY_GROUPS, DenyGroup};

/// How free a slot is: whether it could carry code if it stood where code goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotFreedom {
    /// A free string: it could carry anything.
    Free,
    /// A `path`: it names any file, but is always rendered `./relative` or `.`.
    /// It may stand where the only danger is how the value is spelled — a `+command` operand
    /// (`less <file>`: never `+cmd`), a `host:file` name (`tar -f <archive>`: never a `:`
    /// before its `/`) — but not where the file's *content* is code (`python3 <script>`,
    /// `awk -f <prog>`): there it is as free as a string.
    Path,
    /// An integer, number, enum, or a string with a `pattern`: it cannot carry code (for a
    /// pattern or an enum, the author vouches for that).
    Constrained,
}

/// The basename of a binary as written: `/bin/rm`, `./rm`, `bin//rm` and `/bin/rm/` → `rm`.
///
/// ```
/// use nanotool_runtime::policy::binary_basename;
/// assert_eq!(binary_basename("../../bin/rm"), "rm");
/// assert_eq!(binary_basename("grep"), "grep");
/// ```
pub fn binary_basename(binary: &str) -> &str {
    let trimmed = binary.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

/// The name the policy judges a binary by, with every version dropped: basename, no `.exe`,
/// ASCII lowercase, no trailing version (see the module doc). Matching uses every
/// intermediate form too ([`name_forms`]), so `run0` is still `run0`.
///
/// ```
/// use nanotool_runtime::policy::canonical_name;
/// assert_eq!(canonical_name("/usr/bin/python3.12"), "python");
/// assert_eq!(canonical_name("./BASH-5.2"), "bash");
/// assert_eq!(canonical_name("mkfs.ext4"), "mkfs.ext");
/// assert_eq!(canonical_name("sha256sum"), "sha256sum");
/// ```
pub fn canonical_name(binary: &str) -> String {
    name_forms(binary).pop().unwrap_or_default()
}

/// Every form a binary's name is matched by, most specific first: the lowercase basename
/// without `.exe`, then with one trailing version component dropped at a time.
///
/// ```
/// use nanotool_runtime::policy::name_forms;
/// assert_eq!(name_forms("/usr/bin/Python3.12"), ["python3.12", "python3", "python"]);
/// assert_eq!(name_forms("luajit-2.1"), ["luajit-2.1", "luajit-2", "luajit"]);
/// assert_eq!(name_forms("grep"), ["grep"]);
/// ```
pub fn name_forms(binary: &str) -> Vec<String> {
    let base = binary_basename(binary);
    let base = match base.len().checked_sub(4) {
        Some(cut) if base.is_char_boundary(cut) && base[cut..].eq_ignore_ascii_case(".exe") => {
            &base[..cut]
        }
        _ => base,
    };
    let lower = base.to_ascii_lowercase();
    let mut forms = vec![lower.clone()];
    let mut rest = lower.as_str();
    loop {
        let stem = rest.trim_end_matches(|c: char| c.is_ascii_digit());
        if stem.len() == rest.len() || stem.is_empty() {
            break;
        }
        let stem = stem.strip_suffix(['-', '_', '.']).unwrap_or(stem);
        if stem.is_empty() {
            break;
        }
        forms.push(stem.to_owned());
        rest = &lower[..stem.len()];
    }
    forms
}

/// Which deny-list entry a binary falls under, if any.
fn built_in_denial(binary: &str) -> Option<&'static str> {
    name_forms(binary).iter().find_map(|name| {
        if name.starts_with("mkfs") {
            return Some("mkfs*");
        }
        if let Some(entry) = DENIED_BINARIES.iter().find(|d| **d == name) {
            return Some(*entry);
        }
        DENIED_EQUIVALENTS
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, stands_for)| *stands_for)
    })
}

/// Whether a binary (as written in a template, a bare name or a path) is denied by the
/// built-in list ([`DENIED_BINARIES`], [`DENIED_EQUIVALENTS`]) or by `extra` (the host's
/// additions). A binary matches an entry when one of its [`name_forms`] is the entry's
/// lowercase basename: `/bin/rm`, `./RM` and `rm.exe` are all `rm`, and a host that denies
/// `python3` also denies `python3.12` (but not `python2`).
///
/// ```
/// use nanotool_runtime::policy::is_denied;
/// assert!(is_denied("/bin/rm", &[]));
/// assert!(is_denied("mkfs.ext4", &[]));
/// assert!(!is_denied("grep", &[]));
/// assert!(is_denied("./grep", &["grep".to_string()]));
/// ```
pub fn is_denied(binary: &str, extra: &[String]) -> bool {
    built_in_denial(binary).is_some() || host_denial(binary, extra)
}

fn host_denial(binary: &str, extra: &[String]) -> bool {
    if extra.is_empty() {
        return false;
    }
    let forms = name_forms(binary);
    extra.iter().any(|entry| {
        let entry = binary_basename(entry).to_ascii_lowercase();
        forms.contains(&entry)
    })
}

/// A slot standing where code goes: found by [`code_entry_sites`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeEntrySite {
    /// The slot's name.
    pub slot: String,
    /// The binary that would run the code (as written; a launcher's inner binary for
    /// `timeout 5 python3 -c <x>`).
    pub binary: String,
    /// Where it stands: the value of an option (`-c`, `--eval`, `-exec`), a program operand,
    /// the command a launcher runs, ...
    pub site: Site,
    /// What the slot would be there, e.g. "the code the interpreter runs".
    pub why: &'static str,
    /// The template text around it, e.g. `python3 -c <code>`.
    pub shown: String,
    /// The slot's byte range in the template source.
    pub span: Range<usize>,
    /// Whether only literal text may stand there (a command a launcher runs: its binary is
    /// never a slot, constrained or not).
    pub literal_only: bool,
    /// Whether a [`SlotFreedom::Path`] slot may stand there: the danger lies only in how the
    /// value is spelled (`less <file>` could be `+cmd`, `tar -f <archive>` could be
    /// `host:file`), which a path's `./...` rendering rules out.
    pub path_ok: bool,
}

/// Every slot of `template` that stands where code goes, in template order: as the value of
/// a code-entry option (`-c <x>`, `-c<x>`, `--eval=<x>`, `--ev <x>`), as a program operand
/// (`python3 <script>`, `sed <script> <file>`), as a launcher's option value (`git -c <cfg>`,
/// `tar --to-command=<x>`), as the command a launcher runs (`timeout 5 <cmd>`), or where it
/// chooses an option itself (`python3 -<flags> x`). Literal code is not a site: the author
/// wrote it.
///
/// ```
/// use nanotool_runtime::policy::{code_entry_sites, Site};
/// use nanotool_runtime::template::Template;
///
/// let t = Template::parse("python3 -c <code> <arg>").unwrap();
/// let sites = code_entry_sites(&t);
/// assert_eq!(sites.len(), 1);
/// assert_eq!((sites[0].slot.as_str(), sites[0].site), ("code", Site::ValueOf("-c")));
/// assert_eq!(sites[0].span, 11..17);
/// assert!(code_entry_sites(&Template::parse("wc -l <file>").unwrap()).is_empty());
/// ```
pub fn code_entry_sites(template: &Template) -> Vec<CodeEntrySite> {
    let mut sites: Vec<CodeEntrySite> = Vec::new();
    for hit in scan_template(template, &[]) {
        let literal_only = match hit.kind {
            HitKind::Code => false,
            HitKind::CommandBinary => true,
            HitKind::Effect | HitKind::Denied | HitKind::Launch | HitKind::TooDeep => continue,
        };
        for (slot, span) in &hit.slots {
            if let Some(known) = sites.iter_mut().find(|s| &s.slot == slot) {
                // One site per slot: the first reason, and the strictest rule.
                known.literal_only |= literal_only;
                known.path_ok &= hit.path_ok && !literal_only;
                continue;
            }
            sites.push(CodeEntrySite {
                slot: slot.clone(),
                binary: hit.binary.clone(),
                site: hit.site,
                why: hit.why,
                shown: format!("{} {}", hit.binary, hit.written),
                span: span.clone(),
                literal_only,
                path_ok: hit.path_ok && !literal_only,
            });
        }
    }
    sites
}

/// Whether the policy judges anything past `binary` in a command: only binaries in the
/// code-entry table (interpreters, launchers, wrappers, and the binaries with dangerous
/// options) have arguments it reads; for any other binary no slot value can change a verdict.
///
/// ```
/// use nanotool_runtime::policy::reads_arguments;
/// assert!(reads_arguments("python3"));
/// assert!(reads_arguments("/usr/bin/timeout"));
/// assert!(!reads_arguments("wc"));
/// assert!(!reads_arguments("jq"));
/// ```
pub fn reads_arguments(binary: &str) -> bool {
    tables::entry_for(&name_forms(binary)).is_some_and(|entry| !entry.reads_only_dashdash())
}

/// The indices (into [`Template::tokens`]) of the tokens that the binary cannot read as an
/// option, whatever they hold, so a value there may begin with `-`: the separate value of a
/// literal option that the binary's entry lists as taking one (`grep -rn -C 2 -e <pattern>`,
/// `git grep -n -e <pattern>`, `git log -S <text>`), and a data operand after a literal `--`
/// of a binary whose entry says `--` ends its options (`git log -- <path>`; never find's
/// expressions). A binary outside the tables has none.
///
/// ```
/// use nanotool_runtime::policy::not_option_tokens;
/// use nanotool_runtime::template::Template;
///
/// let t = |s: &str| not_option_tokens(&Template::parse(s).unwrap());
/// assert_eq!(t("grep -rn -C 2 -e <pattern> ."), [3, 5]);
/// assert_eq!(t("git grep -n -e <pattern>"), [4]);
/// assert_eq!(t("grep -F <text> ."), Vec::<usize>::new());
/// assert_eq!(t("git log --oneline -- <path>"), [4]);
/// assert_eq!(t("find -- <dir> -name x"), [4]);
/// ```
pub fn not_option_tokens(template: &Template) -> Vec<usize> {
    let mut scanner = Scanner::new(&[]);
    scanner.command(&Word::from_template(template), 0);
    let mut tokens = scanner.not_options;
    tokens.sort_unstable();
    tokens.dedup();
    tokens
}

/// Whether the binary's entry says a literal `--` ends its options (see
/// [`not_option_tokens`]); `false` for a binary outside the tables.
pub fn ends_options(binary: &str) -> bool {
    tables::entry_for(&name_forms(binary)).is_some_and(|entry| entry.dashdash)
}

fn scan_template(template: &Template, extra: &[String]) -> Vec<scan::Hit> {
    let mut scanner = Scanner::new(extra);
    scanner.command(&Word::from_template(template), 0);
    scanner.hits
}

/// Checks a parsed template against the deny list (built-in plus `extra_deny`, on the binary
/// and on every command a launcher in it runs) and the code-entry table: every code-entry
/// site ([`code_entry_sites`]) whose slot is [`SlotFreedom::Free`] is refused, so is a
/// [`SlotFreedom::Path`] slot except at a site where a path is harmless
/// ([`CodeEntrySite::path_ok`]: `less <file>`, `tar -f <archive>`), and a slot standing as a
/// launcher's command binary is refused whatever its freedom.
///
/// ```
/// use nanotool_runtime::policy::{check_template, PolicyError, SlotFreedom};
/// use nanotool_runtime::template::Template;
///
/// let sed = Template::parse("sed -n <range>p <path>").unwrap();
/// let pattern = |slot: &str| if slot == "range" { SlotFreedom::Constrained } else { SlotFreedom::Free };
/// assert_eq!(check_template(&sed, &pattern, &[]), Ok(()));
/// let free = |_: &str| SlotFreedom::Free;
/// let err = check_template(&sed, &free, &[]).unwrap_err();
/// assert!(matches!(err, PolicyError::CodeEntry { ref slot, .. } if slot == "range"));
/// assert_eq!(err.span(), Some(7..14));
/// ```
pub fn check_template(
    template: &Template,
    freedom: &dyn Fn(&str) -> SlotFreedom,
    extra_deny: &[String],
) -> Result<(), PolicyError> {
    if is_denied(template.binary(), extra_deny) {
        return Err(PolicyError::DeniedBinary {
            binary: template.binary().to_owned(),
            span: template.tokens().first().map(|t| t.span()),
        });
    }
    for hit in scan_template(template, extra_deny) {
        let literal_only = match hit.kind {
            HitKind::Effect | HitKind::Launch => continue,
            HitKind::Denied => {
                return Err(PolicyError::DeniedCommand {
                    launcher: hit.binary,
                    binary: hit.written,
                    span: hit.span,
                });
            }
            HitKind::TooDeep => {
                return Err(PolicyError::TooDeep {
                    launcher: hit.binary,
                    span: hit.span,
                });
            }
            HitKind::Code => false,
            HitKind::CommandBinary => true,
        };
        let refused = hit.slots.iter().find(|(slot, _)| {
            literal_only
                || match freedom(slot) {
                    SlotFreedom::Free => true,
                    SlotFreedom::Path => !hit.path_ok,
                    SlotFreedom::Constrained => false,
                }
        });
        if let Some((slot, span)) = refused {
            return Err(PolicyError::CodeEntry {
                slot: slot.clone(),
                shown: format!("{} {}", hit.binary, hit.written).into(),
                binary: hit.binary,
                site: hit.site,
                why: hit.why,
                span: span.clone(),
                path_ok: hit.path_ok && !literal_only,
            });
        }
    }
    Ok(())
}

/// ExecTool's layer 4 (see [`crate::exec_tool`]): checks a free-text argv, where nothing is fixed. Refuses a
/// denied binary (also as the command of a launcher: `timeout 5 rm x`), every code-entry
/// option of an interpreter (bundles `-Ic`, attached `-cprint(1)`, abbreviations `--ev`),
/// an interpreter's program operand (`python3 script.py`, `awk '{...}' f`), and the
/// launcher and writer options of common binaries (`find -exec/-delete/-fprint...`,
/// `git -c/--output/--upload-pack/--ext-diff...`, `rg --pre`, `tar --to-command...`,
/// `sort -o`, `sed -i`); sed runs only with a `N[,M]p` script.
///
/// ```
/// use nanotool_runtime::policy::check_exec_argv;
/// let argv = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
/// assert!(check_exec_argv(&argv("git log -n 3")).is_ok());
/// assert!(check_exec_argv(&argv("sed -n 1,5p notes.txt")).is_ok());
/// assert!(check_exec_argv(&argv("git -c alias.x=!sh x")).is_err());
/// assert!(check_exec_argv(&argv("python3 -Ic print(1)")).is_err());
/// ```
pub fn check_exec_argv(argv: &[String]) -> Result<(), PolicyError> {
    check_exec_argv_with(argv, &[])
}

/// " (`--out=f` reads as `--output`)" when an abbreviation or bundle was resolved.
fn read_as(written: &str, site: Site) -> String {
    let first = written.split(' ').next().unwrap_or(written);
    let name = first.split('=').next().unwrap_or(first);
    match site {
        Site::ValueOf(option) if name != option && option.starts_with('-') => {
            format!(" (`{first}` reads as `{option}`)")
        }
        _ => String::new(),
    }
}

/// [`check_exec_argv`] with the host's extra deny list, applied to the binary and to every
/// command a launcher in the argv runs.
pub fn check_exec_argv_with(argv: &[String], extra_deny: &[String]) -> Result<(), PolicyError> {
    let Some(binary) = argv.first() else {
        return Err(PolicyError::EmptyCommand);
    };
    if is_denied(binary, extra_deny) {
        return Err(PolicyError::DeniedBinary {
            binary: binary.clone(),
            span: None,
        });
    }
    let mut scanner = Scanner::new(extra_deny);
    scanner.command(&Word::from_argv(argv), 0);
    for hit in scanner.hits {
        let why = match hit.kind {
            HitKind::Denied => {
                return Err(PolicyError::DeniedCommand {
                    launcher: hit.binary,
                    binary: hit.written,
                    span: None,
                });
            }
            HitKind::TooDeep => {
                return Err(PolicyError::TooDeep {
                    launcher: hit.binary,
                    span: None,
                });
            }
            HitKind::Code if hit.exec_ok => continue,
            HitKind::Code | HitKind::CommandBinary | HitKind::Launch => match hit.site {
                Site::At(Place::Program | Place::Operand | Place::Subcommand | Place::Command) => {
                    format!(
                        "`{}` would be {}",
                        hit.written,
                        why_of(hit.why, &hit.binary)
                    )
                }
                site => format!(
                    "`{site}` takes {}{}",
                    why_of(hit.why, &hit.binary),
                    read_as(&hit.written, site)
                ),
            },
            HitKind::Effect => format!("{}{}", hit.why, read_as(&hit.written, hit.site)),
        };
        return Err(PolicyError::ExecOption {
            binary: hit.binary,
            option: hit.written,
            why,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_stay_small_enough_to_return_by_value() {
        // `SpecError` wraps `PolicyError`; clippy's `result_large_err` draws the line at 128.
        assert!(std::mem::size_of::<PolicyError>() <= 120);
    }
}
