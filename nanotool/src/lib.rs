//! # nanotool
//!
//! Command tools for LLM agents whose safety is a property of their shape. This crate is the
//! facade: it re-exports [`nanotool_runtime`] and the `#[command_tool]` macro.
#![deny(missing_docs)]

pub use nanotool_macros::command_tool;
pub use nanotool_runtime::*;

pub mod mcp;
