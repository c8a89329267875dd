//! [`Toolbox`] (DESIGN §8): assembly of tools, the host deny list, provider exports.
//!
//! STUB — being written.

use thiserror::Error;

/// Why a tool could not be registered.
#[derive(Debug, Error)]
pub enum RegisterError {
    /// Another tool has this name.
    #[error("a tool named `{0}` is already registered")]
    NameConflict(String),
}

/// Holds the kernel and the registered tools.
#[derive(Default)]
pub struct Toolbox {}
