//! [`ExitCodes`]: the exit statuses of a tool's command that are not failures, each with what
//! it means (`grep`'s 1 is "no match", `diff`'s 1 is "the files differ"). The code form
//! (`exit_codes(1 = "no match")`) and descriptors (`"exit_codes": {"1": "no match"}`) give
//! them to one [`CommandSpec::with_exit_codes`](super::CommandSpec::with_exit_codes), which
//! checks them with [`check_exit_code`]; a call that ends with one is not an error, and its
//! result says what the status means (`exit: 1 (no match)`).
//!
//! ```
//! use nanotool_runtime::spec::ExitCodes;
//!
//! let codes = ExitCodes::new().with(1, "no match");
//! codes.check().unwrap();
//! assert_eq!(codes.meaning(1), Some("no match"));
//! assert_eq!(codes.meaning(2), None);
//!
//! let err = ExitCodes::new().with(127, "not found").check().unwrap_err();
//! assert!(err.to_string().starts_with("exit status 127: "), "{err}");
//! ```

use thiserror::Error;

/// The highest exit status a tool may declare: from 124 up the statuses are the kernel's own
/// (124 timed out, 126 and 127 could not run, 128 + N killed by signal N) or out of a
/// process's range.
pub const MAX_DECLARED_EXIT_CODE: i64 = 123;

/// The most exit statuses one tool may declare.
pub const MAX_EXIT_CODES: usize = 8;

/// The longest meaning of one status, in characters: a few words the model reads after the
/// status.
pub const MAX_EXIT_MEANING_CHARS: usize = 60;

/// Exit statuses other than 0 that are not failures, each with its meaning, in status order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExitCodes {
    codes: Vec<(i64, String)>,
}

impl ExitCodes {
    /// None declared: only 0 is a success.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same declarations with `code` meaning `meaning` (a status given twice takes the
    /// later meaning). Checked by [`ExitCodes::check`], which
    /// [`CommandSpec::with_exit_codes`](super::CommandSpec::with_exit_codes) runs.
    pub fn with(mut self, code: i64, meaning: impl Into<String>) -> Self {
        let meaning = meaning.into();
        match self.codes.binary_search_by_key(&code, |(c, _)| *c) {
            Ok(at) => self.codes[at].1 = meaning,
            Err(at) => self.codes.insert(at, (code, meaning)),
        }
        self
    }

    /// Whether none is declared.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// The declared statuses and their meanings, in status order.
    pub fn iter(&self) -> impl Iterator<Item = (i64, &str)> {
        self.codes.iter().map(|(c, m)| (*c, m.as_str()))
    }

    /// What `code` means, when it is declared (0 is never declared: it is success anyway).
    pub fn meaning(&self, code: i32) -> Option<&str> {
        self.codes
            .binary_search_by_key(&i64::from(code), |(c, _)| *c)
            .ok()
            .map(|at| self.codes[at].1.as_str())
    }

    /// Checks every declaration ([`check_exit_code`]) and their number.
    pub fn check(&self) -> Result<(), ExitCodeError> {
        if self.codes.len() > MAX_EXIT_CODES {
            return Err(ExitCodeError::TooMany {
                count: self.codes.len(),
            });
        }
        for (code, meaning) in &self.codes {
            check_exit_code(*code, meaning)?;
        }
        Ok(())
    }
}

/// Why a declared exit status cannot be used (613 in a descriptor, a compile error in the code
/// form).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ExitCodeError {
    /// The status is 0 (always a success), negative, or one of the kernel's.
    #[error("exit status {code}: {reason}")]
    Status {
        /// The status as given.
        code: i64,
        /// Why, and what to write instead.
        reason: String,
    },
    /// The meaning is empty, too long, or not one line of plain text.
    #[error("exit status {code}: its meaning {reason}")]
    Meaning {
        /// The status.
        code: i64,
        /// Why, and what to write instead.
        reason: String,
    },
    /// More statuses than [`MAX_EXIT_CODES`].
    #[error(
        "{count} exit statuses: a tool may declare at most {MAX_EXIT_CODES} statuses that are not failures"
    )]
    TooMany {
        /// How many were given.
        count: usize,
    },
}

impl ExitCodeError {
    /// The status at fault, when the error is about one.
    pub fn code(&self) -> Option<i64> {
        match self {
            ExitCodeError::Status { code, .. } | ExitCodeError::Meaning { code, .. } => Some(*code),
            ExitCodeError::TooMany { .. } => None,
        }
    }
}

/// Checks one declaration: a status from 1 to [`MAX_DECLARED_EXIT_CODE`], and a meaning of one
/// line of 1 to [`MAX_EXIT_MEANING_CHARS`] characters without control characters.
///
/// ```
/// use nanotool_runtime::spec::check_exit_code;
///
/// check_exit_code(1, "no match").unwrap();
/// assert!(check_exit_code(0, "ok").is_err());
/// assert!(check_exit_code(124, "slow").is_err());
/// assert!(check_exit_code(1, "").is_err());
/// assert!(check_exit_code(1, "two\nlines").is_err());
/// ```
pub fn check_exit_code(code: i64, meaning: &str) -> Result<(), ExitCodeError> {
    let status = |reason: &str| {
        Err(ExitCodeError::Status {
            code,
            reason: reason.to_owned(),
        })
    };
    if code == 0 {
        return status(
            "0 is a success already; declare only statuses other than 0 that are not failures (e.g. grep's 1, \"no match\")",
        );
    }
    if code < 0 {
        return status("an exit status is a whole number from 1 to 123");
    }
    if code > MAX_DECLARED_EXIT_CODE {
        return status(
            "statuses from 124 up are the kernel's (124 timed out, 126 and 127 could not run, 128 + N killed by signal N) and stay failures; declare a status from 1 to 123",
        );
    }
    let meaning_error = |reason: &str| {
        Err(ExitCodeError::Meaning {
            code,
            reason: reason.to_owned(),
        })
    };
    if meaning.trim().is_empty() {
        return meaning_error("is empty; say in a few words what it means, e.g. \"no match\"");
    }
    if meaning.chars().any(char::is_control) {
        return meaning_error(
            "has a control character (a newline, a tab, ...); write one line of plain text",
        );
    }
    let chars = meaning.chars().count();
    if chars > MAX_EXIT_MEANING_CHARS {
        return Err(ExitCodeError::Meaning {
            code,
            reason: format!(
                "has {chars} characters; keep it to {MAX_EXIT_MEANING_CHARS} (a few words, e.g. \"the files differ\")"
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_kept_in_status_order_and_looked_up() {
        let codes = ExitCodes::new()
            .with(2, "second")
            .with(1, "no match")
            .with(2, "changed");
        assert_eq!(
            codes.iter().collect::<Vec<_>>(),
            [(1, "no match"), (2, "changed")]
        );
        assert_eq!(codes.meaning(1), Some("no match"));
        assert_eq!(codes.meaning(0), None);
        assert_eq!(codes.meaning(-1), None);
        codes.check().unwrap();
    }

    #[test]
    fn each_bad_declaration_says_what_to_write() {
        let cases: &[(i64, &str, &str)] = &[
            (0, "ok", "0 is a success already"),
            (-1, "x", "from 1 to 123"),
            (124, "slow", "124 timed out"),
            (127, "missing", "126 and 127 could not run"),
            (300, "x", "declare a status from 1 to 123"),
            (1, " ", "is empty"),
            (1, "a\tb", "control character"),
        ];
        for (code, meaning, expected) in cases {
            let err = check_exit_code(*code, meaning).unwrap_err();
            assert!(err.to_string().contains(expected), "{code}: {err}");
            assert_eq!(err.code(), Some(*code));
        }
        let long = "x".repeat(MAX_EXIT_MEANING_CHARS + 1);
        let err = check_exit_code(1, &long).unwrap_err();
        assert!(err.to_string().contains("61 characters"), "{err}");
        let mut many = ExitCodes::new();
        for code in 1..=(MAX_EXIT_CODES as i64 + 1) {
            many = many.with(code, "fine");
        }
        assert_eq!(
            many.check().unwrap_err(),
            ExitCodeError::TooMany {
                count: MAX_EXIT_CODES + 1
            }
        );
    }
}
