//! [`SpecError`]: why a [`CommandSpec`] could not be built, where in the template, and the
//! caret line under it.

use super::ExitCodeError;
use crate::kernel::RunSettingsError;
use crate::policy::PolicyError;
use crate::template::TemplateError;
use std::ops::Range;
use thiserror::Error;

fn variant_fix() -> &'static str {
    "or keep the enum's values from changing how the command reads (write an option in the \
     template itself), or give the optional slot a default"
}

/// Why a [`CommandSpec`](super::CommandSpec) could not be built (error 613 in a descriptor; a compile error in the
/// code form).
#[derive(Debug, Clone, Error)]
pub enum SpecError {
    /// The template does not parse.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// The policy refuses the template.
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// The policy refuses the command the template becomes when an enum slot takes one of its
    /// values or an optional slot is left out: `python3 <flag> <arg>` with `flag` one of `-u`,
    /// `-c` puts `arg` where python3 takes code; `python3 <name> <arg>` with `name` left out
    /// makes `arg` the program.
    #[error(
        "when {assignment}, the command reads `{variant}`: {error}; {}",
        variant_fix()
    )]
    PolicyVariant {
        /// Which slots took which value (or were left out).
        assignment: String,
        /// The template as it then reads.
        variant: String,
        /// What the policy says of it.
        error: Box<PolicyError>,
        /// The first of those slots' placeholders in the template.
        span: Range<usize>,
    },
    /// The tool name does not match `^[A-Za-z0-9_-]{1,64}$`.
    #[error(
        "invalid tool name `{name}`: use 1 to 64 ASCII letters, digits, `_` or `-` (e.g. `search_text`)"
    )]
    InvalidName {
        /// The name as given.
        name: String,
    },
    /// The tool description is empty.
    #[error("tool `{name}` has an empty description: say what the tool does, for the model")]
    EmptyDescription {
        /// The tool's name.
        name: String,
    },
    /// A placeholder of the template has no slot spec.
    #[error(
        "slot `{slot}` appears in the template but has no spec: {}",
        if *braced {
            format!("if `{{{slot}}}` is literal text, write `{{{{{slot}}}}}` (as in Rust's `format!`, `{{{{` and `}}}}` write a literal brace); if it is a slot, describe it (its kind and description)")
        } else {
            "describe it (its kind and description) or remove the placeholder".to_owned()
        }
    )]
    SlotWithoutSpec {
        /// The slot's name.
        slot: String,
        /// The placeholder in the template.
        span: Range<usize>,
        /// The placeholder was written `{name}`: it may be meant as literal braces
        /// (`git rev-parse @{u}`), which `{{name}}` writes.
        braced: bool,
    },
    /// A slot spec names no placeholder of the template.
    #[error(
        "slot `{slot}` has a spec but the template has no `<{slot}>`: add the placeholder or remove the spec"
    )]
    SpecWithoutSlot {
        /// The spec's name.
        slot: String,
    },
    /// Two specs share one name.
    #[error("slot `{slot}` has two specs: keep one")]
    DuplicateSpec {
        /// The name given twice.
        slot: String,
        /// The placeholder in the template, if there is one.
        span: Option<Range<usize>>,
    },
    /// A slot's description is empty.
    #[error("slot `{slot}` has an empty description: say what the model should write there")]
    EmptySlotDescription {
        /// The slot's name.
        slot: String,
        /// The placeholder in the template.
        span: Range<usize>,
    },
    /// An enum slot has no values.
    #[error("enum slot `{slot}` has no values: list the values the model may choose from")]
    EmptyEnum {
        /// The slot's name.
        slot: String,
        /// The placeholder in the template.
        span: Range<usize>,
    },
    /// An enum value cannot be argv text.
    #[error("enum slot `{slot}`: value `{}` {reason}", crate::slot::shown(value))]
    EnumValue {
        /// The slot's name.
        slot: String,
        /// The value at fault.
        value: String,
        /// Why.
        reason: String,
        /// The placeholder in the template.
        span: Range<usize>,
    },
    /// A `pattern` on a slot that is not a string.
    #[error(
        "slot `{slot}`: a `pattern` applies to string slots only; make it a string slot or drop the pattern"
    )]
    PatternNotForKind {
        /// The slot's name.
        slot: String,
        /// The placeholder in the template.
        span: Range<usize>,
    },
    /// The pattern is not a valid regex.
    #[error("slot `{slot}`: `{pattern}` is not a valid regex: {message}")]
    InvalidPattern {
        /// The slot's name.
        slot: String,
        /// The pattern as written.
        pattern: String,
        /// The regex error.
        message: String,
        /// The placeholder in the template.
        span: Range<usize>,
    },
    /// `minimum`/`maximum` on a slot that is not an integer or number.
    #[error(
        "slot `{slot}`: `minimum`/`maximum` apply to integer and number slots only; change the kind or drop them"
    )]
    RangeNotForKind {
        /// The slot's name.
        slot: String,
        /// The placeholder in the template.
        span: Range<usize>,
    },
    /// The range is empty or its bounds are not finite.
    #[error("slot `{slot}`: {reason}")]
    InvalidRange {
        /// The slot's name.
        slot: String,
        /// What is wrong.
        reason: String,
        /// The placeholder in the template.
        span: Range<usize>,
    },
    /// The default does not validate against its own slot.
    #[error("slot `{slot}`: invalid default: {reason}")]
    InvalidDefault {
        /// The slot's name.
        slot: String,
        /// Why, as a call's value would be refused.
        reason: String,
        /// The placeholder in the template.
        span: Range<usize>,
    },
    /// A run setting of the tool (`timeout`, `max_output`, `env`) cannot be used.
    #[error(transparent)]
    Settings(#[from] RunSettingsError),
    /// A declared exit status that is not a failure (`exit_codes`) cannot be used.
    #[error(transparent)]
    ExitCode(#[from] ExitCodeError),
}

impl SpecError {
    /// The byte range in the template source this error is about, where it has one.
    pub fn span(&self) -> Option<Range<usize>> {
        match self {
            SpecError::Template(e) => Some(e.span()),
            SpecError::Policy(e) => e.span(),
            SpecError::PolicyVariant { span, .. } => Some(span.clone()),
            SpecError::InvalidName { .. }
            | SpecError::EmptyDescription { .. }
            | SpecError::SpecWithoutSlot { .. }
            | SpecError::Settings(_)
            | SpecError::ExitCode(_) => None,
            SpecError::DuplicateSpec { span, .. } => span.clone(),
            SpecError::SlotWithoutSpec { span, .. }
            | SpecError::EmptySlotDescription { span, .. }
            | SpecError::EmptyEnum { span, .. }
            | SpecError::EnumValue { span, .. }
            | SpecError::PatternNotForKind { span, .. }
            | SpecError::InvalidPattern { span, .. }
            | SpecError::RangeNotForKind { span, .. }
            | SpecError::InvalidRange { span, .. }
            | SpecError::InvalidDefault { span, .. } => Some(span.clone()),
        }
    }

    /// Two lines showing where in `source` (the template as written) this error is: the
    /// template, and a caret under [`SpecError::span`]; `None` when the error has no span.
    /// The macro and the descriptor loader put it under their message, as the template
    /// grammar's own errors do.
    ///
    /// ```
    /// # use nanotool_runtime::{CommandSpec, SlotKind, SlotSpec};
    /// let source = "grep -rn <pattern> <path>";
    /// let slots = vec![SlotSpec::new("pattern", SlotKind::String, "Regex")];
    /// let err = CommandSpec::new("grep", "Search", source, slots).unwrap_err();
    /// assert_eq!(
    ///     err.caret_line(source).unwrap(),
    ///     "  grep -rn <pattern> <path>\n                     ^^^^^^"
    /// );
    /// ```
    pub fn caret_line(&self, source: &str) -> Option<String> {
        if let SpecError::Template(e) = self {
            return Some(e.caret_line());
        }
        let span = self.span()?;
        source.get(span.clone())?;
        Some(crate::template::caret_line(source, span))
    }

    /// Always [`crate::CODE_INVALID_DESCRIPTOR`] (613): a tool definition is invalid.
    pub fn code(&self) -> u16 {
        crate::error::CODE_INVALID_DESCRIPTOR
    }
}
