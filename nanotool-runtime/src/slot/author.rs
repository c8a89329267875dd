//! The author's side of a slot spec: what [`crate::CommandSpec::new`] refuses in the spec
//! itself (an empty description or enum, a bad enum value, a pattern or range the kind cannot
//! have, a default that would not pass a call's checks).

use super::chars::check_enum_value;
use super::value::plain;
use super::{SlotError, SlotKind, SlotSpec};
use serde_json::Value;

impl SlotSpec {
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
        if let Some(message) = self.pattern_error() {
            return Some(AuthorProblem::InvalidPattern {
                pattern: self.pattern.clone().unwrap_or_default(),
                message: message.to_owned(),
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
        if let (Some(min), Some(max)) = (self.minimum, self.maximum)
            && min > max
        {
            return Some(AuthorProblem::InvalidRange(format!(
                "the minimum {} is above the maximum {}; swap them",
                plain(min),
                plain(max)
            )));
        }
        if self.kind == SlotKind::Integer
            && let (Some(min), Some(max)) = (self.minimum, self.maximum)
            && min.ceil() > max.floor()
        {
            return Some(AuthorProblem::InvalidRange(format!(
                "no integer lies between {} and {}; widen the range",
                plain(min),
                plain(max)
            )));
        }
        if let Some(default) = &self.default
            && let Err(e) = self.check_default(default)
        {
            return Some(AuthorProblem::InvalidDefault(e.reason));
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
        let text = self.checked_text(default)?;
        if self.kind == SlotKind::Path {
            self.check_path_dash(&text)?;
            self.lexical_path(&text)?;
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slot::Typed;

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
}
