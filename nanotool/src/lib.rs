//! # nanotool
//!
//! Command tools for LLM agents whose safety is a property of their shape. This crate is the
//! facade: it re-exports [`nanotool_runtime`] and the `#[command_tool]` macro.
#![deny(missing_docs)]

extern crate self as nanotool;

pub mod adapters;
pub mod builtins;
#[cfg(feature = "mcp")]
pub mod mcp;

pub use nanotool_macros::{SlotEnum, command_tool};
pub use nanotool_runtime::*;

/// What the code `#[command_tool]` and `#[derive(SlotEnum)]` generate names; not an API.
#[doc(hidden)]
pub mod __private {
    pub use nanotool_runtime::policy::SlotFreedom;
    pub use nanotool_runtime::slot_type::{
        CommandStruct, DefaultDef, SlotClass, SlotDef, SlotType, args_object, build_tool, require,
    };
    pub use nanotool_runtime::{CommandSpec, CommandTool, SlotError, SlotKind, SpecError};
    pub use serde_json::Value;
    pub use std::sync::OnceLock;
}
