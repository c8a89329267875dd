//! What a value may hold: every character but the few that mislead a reader (control
//! characters other than newline and tab, Unicode whitespace other than the space, format
//! characters), for a slot's value and for an enum value alike, and how an error names them.

use super::{SlotError, SlotSpec, shown};
use crate::template::is_format_char;

impl SlotSpec {
    /// Stage "metacharacters", on the value's text.
    pub(crate) fn check_chars(&self, text: &str) -> Result<(), SlotError> {
        match text.chars().find(|c| is_forbidden_char(*c)) {
            None => Ok(()),
            Some(c) => Err(self.error(format!(
                "`{}` holds {}, which no argument may hold; {}",
                shown(text),
                char_name(c),
                char_advice(c)
            ))),
        }
    }
}

/// Whether a character may never appear in a slot value (a call's value, a default or an
/// enum value): control characters other than newline and tab (NUL, CR, ESC, ...), Unicode
/// whitespace other than the ASCII space, and Unicode format characters (bidi controls,
/// zero-width ones). These make a value read differently than it runs.
///
/// Everything else is allowed, the ASCII space, newline, tab, quotes and `;|&$<>` and the
/// backtick included: no shell ever sees a value, one slot is one argv element and nothing
/// expands it, so these characters reach the program as written.
///
/// ```
/// use nanotool_runtime::slot::is_forbidden_char;
/// for ok in [' ', '\n', '\t', '"', '\'', ';', '|', '&', '$', '`', '<', '>', '\\', 'é'] {
///     assert!(!is_forbidden_char(ok), "{ok:?}");
/// }
/// for bad in ['\0', '\r', '\u{1b}', '\u{85}', '\u{a0}', '\u{2028}', '\u{202e}', '\u{200b}'] {
///     assert!(is_forbidden_char(bad), "{bad:?}");
/// }
/// ```
pub fn is_forbidden_char(c: char) -> bool {
    if matches!(c, ' ' | '\n' | '\t') {
        return false;
    }
    c.is_whitespace() || c.is_control() || is_format_char(c)
}

/// Checks an enum value the author wrote: the same characters as any value
/// ([`is_forbidden_char`]), and not empty. It may hold a space (`SELECT name FROM t`), a `;`
/// (a `cut -d` delimiter) or begin with `-` (`-l`): it stays one argv element. The descriptor
/// loader (through [`crate::CommandSpec::new`]) and `#[derive(SlotEnum)]` both call this.
///
/// ```
/// use nanotool_runtime::slot::check_enum_value;
/// assert!(check_enum_value("-l").is_ok());
/// assert!(check_enum_value(";").is_ok());
/// assert!(check_enum_value("SELECT name FROM users;").is_ok());
/// assert!(check_enum_value("").is_err());
/// assert!(check_enum_value("a\u{202e}b").unwrap_err().contains("U+202E"));
/// ```
pub fn check_enum_value(value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Err("is empty; write a value the command understands".into());
    }
    match value.chars().find(|c| is_forbidden_char(*c)) {
        Some(c) => Err(format!(
            "holds {}, which no argument may hold; {}",
            char_name(c),
            char_advice(c)
        )),
        None => Ok(()),
    }
}

fn char_name(c: char) -> String {
    match c {
        '\r' => "a carriage return".into(),
        '\0' => "a NUL".into(),
        '\u{1b}' => "an escape character (ESC)".into(),
        c if c.is_whitespace() => format!("the whitespace character U+{:04X}", c as u32),
        c if c.is_control() => format!("the control character U+{:04X}", c as u32),
        c => format!("the invisible character U+{:04X}", c as u32),
    }
}

fn char_advice(c: char) -> &'static str {
    match c {
        '\r' => "it would make the text read differently than it runs; end lines with `\\n` alone",
        c if c.is_whitespace() => "it looks like a space but is not one; write a plain ASCII space",
        c if c.is_control() => {
            "control characters make a value read differently than it runs; remove it (a \
             newline and a tab are fine)"
        }
        _ => {
            "invisible characters make a value read differently than it runs; remove it and \
             write plain visible text"
        }
    }
}
