//! # nanotool
//!
//! Command tools for LLM agents whose safety is a property of their shape. This crate is the
//! facade: it re-exports [`nanotool_runtime`] and the `#[command_tool]` macro.
#![deny(missing_docs)]

extern crate self as nanotool;

pub mod builtins;
pub mod mcp;

pub use nanotool_macros::{SlotEnum, command_tool};
pub use nanotool_runtime::*;

/// What the code `#[command_tool]` and `#[derive(SlotEnum)]` generate names; not an API.
#[doc(hidden)]
pub mod __private {
    pub use nanotool_runtime::slot_type::{
        CommandStruct, DefaultDef, SlotClass, SlotDef, SlotType, TypedTool, build_tool, typed_argv,
        typed_from_args, typed_run,
    };
    pub use nanotool_runtime::{
        Argv, CommandExecKernel, CommandSpec, CommandTool, ExecResult, SlotError, SlotKind,
        SpecError,
    };
    pub use serde_json::{Map, Value};
    pub use std::sync::OnceLock;
}
