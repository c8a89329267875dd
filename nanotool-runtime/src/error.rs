//! The error codes every form of tool shares.
//!
//! The typed errors themselves live beside the code that raises them
//! ([`crate::SpecError`], [`crate::SlotError`], [`crate::DescriptorError`], ...); this module
//! only fixes the numbers, so that a host, the CLI and the MCP server all speak the same codes.

/// A descriptor (`*.tool.json`) is invalid: bad JSON, unknown field, bad template, denied
/// binary, incomplete slot schema, name conflict. The file is skipped; the others load.
pub const CODE_INVALID_DESCRIPTOR: u16 = 613;

/// A call's arguments failed slot validation. Returned to the model as the tool's result text,
/// marked as an error; the agent carries on.
pub const CODE_INVALID_ARGUMENTS: u16 = 614;
