//! [`PolicyError`]: what the policy refuses, and its messages: where a slot stands ("the
//! value of `-c`", "the program operand"), what it would be there, and what to write instead.

use super::scan::{self, Place, Site};
use super::tables;
use super::{built_in_denial, name_forms};
use std::ops::Range;
use thiserror::Error;

/// A template or an argv the policy refuses. Every message says what is wrong and what to
/// write instead; [`PolicyError::span`] points into the template source where it can.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PolicyError {
    /// The binary is on the deny list (built-in or the host's).
    #[error("binary `{binary}` is denied: {}", denial_text(binary))]
    DeniedBinary {
        /// The binary as written.
        binary: String,
        /// The binary in the template source (`None` for free text).
        span: Option<Range<usize>>,
    },
    /// A template has more combinations of enum values and left-out optional slots than are
    /// checked ([`crate::spec::MAX_VARIANTS`]).
    #[error(
        "more than {limit} combinations of enum values and left-out optional slots to check: \
         split the tool, or give its optional slots defaults"
    )]
    TooManyVariants {
        /// The most combinations checked.
        limit: usize,
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
    /// A slot stands where code goes and is free to carry anything.
    #[error("{}", code_entry_text(shown, slot, binary, *site, why, *path_ok))]
    CodeEntry {
        /// The slot's name.
        slot: String,
        /// The binary that would run the code (basename as written).
        binary: String,
        /// Where the slot stands: the value of an option (`-c`, `--eval`), a program operand,
        /// the command a launcher runs, ...
        site: Site,
        /// What the slot would be there, e.g. "the code the interpreter runs".
        why: &'static str,
        /// The template text around the slot, e.g. `python3 -c <code>`.
        shown: Box<str>,
        /// The slot's byte range in the template source.
        span: Range<usize>,
        /// A `path` slot would be accepted there ([`CodeEntrySite::path_ok`](super::CodeEntrySite::path_ok)).
        path_ok: bool,
    },
    /// ExecTool (free text, nothing fixed) refuses a code-entry, launcher or writer option
    /// outright (see [`crate::exec_tool`]).
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
    /// Launchers nested too deep to read (`nice nice nice ... CMD`).
    #[error(
        "`{launcher}` runs launchers nested more than {} deep: write the command without the extra launchers",
        scan::MAX_DEPTH
    )]
    TooDeep {
        /// The innermost launcher read.
        launcher: String,
        /// Where the command it would run stands in the template source (`None` for an argv).
        span: Option<Range<usize>>,
    },
    /// An empty argv.
    #[error("empty command: write the binary first, e.g. `git log -n 3`")]
    EmptyCommand,
}

/// Where a site stands, in words: "the value of `-c`", "the program operand".
fn place(site: Site) -> String {
    match site {
        Site::ValueOf(option) => format!("the value of `{option}`"),
        Site::At(Place::PlusCommand) => "a `+command`".to_owned(),
        Site::At(
            Place::Program
            | Place::Operand
            | Place::Subcommand
            | Place::Command
            | Place::OptionName
            | Place::OptionValue,
        ) => format!("the {site}"),
    }
}

/// A table's `why`, said of this binary ("the code the interpreter runs" → "the code python3
/// runs").
pub(super) fn why_of(why: &str, binary: &str) -> String {
    why.replace("the interpreter", binary)
}

fn code_entry_text(
    shown: &str,
    slot: &str,
    binary: &str,
    site: Site,
    why: &str,
    path_ok: bool,
) -> String {
    let fix = if site == Site::At(Place::Command) {
        "write the command as literal text in the template"
    } else if path_ok {
        "if it names a file, make the slot a `path` (rendered `./...`, it never can be this); else fix the text in the template, or make the slot an integer, number, enum, or a string with a `pattern`"
    } else {
        "fix the code in the template, or make the slot an integer, number, enum, or a string with a `pattern`"
    };
    format!(
        "`{shown}`: slot `{slot}` is {} of {binary}: {}; {fix}",
        place(site),
        why_of(why, binary)
    )
}

fn denial_text(binary: &str) -> String {
    match built_in_denial(binary) {
        Some(entry) => {
            let as_entry = if name_forms(binary).iter().any(|f| f == entry) {
                String::new()
            } else {
                format!(" (denied as `{entry}`)")
            };
            // Every entry belongs to a group, and every equivalent stands for an entry: a
            // unit test holds both.
            let why =
                tables::deny_group(entry).map_or("it is on the built-in deny list", |g| g.why);
            format!(
                "{why}{as_entry}; nanotool never runs it in any form: use a tool that does only what you need"
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
            PolicyError::DeniedBinary { span, .. } => span.clone(),
            PolicyError::DeniedCommand { span, .. } | PolicyError::TooDeep { span, .. } => {
                span.clone()
            }
            _ => None,
        }
    }
}
