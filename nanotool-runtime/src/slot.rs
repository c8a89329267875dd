//! Slots: kinds, specs, validation of one value, rendering.
//!
//! A [`SlotSpec`] says what the model may write in one placeholder of a template: its
//! [`SlotKind`], its description, whether it is required, and its constraints (`pattern`,
//! `minimum`/`maximum`). This module checks one value against one spec and renders it; the
//! order of the checks across a whole call, and the checks that need the whole token (option
//! injection), live in [`crate::spec::CommandSpec::render`]. What does *not* live here: the
//! template grammar ([`crate::template`]) and which binaries and code-entry positions are
//! allowed ([`crate::policy`]).
//!
//! Here: the kinds ([`SlotKind`], and [`SlotClass`], the kind as a constant for compile-time
//! checks), the spec and its builders, the JSON Schema, [`SlotError`] and
//! [`validate`]. Beside it: `value` (the type and the author's constraints on one value, and
//! its text), `author` (what is wrong in a spec itself), `chars` (the characters a value may
//! hold) and `path` (the path rule).
//!
//! ```
//! use nanotool_runtime::slot::{SlotKind, SlotSpec};
//! use serde_json::json;
//!
//! let range = SlotSpec::new("range", SlotKind::String, "Line range, e.g. 1,20")
//!     .with_pattern(r"^\d+(,\d+)?$");
//! assert_eq!(
//!     range.json_schema(),
//!     json!({"type": "string", "description": "Line range, e.g. 1,20", "pattern": r"^\d+(,\d+)?$"})
//! );
//! let count = SlotSpec::new("count", SlotKind::Integer, "How many").with_minimum(1.0).optional();
//! assert!(!count.is_required());
//! ```

use crate::policy::SlotFreedom;
use crate::template::is_format_char;
use regex::Regex;
use serde_json::{Map, Value};
use std::fmt;
use std::path::Path;

mod author;
mod chars;
pub(crate) mod path;
mod value;

pub(crate) use author::AuthorProblem;
pub use chars::{check_enum_value, is_forbidden_char};
pub(crate) use path::render_components;
pub(crate) use value::Typed;

/// The kind of a slot, and so its JSON Schema type.
#[derive(Debug, Clone, PartialEq)]
pub enum SlotKind {
    /// Any string (`{"type":"string"}`).
    String,
    /// A JSON integer (`2.0` counts), rendered in plain decimal.
    Integer,
    /// A JSON number.
    Number,
    /// One of the author's values (skeleton text: may begin with `-`).
    Enum(Vec<String>),
    /// A path confined to the working directory, rendered `./relative`.
    Path,
}

impl SlotKind {
    /// The kind's name as descriptors write it: `string`, `integer`, `number`, `enum`, `path`.
    pub fn as_str(&self) -> &'static str {
        match self {
            SlotKind::String => "string",
            SlotKind::Integer => "integer",
            SlotKind::Number => "number",
            SlotKind::Enum(_) => "enum",
            SlotKind::Path => "path",
        }
    }

    fn is_numeric(&self) -> bool {
        matches!(self, SlotKind::Integer | SlotKind::Number)
    }
}

/// The kind of a slot as a constant, so compile-time assertions can look at it
/// ([`SlotKind`] itself holds the enum values and cannot be matched in a `const`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotClass {
    /// [`SlotKind::String`].
    String,
    /// [`SlotKind::Integer`].
    Integer,
    /// [`SlotKind::Number`].
    Number,
    /// [`SlotKind::Enum`].
    Enum,
    /// [`SlotKind::Path`].
    Path,
}

impl SlotClass {
    /// Whether a `#[slot(pattern = "...")]` makes sense on this class (strings only).
    pub const fn takes_pattern(self) -> bool {
        matches!(self, SlotClass::String)
    }

    /// Whether `#[slot(minimum = ..)]` / `maximum` make sense (integers and numbers).
    pub const fn takes_bounds(self) -> bool {
        matches!(self, SlotClass::Integer | SlotClass::Number)
    }

    /// Whether a string literal is a sensible default (string, enum value, path).
    pub const fn takes_string_default(self) -> bool {
        matches!(self, SlotClass::String | SlotClass::Enum | SlotClass::Path)
    }

    /// Whether an integer literal is a sensible default (integer or number).
    pub const fn takes_integer_default(self) -> bool {
        matches!(self, SlotClass::Integer | SlotClass::Number)
    }

    /// Whether a float literal is a sensible default (number only).
    pub const fn takes_float_default(self) -> bool {
        matches!(self, SlotClass::Number)
    }

    /// How free a value of this class is where code goes: a string is free, a path is a
    /// confined path, an integer, number or enum value cannot carry code. (A string slot with
    /// a `pattern` is constrained too: [`SlotSpec::freedom`] adds that.)
    pub const fn freedom(self) -> SlotFreedom {
        match self {
            SlotClass::String => SlotFreedom::Free,
            SlotClass::Path => SlotFreedom::Path,
            SlotClass::Integer | SlotClass::Number | SlotClass::Enum => SlotFreedom::Constrained,
        }
    }

    /// The class of a [`SlotKind`].
    pub fn of(kind: &SlotKind) -> Self {
        match kind {
            SlotKind::String => SlotClass::String,
            SlotKind::Integer => SlotClass::Integer,
            SlotKind::Number => SlotClass::Number,
            SlotKind::Enum(_) => SlotClass::Enum,
            SlotKind::Path => SlotClass::Path,
        }
    }
}

/// One slot's spec: its kind, description, and constraints.
///
/// Built with [`SlotSpec::new`] (a required slot) and the builders; the constraints are
/// checked when the [`crate::CommandSpec`] is built (an invalid `pattern`, a `minimum` above
/// the `maximum` or a default that does not validate are [`crate::SpecError`]s there).
#[derive(Debug, Clone)]
pub struct SlotSpec {
    name: String,
    kind: SlotKind,
    description: String,
    required: bool,
    default: Option<Value>,
    pattern: Option<String>,
    /// The pattern compiled once, anchored as a whole match; `Err` holds the regex error.
    regex: Option<PatternRegex>,
    minimum: Option<f64>,
    maximum: Option<f64>,
}

impl PartialEq for SlotSpec {
    fn eq(&self, other: &Self) -> bool {
        // The compiled regex follows from the pattern.
        self.name == other.name
            && self.kind == other.kind
            && self.description == other.description
            && self.required == other.required
            && self.default == other.default
            && self.pattern == other.pattern
            && self.minimum == other.minimum
            && self.maximum == other.maximum
    }
}

/// A slot pattern's regex: compiled when the slot is given its pattern
/// ([`SlotSpec::with_pattern`], whose error is the author's, reported when the spec is built),
/// or on first use for a pattern the `command_tool` macro already compiled when the tool was
/// compiled (a tool's start then compiles none it does not use).
#[derive(Debug, Clone)]
enum PatternRegex {
    Compiled(Result<Regex, String>),
    OnFirstUse(std::sync::Arc<std::sync::OnceLock<Result<Regex, String>>>),
}

/// Compiles a slot `pattern` the way every form does: anchored as a whole match
/// (`\A(?:pattern)\z`), with the `regex` crate. `Err` holds the regex's own message.
///
/// The descriptor loader (through [`SlotSpec::with_pattern`]) and `#[command_tool]` (at
/// compile time) both call this, so a pattern one form accepts the other accepts too.
///
/// ```
/// use nanotool_runtime::slot::compile_pattern;
///
/// let range = compile_pattern(r"\d+(,\d+)?").unwrap();
/// assert!(range.is_match("1,20"));
/// assert!(!range.is_match("1,20x"));
/// assert!(compile_pattern("a)|(b").is_err());
/// ```
pub fn compile_pattern(pattern: &str) -> Result<Regex, String> {
    // The pattern is parsed alone first: only a balanced regex may be wrapped, or `a)|(b`
    // would turn into an unanchored alternation. Parsing is cheap; the one compile is of the
    // anchored form.
    match regex_syntax::Parser::new().parse(pattern) {
        Ok(_) => {
            Regex::new(&format!(r"\A(?:{})\z", ascii_digits(pattern))).map_err(|e| e.to_string())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// `pattern` with `\d` as `[0-9]` and `\D` as `[^0-9]`: a slot's digits are ASCII, as a JSON
/// Schema `pattern` (ECMAScript) reads `\d` too, and as the programs a slot feeds expect
/// (`sed -n ١p` is no line number). Other escapes, `\\d` included, are kept as written.
fn ascii_digits(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some(next) => {
                out.push('\\');
                out.push(next);
            }
            None => out.push('\\'),
        }
    }
    out
}

impl SlotSpec {
    /// A required slot of `kind`.
    pub fn new(name: impl Into<String>, kind: SlotKind, description: impl Into<String>) -> Self {
        SlotSpec {
            name: name.into(),
            kind,
            description: description.into(),
            required: true,
            default: None,
            pattern: None,
            regex: None,
            minimum: None,
            maximum: None,
        }
    }

    /// Marks the slot optional: when the call leaves it out (or sends `null`) and it has no
    /// default, its whole token is dropped from the argv.
    pub fn optional(mut self) -> Self {
        self.required = false;
        self
    }

    /// Gives the slot a default (which makes it optional). The default must itself validate;
    /// that is checked when the [`crate::CommandSpec`] is built.
    pub fn with_default(mut self, default: Value) -> Self {
        self.required = false;
        self.default = Some(default);
        self
    }

    /// A regex the whole value must match (string slots only). It is anchored whatever the
    /// author wrote: `\d+` accepts `12` but not `12x`. Compiled once, here; an invalid regex
    /// is reported when the [`crate::CommandSpec`] is built. The syntax is the `regex`
    /// crate's, with `\d` read as `[0-9]` (a slot's digits are ASCII, as a JSON Schema's
    /// `pattern` reads them); other classes such as `\w` are Unicode-aware.
    pub fn with_pattern(mut self, pattern: &str) -> Self {
        self.pattern = Some(pattern.to_owned());
        self.regex = Some(PatternRegex::Compiled(compile_pattern(pattern)));
        self
    }

    /// [`Self::with_pattern`] for a pattern the `command_tool` macro compiled when the tool
    /// was compiled: compiled again when the first value is checked against it ([`Self::regex`]:
    /// a call's argument, or the slot's default when the spec is built). Should it fail after
    /// all, no value passes (see `slot::value`): a default is then refused with the spec, an
    /// argument with the call, as the tool's fault.
    pub(crate) fn with_compiled_pattern(mut self, pattern: &str) -> Self {
        self.pattern = Some(pattern.to_owned());
        self.regex = Some(PatternRegex::OnFirstUse(Default::default()));
        self
    }

    /// The smallest value allowed (integer and number slots only).
    pub fn with_minimum(mut self, minimum: f64) -> Self {
        self.minimum = Some(minimum);
        self
    }

    /// The largest value allowed (integer and number slots only).
    pub fn with_maximum(mut self, maximum: f64) -> Self {
        self.maximum = Some(maximum);
        self
    }

    /// The slot's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The slot's kind.
    pub fn kind(&self) -> &SlotKind {
        &self.kind
    }

    /// What the slot is for, for the model.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Whether a call must give this slot (no default, not marked optional).
    pub fn is_required(&self) -> bool {
        self.required
    }

    /// The default, if any.
    pub fn default(&self) -> Option<&Value> {
        self.default.as_ref()
    }

    /// The pattern as the author wrote it, if any.
    pub fn pattern(&self) -> Option<&str> {
        self.pattern.as_deref()
    }

    /// The minimum, if any.
    pub fn minimum(&self) -> Option<f64> {
        self.minimum
    }

    /// The maximum, if any.
    pub fn maximum(&self) -> Option<f64> {
        self.maximum
    }

    /// How free the slot is, for the policy's code-entry check: integer, number, enum and a
    /// string with a pattern are [`SlotFreedom::Constrained`]; a free string is
    /// [`SlotFreedom::Free`]; a path is [`SlotFreedom::Path`] (free text, but always rendered
    /// `./relative` or `.`, so never `+cmd` nor `host:file`).
    pub fn freedom(&self) -> SlotFreedom {
        match self.kind {
            SlotKind::String if self.pattern.is_some() => SlotFreedom::Constrained,
            ref kind => SlotClass::of(kind).freedom(),
        }
    }

    /// The slot's JSON Schema property: `type`, `description`, and `enum`, `minimum`,
    /// `maximum`, `pattern`, `default` where set. A path is `{"type":"string"}`. The pattern
    /// is published anchored (`^(?:...)$`) unless the author already wrote it as `^...$`
    /// without alternation, since JSON Schema patterns are unanchored searches.
    pub fn json_schema(&self) -> Value {
        let mut map = Map::new();
        let ty = match self.kind {
            SlotKind::Integer => "integer",
            SlotKind::Number => "number",
            SlotKind::String | SlotKind::Enum(_) | SlotKind::Path => "string",
        };
        map.insert("type".into(), ty.into());
        map.insert("description".into(), self.description.clone().into());
        if let SlotKind::Enum(values) = &self.kind {
            map.insert("enum".into(), values.clone().into());
        }
        if let Some(min) = self.minimum {
            map.insert("minimum".into(), schema_number(min));
        }
        if let Some(max) = self.maximum {
            map.insert("maximum".into(), schema_number(max));
        }
        if let Some(pattern) = &self.pattern {
            map.insert("pattern".into(), anchored_pattern(pattern).into());
        }
        if let Some(default) = &self.default {
            map.insert("default".into(), default.clone());
        }
        Value::Object(map)
    }

    /// The compiled, anchored regex; `Err` with the regex error when the pattern is invalid.
    pub(crate) fn regex(&self) -> Option<&Result<Regex, String>> {
        match self.regex.as_ref()? {
            PatternRegex::Compiled(regex) => Some(regex),
            PatternRegex::OnFirstUse(cell) => Some(
                cell.get_or_init(|| compile_pattern(self.pattern.as_deref().unwrap_or_default())),
            ),
        }
    }

    /// The error of a pattern compiled when it was given (an author's mistake).
    fn pattern_error(&self) -> Option<&str> {
        match &self.regex {
            Some(PatternRegex::Compiled(Err(message))) => Some(message),
            _ => None,
        }
    }

    /// An error about this slot.
    pub(crate) fn error(&self, reason: impl Into<String>) -> SlotError {
        SlotError::new(self.name.clone(), reason)
    }
}

/// A bound as JSON: integral bounds as JSON integers (`1`, not `1.0`).
fn schema_number(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        Value::from(f as i64)
    } else {
        Value::from(f)
    }
}

/// The pattern as published in the JSON Schema (anchored, since JSON Schema searches).
fn anchored_pattern(pattern: &str) -> String {
    let ends_with_anchor = pattern.ends_with('$')
        && pattern[..pattern.len() - 1]
            .chars()
            .rev()
            .take_while(|c| *c == '\\')
            .count()
            % 2
            == 0;
    if pattern.starts_with('^') && ends_with_anchor && !pattern.contains('|') {
        pattern.to_owned()
    } else {
        format!("^(?:{pattern})$")
    }
}

/// A value as shown in an error message: invisible characters escaped, long values cut.
pub(crate) fn shown(text: &str) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n >= 80 {
            out.push_str("...");
            break;
        }
        if c.is_control() || is_format_char(c) || (c.is_whitespace() && c != ' ') || c == '`' {
            out.push_str(&format!("\\u{{{:04X}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Why a call's arguments were refused (error 614).
///
/// `slot` names the argument at fault (`""` when the arguments as a whole are wrong, e.g. not
/// a JSON object); `reason` says why and what to write instead. Display:
/// ``argument `path`: `/etc` is outside the working directory, and tools may only touch files inside it; write a path inside it, relative to it, e.g. `src/main.rs` ``.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotError {
    /// The slot (or argument name) at fault; `""` for the arguments as a whole.
    pub slot: String,
    /// Why, and what to write instead.
    pub reason: String,
}

impl SlotError {
    /// An error about argument `slot` (`""` for the arguments as a whole).
    pub fn new(slot: impl Into<String>, reason: impl Into<String>) -> Self {
        SlotError {
            slot: slot.into(),
            reason: reason.into(),
        }
    }

    /// The argument at fault (`""` when the arguments as a whole are wrong).
    pub fn slot(&self) -> &str {
        &self.slot
    }

    /// Why, and what to write instead.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// Always [`crate::CODE_INVALID_ARGUMENTS`] (614).
    pub fn code(&self) -> u16 {
        crate::error::CODE_INVALID_ARGUMENTS
    }
}

impl fmt::Display for SlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.slot.is_empty() {
            write!(f, "arguments: {}", self.reason)
        } else {
            write!(f, "argument `{}`: {}", self.slot, self.reason)
        }
    }
}

impl std::error::Error for SlotError {}

/// Validates one value against a slot spec and returns its rendered text (type, constraints,
/// characters, the path rules and confinement to `root`). The token-level option-injection
/// rule needs the whole template: [`crate::CommandSpec::render`] applies it.
pub fn validate(spec: &SlotSpec, value: &Value, root: &Path) -> Result<String, SlotError> {
    let text = spec.checked_text(value)?;
    if spec.kind == SlotKind::Path {
        path::check(&text, root).map_err(|reason| spec.error(reason))
    } else {
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A pattern the macro compiled is compiled on its first use, and checks values as one
    /// given by `with_pattern` does; one that cannot be compiled after all lets no value
    /// through (it never reaches a spec through `with_pattern`, which refuses it).
    #[test]
    fn a_pattern_compiled_on_first_use_checks_as_an_eager_one_and_fails_closed() {
        let root = Path::new("/");
        let slot = |lazy: bool, pattern: &str| {
            let s = SlotSpec::new("range", SlotKind::String, "lines");
            if lazy {
                s.with_compiled_pattern(pattern)
            } else {
                s.with_pattern(pattern)
            }
        };
        for lazy in [false, true] {
            let s = slot(lazy, r"^\d+(,\d+)?$");
            assert!(s.author_problem().is_none());
            assert_eq!(validate(&s, &json!("1,20"), root).unwrap(), "1,20");
            for bad in ["1,20x", "١", "1;rm -rf /"] {
                assert!(validate(&s, &json!(bad), root).is_err(), "{lazy}: {bad}");
            }
        }
        assert!(slot(false, "a)|(b").author_problem().is_some());
        let broken = slot(true, "a)|(b");
        assert!(broken.author_problem().is_none());
        for value in ["a", "b", "a)|(b", ""] {
            let e = validate(&broken, &json!(value), root).unwrap_err();
            assert!(e.reason.contains("cannot be compiled"), "{e:?}");
        }
    }

    #[test]
    fn schema_pattern_is_published_anchored() {
        assert_eq!(anchored_pattern(r"^\d+$"), r"^\d+$");
        assert_eq!(anchored_pattern(r"\d+"), r"^(?:\d+)$");
        assert_eq!(anchored_pattern(r"^a|b$"), r"^(?:^a|b$)$");
        assert_eq!(anchored_pattern(r"^a\$"), r"^(?:^a\$)$");
    }
}
