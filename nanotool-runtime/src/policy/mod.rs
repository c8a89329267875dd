//! Policy shared by every form (DESIGN §4): the deny list and the code-entry table, as data
//! ([`tables`]), and the checks over them.
//!
//! # How a binary is named
//!
//! A template's binary is a bare name or a path; the policy always judges its
//! [`canonical_name`]:
//!
//! - the basename: `/bin/rm`, `./rm`, `../../bin/rm`, `bin//rm` and `/bin/rm/` are all `rm`;
//! - a trailing `.exe` is dropped (`rm.exe`);
//! - ASCII case is folded: on a case-insensitive file system (macOS, Windows) `RM` runs `rm`,
//!   and no legitimate tool is named a case variant of a denied one;
//! - a version suffix is dropped: trailing digits and dots, and the `-`, `_` or `.` before
//!   them (`bash5` and `bash-5.2` are `bash`, `python3.12` is `python`, `luajit-2.1` is
//!   `luajit`, `ksh93` is `ksh`, `nc6` is `nc`). Only a suffix of digits is dropped:
//!   `sha256sum` stays itself, and `base64` or `bzip2` become `base` and `bzip`, which no
//!   table names. A legitimate tool that is a listed name plus digits would be refused; none
//!   is known (`nc6` is netcat6, `ssh2` an SSH client: both rightly denied).
//!
//! [`binary_basename`] is the first step alone, for display.
//!
//! The deny list is [`DENIED_BINARIES`] (exactly DESIGN's list, `mkfs*` a prefix rule), plus
//! [`DENIED_EQUIVALENTS`] (other programs with the same danger: `ash` for `sh`, `run0` for
//! `sudo`, ...), plus the host's additions, matched the same way.
//!
//! What does *not* live here: the template grammar ([`crate::template`]) and what values a
//! slot accepts ([`crate::slot`]); the policy only asks whether a slot is
//! [`SlotFreedom::Free`].

pub mod tables;

use crate::template::Template;
use std::ops::Range;
use thiserror::Error;

pub use tables::{DENIED_BINARIES, DENIED_EQUIVALENTS};

/// How free a slot is: whether it could carry code if it stood where code goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotFreedom {
    /// A free string or path: it could carry anything.
    Free,
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
    let forms = name_forms(binary);
    extra.iter().any(|entry| {
        let entry = binary_basename(entry).to_ascii_lowercase();
        forms.contains(&entry)
    })
}

/// A template or an argv the policy refuses. Every message says what is wrong and what to
/// write instead; [`PolicyError::span`] points into the template source where it can.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PolicyError {
    /// The binary is on the deny list (built-in or the host's).
    #[error("binary `{binary}` is denied: {}", denial_text(binary))]
    DeniedBinary {
        /// The binary as written.
        binary: String,
    },
    /// A launcher (`timeout`, `nice`, `find -exec`, ...) would run a denied binary.
    #[error(
        "`{launcher}` would run `{binary}`, which is denied: {}",
        denial_text(binary)
    )]
    DeniedCommand {
        /// The launcher as written (the template's binary, or an inner launcher).
        launcher: String,
        /// The denied binary as written.
        binary: String,
        /// Where `binary` stands in the template source (`None` for an argv).
        span: Option<Range<usize>>,
    },
    /// A slot stands where code goes (DESIGN §4) and is free to carry anything.
    #[error(
        "`{shown}`: slot `{slot}` is {why} (`{option}` of {binary}); {}",
        if *literal_only {
            "write that part as literal text in the template"
        } else {
            "fix the code in the template, or make the slot an integer, number, enum, or a string with a `pattern`"
        }
    )]
    CodeEntry {
        /// The slot's name.
        slot: String,
        /// The binary that would run the code (basename as written).
        binary: String,
        /// The option (`-c`, `--eval`) or operand (`<script> operand`) the slot stands in.
        option: &'static str,
        /// What the slot would be there, e.g. "the code the interpreter runs".
        why: &'static str,
        /// The template text around the slot, e.g. `python3 -c <code>`.
        shown: String,
        /// The slot's byte range in the template source.
        span: Range<usize>,
        /// Whether even a constrained slot is refused here (a launcher's command binary).
        literal_only: bool,
    },
    /// ExecTool (free text, nothing fixed) refuses a code-entry, launcher or writer option
    /// outright (DESIGN §8).
    #[error(
        "`{binary} {option}`: {why}; free-text commands never do this: use a command tool whose template fixes it"
    )]
    ExecOption {
        /// The binary as written.
        binary: String,
        /// The option or operand as written.
        option: String,
        /// Why it is refused.
        why: String,
    },
    /// An empty argv.
    #[error("empty command: write the binary first, e.g. `git log -n 3`")]
    EmptyCommand,
}

fn denial_text(binary: &str) -> String {
    match built_in_denial(binary) {
        Some(entry) => {
            let as_entry = if name_forms(binary).iter().any(|f| f == entry) {
                String::new()
            } else {
                format!(" (denied as `{entry}`)")
            };
            format!(
                "{}{as_entry}; nanotool never runs it in any form: use a tool that does only what you need",
                tables::deny_reason(entry)
            )
        }
        None => "the host's deny list forbids it; use another tool".to_owned(),
    }
}

impl PolicyError {
    /// The byte range in the template source to put the caret under, when known.
    pub fn span(&self) -> Option<Range<usize>> {
        match self {
            PolicyError::CodeEntry { span, .. } => Some(span.clone()),
            PolicyError::DeniedCommand { span, .. } => span.clone(),
            _ => None,
        }
    }
}

/// A slot standing where code goes: found by [`code_entry_sites`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeEntrySite {
    /// The slot's name.
    pub slot: String,
    /// The binary that would run the code (as written; a launcher's inner binary for
    /// `timeout 5 python3 -c <x>`).
    pub binary: String,
    /// The option (`-c`, `--eval`, `-exec`) or operand (`<script> operand`) it stands in.
    pub option: &'static str,
    /// What the slot would be there, e.g. "the code the interpreter runs".
    pub why: &'static str,
    /// The template text around it, e.g. `python3 -c <code>`.
    pub shown: String,
    /// The slot's byte range in the template source.
    pub span: Range<usize>,
    /// Whether only literal text may stand there (a command a launcher runs: its binary is
    /// never a slot, constrained or not).
    pub literal_only: bool,
}

/// Every slot of `template` that stands where code goes.
pub fn code_entry_sites(template: &Template) -> Vec<CodeEntrySite> {
    let _ = template;
    Vec::new()
}

/// Checks a parsed template against the deny list (built-in plus `extra`) and the code-entry
/// table; `freedom` tells how free each slot is.
pub fn check_template(
    template: &Template,
    freedom: &dyn Fn(&str) -> SlotFreedom,
    extra_deny: &[String],
) -> Result<(), PolicyError> {
    if is_denied(template.binary(), extra_deny) {
        return Err(PolicyError::DeniedBinary {
            binary: template.binary().to_owned(),
        });
    }
    for site in code_entry_sites(template) {
        if site.literal_only || freedom(&site.slot) == SlotFreedom::Free {
            return Err(PolicyError::CodeEntry {
                slot: site.slot,
                binary: site.binary,
                option: site.option,
                why: site.why,
                shown: site.shown,
                span: site.span,
                literal_only: site.literal_only,
            });
        }
    }
    Ok(())
}

/// ExecTool's layer 4: checks a free-text argv (already split).
pub fn check_exec_argv(argv: &[String]) -> Result<(), PolicyError> {
    let Some(binary) = argv.first() else {
        return Err(PolicyError::EmptyCommand);
    };
    if is_denied(binary, &[]) {
        return Err(PolicyError::DeniedBinary {
            binary: binary.clone(),
        });
    }
    Ok(())
}
