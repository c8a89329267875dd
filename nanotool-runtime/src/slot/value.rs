//! One value against its slot: the JSON type (a value becomes a [`Typed`]), the author's
//! constraints (enum values, the pattern, the range), and how the value is rendered as text.

use super::{SlotError, SlotKind, SlotSpec, shown};
use serde_json::Value;

impl SlotSpec {
    /// The checks of one value that need no working directory: its type, the author's
    /// constraints and its characters; returns its text.
    pub(crate) fn checked_text(&self, value: &Value) -> Result<String, SlotError> {
        let typed = self.check_type(value)?;
        self.check_constraints(&typed)?;
        let text = typed.render();
        self.check_chars(&text)?;
        Ok(text)
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
                    if let Some(i) = exact_int(n) {
                        Ok(Typed::Int(i))
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
                    if let Some(i) = exact_int(n) {
                        Ok(Typed::Int(i))
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
                // Only a pattern compiled on first use can get here (one given by
                // `with_pattern` is refused when the spec is built): no value passes it.
                Some(Err(e)) => Err(self.error(format!(
                    "the argument's pattern `{}` cannot be compiled ({e}): no value can be \
                     checked against it; this is the tool's fault, not the call's",
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
}

/// A JSON number written as a whole number inside the i64/u64 range (`2`; `2.0` is not).
fn exact_int(n: &serde_json::Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
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
pub(super) fn plain(f: f64) -> String {
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
}
