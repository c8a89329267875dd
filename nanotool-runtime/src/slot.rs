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

mod chars;
pub(crate) mod path;

pub use chars::{check_enum_value, is_forbidden_char};
pub(crate) use path::render_components;

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
    regex: Option<Result<Regex, String>>,
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
    /// crate's: classes such as `\d` and `\w` are Unicode-aware (`\d` also matches `١`);
    /// write `[0-9]` where only ASCII digits will do.
    pub fn with_pattern(mut self, pattern: &str) -> Self {
        self.pattern = Some(pattern.to_owned());
        self.regex = Some(compile_pattern(pattern));
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
            ref kind => crate::slot_type::SlotClass::of(kind).freedom(),
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
        self.regex.as_ref()
    }

    /// Stage "wrong type": checks the JSON type and turns the value into a [`Typed`].
    pub(crate) fn check_type(&self, value: &Value) -> Result<Typed, SlotError> {
        let got = || describe_value(value);
        match &self.kind {
            SlotKind::String | SlotKind::Path | SlotKind::Enum(_) => match value {
                Value::String(s) => Ok(Typed::Text(s.clone())),
                _ => Err(self.error(format!(
                    "expected a string, got {}; write it as a JSON string in double quotes",
                    got()
                ))),
            },
            SlotKind::Integer => match value {
                Value::Number(n) => {
                    if let Some(i) = n.as_i64() {
                        Ok(Typed::Int(i128::from(i)))
                    } else if let Some(u) = n.as_u64() {
                        Ok(Typed::Int(i128::from(u)))
                    } else {
                        let f = n.as_f64().unwrap_or(f64::NAN);
                        if !f.is_finite() || f.fract() != 0.0 {
                            Err(self.error(format!(
                                "expected an integer, got {}; write a whole number such as `{}`",
                                got(),
                                if f.is_finite() { f.trunc() } else { 0.0 }
                            )))
                        } else if (-9.223_372_036_854_776e18..1.844_674_407_370_955_2e19)
                            .contains(&f)
                        {
                            // Integral and inside the i64/u64 range: `2.0` counts.
                            Ok(Typed::Int(f as i128))
                        } else {
                            Err(self.error(format!(
                                "{} is too large for an integer argument; write a whole number \
                                 between -9223372036854775808 and 18446744073709551615",
                                got()
                            )))
                        }
                    }
                }
                _ => Err(self.error(format!(
                    "expected an integer, got {}; write a JSON number without quotes, such as `2`",
                    got()
                ))),
            },
            SlotKind::Number => match value {
                Value::Number(n) => {
                    if let Some(i) = n.as_i64() {
                        Ok(Typed::Int(i128::from(i)))
                    } else if let Some(u) = n.as_u64() {
                        Ok(Typed::Int(i128::from(u)))
                    } else {
                        match n.as_f64() {
                            Some(f) if f.is_finite() => Ok(Typed::Float(f)),
                            _ => Err(self.error(format!(
                                "expected a finite number, got {}; write a JSON number such as `1.5`",
                                got()
                            ))),
                        }
                    }
                }
                _ => Err(self.error(format!(
                    "expected a number, got {}; write a JSON number without quotes, such as `1.5`",
                    got()
                ))),
            },
        }
    }

    /// Stage "out of enum/range/pattern".
    pub(crate) fn check_constraints(&self, typed: &Typed) -> Result<(), SlotError> {
        match (&self.kind, typed) {
            (SlotKind::Enum(values), Typed::Text(s)) => {
                if values.iter().any(|v| v == s) {
                    Ok(())
                } else {
                    Err(self.error(format!(
                        "`{}` is not one of the allowed values; write one of {}",
                        shown(s),
                        list(values)
                    )))
                }
            }
            (SlotKind::String, Typed::Text(s)) => match self.regex() {
                Some(Ok(re)) if !re.is_match(s) => Err(self.error(format!(
                    "`{}` does not match the pattern `{}` (the whole value must match); write a \
                     value that matches it from its first character to its last",
                    shown(s),
                    self.pattern.as_deref().unwrap_or_default()
                ))),
                _ => Ok(()),
            },
            (SlotKind::Integer | SlotKind::Number, _) => {
                let below = match (self.minimum, typed) {
                    (Some(min), Typed::Int(i)) => int_below(*i, min),
                    (Some(min), Typed::Float(f)) => *f < min,
                    _ => false,
                };
                let above = match (self.maximum, typed) {
                    (Some(max), Typed::Int(i)) => int_above(*i, max),
                    (Some(max), Typed::Float(f)) => *f > max,
                    _ => false,
                };
                if below || above {
                    let (which, bound) = if below {
                        ("below the minimum", self.minimum.unwrap_or_default())
                    } else {
                        ("above the maximum", self.maximum.unwrap_or_default())
                    };
                    Err(self.error(format!(
                        "{} is {which} {}; write {}",
                        typed.render(),
                        plain(bound),
                        self.range_text()
                    )))
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }

    fn range_text(&self) -> String {
        let what = if self.kind == SlotKind::Integer {
            "an integer"
        } else {
            "a number"
        };
        match (self.minimum, self.maximum) {
            (Some(min), Some(max)) => format!("{what} from {} to {}", plain(min), plain(max)),
            (Some(min), None) => format!("{what} of at least {}", plain(min)),
            (None, Some(max)) => format!("{what} of at most {}", plain(max)),
            (None, None) => what.to_owned(),
        }
    }

    /// An error about this slot.
    pub(crate) fn error(&self, reason: impl Into<String>) -> SlotError {
        SlotError::new(self.name.clone(), reason)
    }

    /// Checks the author's constraints themselves (what [`crate::CommandSpec::new`] refuses):
    /// returns the problem, if any, as an [`AuthorProblem`].
    pub(crate) fn author_problem(&self) -> Option<AuthorProblem> {
        if self.description.trim().is_empty() {
            return Some(AuthorProblem::EmptyDescription);
        }
        if let SlotKind::Enum(values) = &self.kind {
            if values.is_empty() {
                return Some(AuthorProblem::EmptyEnum);
            }
            for value in values {
                if let Err(reason) = check_enum_value(value) {
                    return Some(AuthorProblem::EnumValue {
                        value: value.clone(),
                        reason,
                    });
                }
            }
        }
        if self.pattern.is_some() && self.kind != SlotKind::String {
            return Some(AuthorProblem::PatternNotForKind);
        }
        if let Some(Err(message)) = &self.regex {
            return Some(AuthorProblem::InvalidPattern {
                pattern: self.pattern.clone().unwrap_or_default(),
                message: message.clone(),
            });
        }
        if (self.minimum.is_some() || self.maximum.is_some()) && !self.kind.is_numeric() {
            return Some(AuthorProblem::RangeNotForKind);
        }
        for bound in [self.minimum, self.maximum].into_iter().flatten() {
            if !bound.is_finite() {
                return Some(AuthorProblem::InvalidRange(format!(
                    "the bound {bound} is not a finite number; write a finite one"
                )));
            }
        }
        if let (Some(min), Some(max)) = (self.minimum, self.maximum) {
            if min > max {
                return Some(AuthorProblem::InvalidRange(format!(
                    "the minimum {} is above the maximum {}; swap them",
                    plain(min),
                    plain(max)
                )));
            }
        }
        if self.kind == SlotKind::Integer {
            if let (Some(min), Some(max)) = (self.minimum, self.maximum) {
                if min.ceil() > max.floor() {
                    return Some(AuthorProblem::InvalidRange(format!(
                        "no integer lies between {} and {}; widen the range",
                        plain(min),
                        plain(max)
                    )));
                }
            }
        }
        if let Some(default) = &self.default {
            if let Err(e) = self.check_default(default) {
                return Some(AuthorProblem::InvalidDefault(e.reason));
            }
        }
        None
    }

    /// A default must pass every check a call's value passes that does not need the
    /// working directory (a path default is confined when it is rendered, at call time).
    fn check_default(&self, default: &Value) -> Result<(), SlotError> {
        if default.is_null() {
            return Err(self.error(
                "a default of `null` means no default; leave it out and mark the slot optional",
            ));
        }
        let typed = self.check_type(default)?;
        self.check_constraints(&typed)?;
        let text = typed.render();
        self.check_chars(&text)?;
        if self.kind == SlotKind::Path {
            self.check_path_dash(&text)?;
            self.lexical_path(&text)?;
        }
        Ok(())
    }
}

/// A value that passed its type check.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Typed {
    /// A string (string, enum and path slots).
    Text(String),
    /// A whole number, inside the i64/u64 range.
    Int(i128),
    /// A finite number that is not whole.
    Float(f64),
}

impl Typed {
    /// The value's text: strings as given, integers in plain decimal, numbers in Rust's
    /// shortest round-trip form, which never uses exponent notation.
    pub(crate) fn render(&self) -> String {
        match self {
            Typed::Text(s) => s.clone(),
            Typed::Int(i) => i.to_string(),
            Typed::Float(f) => plain(*f),
        }
    }
}

/// A number in plain decimal (`-0` shown as `0`, never exponent notation).
fn plain(f: f64) -> String {
    if f == 0.0 {
        "0".to_owned()
    } else {
        format!("{f}")
    }
}

fn int_below(i: i128, min: f64) -> bool {
    let min = min.ceil();
    if min > 1e30 {
        true
    } else if min < -1e30 {
        false
    } else {
        i < min as i128
    }
}

fn int_above(i: i128, max: f64) -> bool {
    let max = max.floor();
    if max > 1e30 {
        false
    } else if max < -1e30 {
        true
    } else {
        i > max as i128
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

/// What the author got wrong in one slot spec (turned into a [`crate::SpecError`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AuthorProblem {
    EmptyDescription,
    EmptyEnum,
    EnumValue { value: String, reason: String },
    PatternNotForKind,
    InvalidPattern { pattern: String, message: String },
    RangeNotForKind,
    InvalidRange(String),
    InvalidDefault(String),
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

fn describe_value(value: &Value) -> String {
    match value {
        Value::Null => "`null`".into(),
        Value::Bool(b) => format!("the boolean `{b}`"),
        Value::Number(n) => format!("`{n}`"),
        Value::String(s) => format!("the string `\"{}\"`", shown(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn list(values: &[String]) -> String {
    values
        .iter()
        .map(|v| format!("`{}`", shown(v)))
        .collect::<Vec<_>>()
        .join(", ")
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
    let typed = spec.check_type(value)?;
    spec.check_constraints(&typed)?;
    let text = typed.render();
    spec.check_chars(&text)?;
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

    #[test]
    fn numbers_render_without_exponent() {
        assert_eq!(Typed::Float(1e300).render().len(), 301);
        assert_eq!(Typed::Float(1e-7).render(), "0.0000001");
        assert_eq!(Typed::Float(-0.0).render(), "0");
        assert_eq!(Typed::Float(2.5).render(), "2.5");
    }

    #[test]
    fn integers_accept_whole_floats_and_refuse_the_rest() {
        let s = SlotSpec::new("n", SlotKind::Integer, "n");
        assert_eq!(s.check_type(&json!(2.0)).unwrap(), Typed::Int(2));
        assert_eq!(
            s.check_type(&json!(u64::MAX)).unwrap(),
            Typed::Int(u64::MAX as i128)
        );
        assert!(s.check_type(&json!(2.5)).is_err());
        assert!(s.check_type(&json!(1e20)).is_err());
        assert!(s.check_type(&json!("2")).is_err());
    }

    #[test]
    fn pattern_is_anchored_even_for_a_balanced_alternation() {
        let s = SlotSpec::new("r", SlotKind::String, "r").with_pattern(r"\d+|x");
        assert!(s.check_constraints(&Typed::Text("12".into())).is_ok());
        assert!(s.check_constraints(&Typed::Text("12;w".into())).is_err());
        assert!(s.check_constraints(&Typed::Text("ax".into())).is_err());
        let bad = SlotSpec::new("r", SlotKind::String, "r").with_pattern(r"a)|(b");
        assert!(matches!(
            bad.author_problem(),
            Some(AuthorProblem::InvalidPattern { .. })
        ));
    }

    #[test]
    fn schema_pattern_is_published_anchored() {
        assert_eq!(anchored_pattern(r"^\d+$"), r"^\d+$");
        assert_eq!(anchored_pattern(r"\d+"), r"^(?:\d+)$");
        assert_eq!(anchored_pattern(r"^a|b$"), r"^(?:^a|b$)$");
        assert_eq!(anchored_pattern(r"^a\$"), r"^(?:^a\$)$");
    }
}
