//! The object-safe [`Tool`] trait every form implements, [`ToolOutput`], and [`CommandTool`]:
//! a [`CommandSpec`] as a tool (the one call path shared by the macro and descriptors).
//!
//! STUB — being written; the signatures below are the contract.

use crate::kernel::{CancelHandle, CommandExecKernel, ExecResult};
use crate::spec::CommandSpec;
use serde_json::Value;

/// What a tool call needs from its host.
#[derive(Debug, Clone, Copy)]
pub struct ToolContext<'a> {
    /// The kernel every command runs through.
    pub kernel: &'a CommandExecKernel,
    /// Fires to cancel the call, if the host can cancel.
    pub cancel: Option<&'a CancelHandle>,
}

/// The result of one tool call, as the model sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The result text.
    pub text: String,
    /// Whether the call failed (refused, failed to start, timed out, non-zero exit).
    pub is_error: bool,
    /// The error code (614 for refused arguments), if any.
    pub code: Option<u16>,
    /// What the kernel did, when a command ran.
    pub exec: Option<ExecResult>,
}

/// One tool: a name, a description, an input schema, and a call.
pub trait Tool: Send + Sync {
    /// The tool's name (`^[A-Za-z0-9_-]{1,64}$`).
    fn name(&self) -> &str;
    /// What the tool does, for the model.
    fn description(&self) -> &str;
    /// The JSON Schema of the arguments.
    fn input_schema(&self) -> Value;
    /// The spec behind the tool, when it is a command tool (the host's deny list checks it).
    fn spec(&self) -> Option<&CommandSpec> {
        None
    }
    /// Runs one call.
    fn call(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput;
}

/// A [`CommandSpec`] as a [`Tool`].
#[derive(Debug, Clone)]
pub struct CommandTool {
    spec: CommandSpec,
}
