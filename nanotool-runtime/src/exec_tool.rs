//! [`ExecTool`]: the free-text form, off by default, guarded by five layers (DESIGN §8).
//!
//! STUB — being written.

/// The free-text tool `exec`.
#[derive(Debug, Default)]
pub struct ExecTool {}
