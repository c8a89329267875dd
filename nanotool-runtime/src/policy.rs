//! Policy shared by every form (DESIGN §4): the deny list and the code-entry table, as data,
//! and the checks over them.
//!
//! STUB — the full tables and checks are being written; the signatures below are the contract.

use crate::template::Template;
use thiserror::Error;

/// Binaries no template may run, whatever the host says (DESIGN §4). `mkfs*` is matched as a
/// prefix, see [`is_denied`].
pub const DENIED_BINARIES: &[&str] = &["rm"];

/// How free a slot is: whether it could carry code if it stood where code goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotFreedom {
    /// A free string or path: it could carry anything.
    Free,
    /// An integer, number, enum, or a string with a `pattern`: it cannot carry code.
    Constrained,
}

/// The basename of a binary as written (`/bin/rm` → `rm`, `./rm` → `rm`).
pub fn binary_basename(binary: &str) -> &str {
    binary.rsplit('/').next().unwrap_or(binary)
}

/// Whether a binary (as written in a template, a bare name or a path) is denied by the
/// built-in list or by `extra` (the host's additions).
pub fn is_denied(binary: &str, extra: &[String]) -> bool {
    let base = binary_basename(binary);
    DENIED_BINARIES.contains(&base) || extra.iter().any(|d| d == base)
}

/// A template the policy refuses.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PolicyError {
    /// The binary is on the deny list.
    #[error("binary `{binary}` is denied")]
    DeniedBinary {
        /// The binary as written.
        binary: String,
    },
}

/// Checks a parsed template against the deny list (built-in plus `extra`) and the code-entry
/// table; `freedom` tells how free each slot is.
pub fn check_template(
    template: &Template,
    freedom: &dyn Fn(&str) -> SlotFreedom,
    extra_deny: &[String],
) -> Result<(), PolicyError> {
    let _ = freedom;
    if is_denied(template.binary(), extra_deny) {
        return Err(PolicyError::DeniedBinary {
            binary: template.binary().to_owned(),
        });
    }
    Ok(())
}
