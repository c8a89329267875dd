//! [`CommandSpec`]: a parsed template plus its slot specs.
//!
//! A spec is built once, when the tool is defined (compile time for the macro, load time for
//! a descriptor): [`CommandSpec::new`] parses the template, matches every placeholder to a
//! [`SlotSpec`], checks the author's constraints and runs the policy. Every call then goes
//! through [`CommandSpec::render`], the one validator, which turns JSON arguments into an
//! [`Argv`] or a [`SlotError`](crate::slot::SlotError) (code 614). What does *not* live here: running the argv (see
//! [`crate::kernel`]) and the tool trait (see [`crate::tool`]). Beside it: `render` (the
//! stages of [`CommandSpec::render`]) and `error` ([`SpecError`] and its caret line).

use crate::hint;
use crate::kernel::{Access, RunSettings};
use crate::policy::{self, PolicyError, SlotFreedom};
use crate::slot::{AuthorProblem, SlotKind, SlotSpec};
use crate::template::{Fill, Part, Template};
use serde_json::{Map, Value};
use std::ops::{Deref, Range};

mod error;
mod exit_codes;
mod render;

pub use error::SpecError;
pub use exit_codes::{
    ExitCodeError, ExitCodes, MAX_DECLARED_EXIT_CODE, MAX_EXIT_CODES, MAX_EXIT_MEANING_CHARS,
    check_exit_code,
};

use render::negative_allowed;

/// A rendered argv: the binary as written, then one element per token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Argv(pub Vec<String>);

impl Argv {
    /// The elements, the binary first.
    pub fn as_slice(&self) -> &[String] {
        &self.0
    }

    /// The elements as a vector.
    pub fn into_vec(self) -> Vec<String> {
        self.0
    }
}

impl AsRef<[String]> for Argv {
    fn as_ref(&self) -> &[String] {
        &self.0
    }
}

impl From<Argv> for Vec<String> {
    fn from(argv: Argv) -> Vec<String> {
        argv.0
    }
}

impl IntoIterator for Argv {
    type Item = String;
    type IntoIter = std::vec::IntoIter<String>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl Deref for Argv {
    type Target = [String];

    fn deref(&self) -> &[String] {
        &self.0
    }
}

/// A template whose every slot has a spec, checked against the policy.
///
/// ```
/// use nanotool_runtime::{CommandSpec, SlotKind, SlotSpec};
/// use serde_json::json;
///
/// let spec = CommandSpec::new(
///     "search_text",
///     "Search text in workspace files",
///     "grep -rn <pattern> <path>",
///     vec![
///         SlotSpec::new("pattern", SlotKind::String, "Text pattern to search"),
///         SlotSpec::new("path", SlotKind::Path, "Directory or file to search")
///             .with_default(json!(".")),
///     ],
/// )
/// .unwrap();
///
/// let root = std::env::current_dir().unwrap();
/// // One slot is one argv element, and no shell ever sees it: spaces, quotes and `|` reach
/// // grep as written.
/// let argv = spec.render(&json!({"pattern": "fn main", "path": "src"}), &root).unwrap();
/// assert_eq!(argv.as_slice(), ["grep", "-rn", "fn main", "./src"]);
/// let argv = spec.render(&json!({"pattern": r#"TODO\|"name""#, "path": "src"}), &root).unwrap();
/// assert_eq!(argv.as_slice(), ["grep", "-rn", r#"TODO\|"name""#, "./src"]);
///
/// // An absolute path inside the working directory is rendered relative.
/// let inside = root.join("src").display().to_string();
/// let argv = spec.render(&json!({"pattern": "x", "path": inside}), &root).unwrap();
/// assert_eq!(argv.as_slice(), ["grep", "-rn", "x", "./src"]);
///
/// // The default path renders as `.`.
/// let argv = spec.render(&json!({"pattern": "TODO"}), &root).unwrap();
/// assert_eq!(argv.as_slice(), ["grep", "-rn", "TODO", "."]);
///
/// // Option injection is refused: `--file=/etc/passwd` would make grep read its patterns
/// // from a file outside the workspace.
/// let err = spec
///     .render(&json!({"pattern": "--file=/etc/passwd", "path": "."}), &root)
///     .unwrap_err();
/// assert_eq!(err.slot(), "pattern");
/// assert_eq!(err.code(), 614);
/// assert!(err.to_string().contains("begin with `-`"), "{err}");
///
/// // And so is a path outside the working directory.
/// let err = spec.render(&json!({"pattern": "x", "path": "/etc"}), &root).unwrap_err();
/// assert!(err.to_string().starts_with("argument `path`: `/etc` is outside the working directory"), "{err}");
/// ```
#[derive(Debug, Clone)]
pub struct CommandSpec {
    name: String,
    description: String,
    template: Template,
    slots: Vec<SlotSpec>,
    access: Access,
    settings: RunSettings,
    exit_codes: ExitCodes,
}

/// The most commands [`CommandSpec::new`] checks for one template: the combinations of its enum
/// slots' values and its optional slots left out or given.
pub const MAX_VARIANTS: usize = 4096;

/// Whether `name` is a valid tool name: `^[A-Za-z0-9_-]{1,64}$`.
pub fn is_tool_name(name: &str) -> bool {
    (1..=hint::MAX_TOOL_NAME_CHARS).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A valid tool name close to `name`, for the error that refuses it: every character but
/// ASCII letters, digits and `-` becomes `_`, cut to 64 characters (`my_tool` for nothing).
///
/// ```
/// use nanotool_runtime::spec::{is_tool_name, suggest_tool_name};
///
/// assert_eq!(suggest_tool_name("grep files"), "grep_files");
/// assert_eq!(suggest_tool_name(""), "my_tool");
/// assert!(is_tool_name(&suggest_tool_name(&"é".repeat(100))));
/// ```
pub fn suggest_tool_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(hint::MAX_TOOL_NAME_CHARS)
        .collect();
    if cleaned.is_empty() {
        "my_tool".into()
    } else {
        cleaned
    }
}

impl CommandSpec {
    /// Builds a spec: parses the template, matches slots to specs, validates the name, the
    /// descriptions, enum values, patterns, ranges and defaults, then checks the policy
    /// (deny list and code-entry table) with each slot's [`SlotSpec::freedom`].
    // A spec is built once per tool, at load or compile time: the error's size (it carries a
    // whole `PolicyError`) costs nothing worth boxing for.
    #[allow(clippy::result_large_err)]
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        template: &str,
        slots: Vec<SlotSpec>,
    ) -> Result<Self, SpecError> {
        let name = name.into();
        let description = description.into();
        let template = Template::parse(template)?;
        if !is_tool_name(&name) {
            return Err(SpecError::InvalidName { name });
        }
        if description.trim().is_empty() {
            return Err(SpecError::EmptyDescription { name });
        }
        let span_of = |slot: &str| {
            template
                .slots()
                .find(|s| s.name() == slot)
                .map(|s| s.span())
        };

        for (i, spec) in slots.iter().enumerate() {
            if slots[..i].iter().any(|s| s.name() == spec.name()) {
                return Err(SpecError::DuplicateSpec {
                    slot: spec.name().to_owned(),
                    span: span_of(spec.name()),
                });
            }
        }
        for slot in template.slots() {
            if !slots.iter().any(|s| s.name() == slot.name()) {
                return Err(SpecError::SlotWithoutSpec {
                    slot: slot.name().to_owned(),
                    span: slot.span(),
                    braced: slot.is_braced(),
                });
            }
        }
        for spec in &slots {
            let Some(span) = span_of(spec.name()) else {
                return Err(SpecError::SpecWithoutSlot {
                    slot: spec.name().to_owned(),
                });
            };
            if let Some(problem) = spec.author_problem() {
                let slot = spec.name().to_owned();
                return Err(match problem {
                    AuthorProblem::EmptyDescription => {
                        SpecError::EmptySlotDescription { slot, span }
                    }
                    AuthorProblem::EmptyEnum => SpecError::EmptyEnum { slot, span },
                    AuthorProblem::EnumValue { value, reason } => SpecError::EnumValue {
                        slot,
                        value,
                        reason,
                        span,
                    },
                    AuthorProblem::PatternNotForKind => SpecError::PatternNotForKind { slot, span },
                    AuthorProblem::InvalidPattern { pattern, message } => {
                        SpecError::InvalidPattern {
                            slot,
                            pattern,
                            message,
                            span,
                        }
                    }
                    AuthorProblem::RangeNotForKind => SpecError::RangeNotForKind { slot, span },
                    AuthorProblem::InvalidRange(reason) => {
                        SpecError::InvalidRange { slot, reason, span }
                    }
                    AuthorProblem::InvalidDefault(reason) => {
                        SpecError::InvalidDefault { slot, reason, span }
                    }
                });
            }
        }
        let spec = CommandSpec {
            name,
            description,
            template,
            slots,
            access: Access::READ_ONLY,
            settings: RunSettings::default(),
            exit_codes: ExitCodes::default(),
        };
        spec.check_default_tokens()?;
        spec.check_denied(&[])?;
        Ok(spec)
    }

    /// A default that would start a token with `-` where the template does not would be
    /// refused on every call that leaves it out: refuse it now.
    // A spec is built once per tool, at load or compile time: the error's size (it carries a
    // whole `PolicyError`) costs nothing worth boxing for.
    #[allow(clippy::result_large_err)]
    fn check_default_tokens(&self) -> Result<(), SpecError> {
        let mut not_options: Option<Vec<usize>> = None;
        for (at, token) in self.template.args().iter().enumerate() {
            if token.literal_prefix().starts_with('-') {
                continue;
            }
            let Some(Part::Slot(first)) = token.parts().first() else {
                continue;
            };
            let Some(spec) = self.slot(first.name()) else {
                continue;
            };
            if spec.kind() == &SlotKind::Path
                || matches!(spec.kind(), SlotKind::Enum(_))
                || negative_allowed(spec)
            {
                continue;
            }
            let text = spec
                .default()
                .and_then(|d| spec.check_type(d).ok())
                .map(|t| t.render());
            if text.is_some_and(|t| t.starts_with('-'))
                && !not_options
                    .get_or_insert_with(|| self.not_option_tokens(&|_| Fill::Slot))
                    .contains(&(at + 1))
            {
                return Err(SpecError::InvalidDefault {
                    slot: spec.name().to_owned(),
                    reason: "it begins with `-` where the template does not start the argument \
                             with `-`, so every call would be refused as option injection; \
                             write the option in the template itself"
                        .into(),
                    span: first.span(),
                });
            }
        }
        Ok(())
    }

    /// Checks the template against the deny list plus the host's `extra` binaries (and the
    /// code-entry table), as [`CommandSpec::new`] does with no extra.
    // A spec is built once per tool, at load or compile time: the error's size (it carries a
    // whole `PolicyError`) costs nothing worth boxing for.
    #[allow(clippy::result_large_err)]
    pub fn check_denied(&self, extra: &[String]) -> Result<(), SpecError> {
        let freedom = |name: &str| {
            self.slot(name)
                .map(SlotSpec::freedom)
                .unwrap_or(SlotFreedom::Free)
        };
        policy::check_template(&self.template, &freedom, extra)?;
        self.check_variants(&freedom, extra)
    }

    /// The policy over every command the template can become: each enum slot standing as each
    /// of its values (author text, read as literal), each optional slot without a default
    /// present or left out (its whole token dropped). An enum value may be an option that
    /// turns the next slot into code, and a left-out slot may shift a free one into the
    /// program's place; the plain check cannot see either.
    // Built once per tool; see `check_default_tokens` on the error's size.
    #[allow(clippy::result_large_err)]
    fn check_variants(
        &self,
        freedom: &dyn Fn(&str) -> SlotFreedom,
        extra: &[String],
    ) -> Result<(), SpecError> {
        /// How a varying slot stands in one variant.
        #[derive(Clone, Copy)]
        enum Stand<'a> {
            Slot,
            Value(&'a str),
            Absent,
        }
        // The policy reads no argument of a binary outside its tables: nothing to vary.
        if !policy::reads_arguments(self.template.binary()) {
            return Ok(());
        }
        let mut varying: Vec<(&SlotSpec, Vec<Stand<'_>>)> = Vec::new();
        for spec in &self.slots {
            let mut stands = match spec.kind() {
                SlotKind::Enum(values) => values.iter().map(|v| Stand::Value(v)).collect(),
                _ => vec![Stand::Slot],
            };
            if !spec.is_required() && spec.default().is_none() {
                stands.push(Stand::Absent);
            }
            if !matches!(stands.as_slice(), [] | [Stand::Slot]) {
                varying.push((spec, stands));
            }
        }
        if varying.is_empty() {
            return Ok(());
        }
        let combinations = varying
            .iter()
            .try_fold(1usize, |n, (_, stands)| n.checked_mul(stands.len()))
            .filter(|n| *n <= MAX_VARIANTS);
        let Some(combinations) = combinations else {
            return Err(SpecError::Policy(PolicyError::TooManyVariants {
                limit: MAX_VARIANTS,
            }));
        };
        let mut choice = vec![0usize; varying.len()];
        for _ in 0..combinations {
            let stand_of = |name: &str| {
                varying
                    .iter()
                    .zip(&choice)
                    .find(|((spec, _), _)| spec.name() == name)
                    .map(|((_, stands), &i)| stands[i])
                    .unwrap_or(Stand::Slot)
            };
            let fill = |name: &str| match stand_of(name) {
                Stand::Slot => Fill::Slot,
                Stand::Value(value) => Fill::Text(value),
                Stand::Absent => Fill::Drop,
            };
            // Enum values stand as literal text, whatever they hold: one argv element each.
            let (template, _) = self.template.substitute(&fill);
            if let Err(error) = policy::check_template(&template, freedom, extra) {
                let assignment = varying
                    .iter()
                    .zip(&choice)
                    .map(|((spec, stands), &i)| match stands[i] {
                        Stand::Value(v) => format!("`{}` is `{v}`", spec.name()),
                        Stand::Absent => format!("`{}` is left out", spec.name()),
                        Stand::Slot => format!("`{}` is given", spec.name()),
                    })
                    .collect::<Vec<_>>()
                    .join(" and ");
                let first = varying[0].0.name();
                return Err(SpecError::PolicyVariant {
                    assignment,
                    variant: template.source().to_owned(),
                    error: Box::new(error),
                    span: self.slot_span(first),
                });
            }
            // The next combination, like an odometer.
            for (digit, (_, stands)) in choice.iter_mut().zip(&varying) {
                *digit += 1;
                if *digit < stands.len() {
                    break;
                }
                *digit = 0;
            }
        }
        Ok(())
    }

    /// The first placeholder of `slot` in the template (an empty range if it has none).
    fn slot_span(&self, slot: &str) -> Range<usize> {
        self.template
            .slots()
            .find(|s| s.name() == slot)
            .map(|s| s.span())
            .unwrap_or(0..0)
    }

    /// The same spec with what its commands may do beyond the default profile: `writes`
    /// (the workspace becomes writable) and `network` (TCP and UDP). Part of the tool's shape:
    /// the descriptor's `"writes"` / `"network"` fields and the macro's `writes` / `network`
    /// flags end here.
    ///
    /// ```
    /// use nanotool_runtime::{Access, CommandSpec};
    ///
    /// let spec = CommandSpec::new("fmt", "Format the crate", "cargo fmt", vec![]).unwrap();
    /// assert_eq!(spec.access(), Access::READ_ONLY);
    /// let spec = spec.with_access(Access { writes: true, network: false, ..Access::READ_ONLY });
    /// assert!(spec.access().writes);
    /// ```
    pub fn with_access(mut self, access: Access) -> Self {
        self.access = access;
        self
    }

    /// What the tool's commands may do beyond the default profile (see [`Access`]).
    pub fn access(&self) -> Access {
        self.access
    }

    /// The same spec with the tool's own run settings (timeout, output cap, environment),
    /// checked ([`RunSettings::check`]): the descriptor's `"timeout"`, `"max_output"` and
    /// `"env"` fields and the macro's `timeout = ...`, `max_output = ...`, `env(...)`
    /// arguments end here, and every call of the tool runs with them.
    ///
    /// ```
    /// use nanotool_runtime::CommandSpec;
    /// use nanotool_runtime::kernel::RunSettings;
    /// use std::time::Duration;
    ///
    /// let spec = CommandSpec::new("test", "Run the tests", "cargo test", vec![]).unwrap();
    /// let spec = spec
    ///     .with_settings(RunSettings::new().with_timeout(Duration::from_secs(900)))
    ///     .unwrap();
    /// assert_eq!(spec.settings().timeout, Some(Duration::from_secs(900)));
    ///
    /// let spec = CommandSpec::new("test", "Run the tests", "cargo test", vec![]).unwrap();
    /// let err = spec.with_settings(RunSettings::new().with_env("GIT_DIR", "/")).unwrap_err();
    /// assert!(err.to_string().contains("GIT_DIR"), "{err}");
    /// ```
    // Built once per tool; see `check_default_tokens` on the error's size.
    #[allow(clippy::result_large_err)]
    pub fn with_settings(mut self, settings: RunSettings) -> Result<Self, SpecError> {
        settings.check()?;
        self.settings = settings;
        Ok(self)
    }

    /// The tool's own run settings (empty: the kernel's apply).
    pub fn settings(&self) -> &RunSettings {
        &self.settings
    }

    /// The same spec with exit statuses that are not failures, checked
    /// ([`ExitCodes::check`]): the descriptor's `"exit_codes"` field and the macro's
    /// `exit_codes(...)` argument end here. A call whose command ends with one of them is not
    /// an error, and its result says what the status means.
    ///
    /// ```
    /// use nanotool_runtime::CommandSpec;
    /// use nanotool_runtime::spec::ExitCodes;
    ///
    /// let spec = CommandSpec::new("differ", "Compare two files", "diff -u a b", vec![]).unwrap();
    /// let spec = spec.with_exit_codes(ExitCodes::new().with(1, "the files differ")).unwrap();
    /// assert_eq!(spec.exit_codes().meaning(1), Some("the files differ"));
    ///
    /// let spec = CommandSpec::new("differ", "Compare two files", "diff -u a b", vec![]).unwrap();
    /// let err = spec.with_exit_codes(ExitCodes::new().with(0, "same")).unwrap_err();
    /// assert!(err.to_string().contains("0 is a success already"), "{err}");
    /// ```
    #[allow(clippy::result_large_err)]
    pub fn with_exit_codes(mut self, exit_codes: ExitCodes) -> Result<Self, SpecError> {
        exit_codes.check()?;
        self.exit_codes = exit_codes;
        Ok(self)
    }

    /// The exit statuses of the tool's command that are not failures (empty: only 0).
    pub fn exit_codes(&self) -> &ExitCodes {
        &self.exit_codes
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the tool does, for the model.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The parsed template.
    pub fn template(&self) -> &Template {
        &self.template
    }

    /// The slot specs, in the order the author gave them.
    pub fn slots(&self) -> &[SlotSpec] {
        &self.slots
    }

    /// The spec of slot `name`.
    pub fn slot(&self, name: &str) -> Option<&SlotSpec> {
        self.slots.iter().find(|s| s.name() == name)
    }

    /// The JSON Schema of the arguments: an object with `properties`, `required` (empty when
    /// no slot is required) and `"additionalProperties": false`; no `$schema`, `title` or type
    /// arrays.
    ///
    /// ```
    /// # use nanotool_runtime::CommandSpec;
    /// let spec = CommandSpec::new("list", "List the working directory", "ls -1", vec![]).unwrap();
    /// assert_eq!(
    ///     spec.json_schema(),
    ///     serde_json::json!({
    ///         "type": "object", "properties": {}, "required": [], "additionalProperties": false
    ///     })
    /// );
    /// ```
    pub fn json_schema(&self) -> Value {
        let mut properties = Map::new();
        for slot in &self.slots {
            properties.insert(slot.name().to_owned(), slot.json_schema());
        }
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(properties));
        let required: Vec<Value> = self
            .slots
            .iter()
            .filter(|s| s.is_required())
            .map(|s| s.name().into())
            .collect();
        // Always there, empty or not: some clients read a missing `required` badly.
        schema.insert("required".into(), Value::Array(required));
        schema.insert("additionalProperties".into(), false.into());
        Value::Object(schema)
    }

    /// The indices (into the template's tokens) of the tokens that the binary cannot read as
    /// an option ([`policy::not_option_tokens`]) in the command the template becomes when
    /// each slot stands as `fill` says (an enum value as its text, a left-out slot dropped).
    fn not_option_tokens<'v>(&self, fill: &dyn Fn(&str) -> Fill<'v>) -> Vec<usize> {
        if !policy::reads_arguments(self.template.binary())
            && !policy::ends_options(self.template.binary())
        {
            return Vec::new();
        }
        let (variant, index) = self.template.substitute(fill);
        policy::not_option_tokens(&variant)
            .into_iter()
            .map(|i| index[i])
            .collect()
    }
}
