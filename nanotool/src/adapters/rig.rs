//! The tools of a [`Toolbox`] as [rig](::rig_core) dynamic tools (feature `rig`): one
//! [`DynamicTool`] per tool ([`dynamic_tools`]), gathered in a rig [`ToolSet`] ([`tool_set`],
//! [`add_tools`]) that an agent advertises and dispatches by name.
//!
//! Each rig tool has the tool's name, its description, and as parameters the same JSON Schema
//! as the `inputSchema` that `nanotool serve` lists. A call goes through
//! [`Toolbox::call_async`] by name (so through [`Toolbox::call`]: the host's deny list
//! holds) and answers what `nanotool serve` shows the model ([`result_of`]):
//!
//! | nanotool's answer | rig's answer |
//! |---|---|
//! | the command ran and exited 0 | success, the tool's text |
//! | refused (614: bad arguments, a denied binary) | [`ToolErrorKind::InvalidArgs`], **retryable**, code `614` |
//! | the command exited non-zero or was killed by a signal | [`ToolErrorKind::Other`], not retryable, code: the exit code |
//! | the command timed out | [`ToolErrorKind::Timeout`], not retryable, code `124` |
//! | the command was cancelled | [`ToolErrorKind::Cancelled`], not retryable, code `130` |
//! | the command could not start (missing binary, ...) | [`ToolErrorKind::Other`], not retryable, code `127` or `126` |
//! | the tool panicked | [`ToolErrorKind::Other`], not retryable, code `panicked` |
//!
//! Every error carries nanotool's full text as the model-visible output (and as the
//! operator's message), so the model reads the same words as over `nanotool serve`: what was
//! refused and what to change, or the command's exit code and output.
//!
//! Dropping rig's call future (an agent's timeout, a run cancelled) drops the
//! [`ToolCall`](crate::ToolCall): the command's process group is killed. A tool that panics is
//! caught on nanotool's worker thread and answers an error; the host's runtime never sees it.
//!
//! rig 0.44 splits its tool contract (`rig-core`) from the agent runtime that holds the
//! [`ToolSet`] (`rig-agent`); both are re-exported ([`rig_core`],
//! [`rig_agent`]) so the versions match.
//!
//! ```
//! use nanotool::adapters::rig::{rig_core::tool::ToolContext, tool_set};
//! use nanotool::{CommandExecKernel, CommandSpec, CommandTool, KernelSettings, SlotKind, SlotSpec, Toolbox};
//! use std::sync::Arc;
//!
//! let mut toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings::default()).unwrap());
//! let spec = CommandSpec::new(
//!     "count_lines",
//!     "Count the lines of a file",
//!     "wc -l <file>",
//!     vec![SlotSpec::new("file", SlotKind::Path, "The file to count")],
//! )
//! .unwrap();
//! toolbox.register(CommandTool::new(spec)).unwrap();
//! let tools = tool_set(Arc::new(toolbox));
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! runtime.block_on(async {
//!     let mut context = ToolContext::new();
//!     let result = tools
//!         .execute("count_lines", r#"{"file": "Cargo.toml"}"#, &mut context)
//!         .await;
//!     assert!(result.is_success());
//!     assert!(result.output().as_text().unwrap().starts_with("exit: 0\n"));
//!
//!     // A refused call: the model reads nanotool's 614 text, and may try again.
//!     let result = tools
//!         .execute("count_lines", r#"{"file": "/etc/shadow"}"#, &mut context)
//!         .await;
//!     let error = result.error().unwrap();
//!     assert_eq!(error.retryable(), Some(true));
//!     assert!(result.output().as_text().unwrap().starts_with("error 614: "));
//! });
//! ```

pub use ::rig_agent;
pub use ::rig_core;

use crate::UnknownTool;
use crate::{CODE_INVALID_ARGUMENTS, CallError, ToolOutput, Toolbox};
use ::rig_agent::tool::ToolSet;
use ::rig_core::message::ToolName;
use ::rig_core::tool::{
    DynamicTool, ToolErrorKind, ToolExecutionError, ToolOutput as RigOutput, ToolResult,
};
use nanotool_runtime::export::mcp_definition;
use nanotool_runtime::hint::did_you_mean;
use std::sync::Arc;

/// The tool named `name` as a rig [`DynamicTool`]: its name, its description, its input
/// schema (the MCP `inputSchema`), and a callback that calls it through
/// [`Toolbox::call_async`] and answers [`result_of`] (or [`error_of`]).
///
/// ```
/// use nanotool::adapters::rig::dynamic_tool;
/// use nanotool::{CommandExecKernel, KernelSettings, Toolbox, builtins};
/// use std::sync::Arc;
///
/// let mut toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings::default()).unwrap());
/// for tool in builtins::all() {
///     toolbox.register_arc(tool).unwrap();
/// }
/// let toolbox = Arc::new(toolbox);
/// let grep = dynamic_tool(&toolbox, "grep").unwrap();
/// assert_eq!(grep.definition().parameters["type"], "object");
/// assert_eq!(
///     dynamic_tool(&toolbox, "grp").unwrap_err().to_string(),
///     "unknown tool `grp`; did you mean `grep`?"
/// );
/// ```
pub fn dynamic_tool(toolbox: &Arc<Toolbox>, name: &str) -> Result<DynamicTool, UnknownTool> {
    let index = toolbox.position(name)?;
    let tool = &toolbox.tools()[index];
    let definition = mcp_definition(tool.as_ref(), false);
    let tool_name = ToolName::new(tool.name()).expect("a registered tool has a name");
    let toolbox = Arc::clone(toolbox);
    let name = tool.name().to_owned();
    Ok(DynamicTool::new(
        tool_name,
        tool.description(),
        definition["inputSchema"].clone(),
        move |args| {
            let toolbox = Arc::clone(&toolbox);
            let name = name.clone();
            // The call starts when rig polls this future; dropping it cancels the call.
            Box::pin(async move {
                match toolbox.call_async(&name, args).await {
                    Ok(output) => result_of(&output),
                    Err(error) => Err(error_of(&error)),
                }
            })
        },
    ))
}

/// Every tool of `toolbox` as a rig [`DynamicTool`] ([`dynamic_tool`]), in the toolbox's
/// order.
///
/// ```
/// use nanotool::adapters::rig::dynamic_tools;
/// use nanotool::{CommandExecKernel, KernelSettings, Toolbox, builtins};
/// use std::sync::Arc;
///
/// let mut toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings::default()).unwrap());
/// for tool in builtins::all() {
///     toolbox.register_arc(tool).unwrap();
/// }
/// let tools = dynamic_tools(&Arc::new(toolbox));
/// assert!(tools.iter().any(|tool| tool.name() == "grep"));
/// ```
pub fn dynamic_tools(toolbox: &Arc<Toolbox>) -> Vec<DynamicTool> {
    toolbox
        .tools()
        .iter()
        .map(|tool| dynamic_tool(toolbox, tool.name()).expect("a listed tool is registered"))
        .collect()
}

/// A rig [`ToolSet`] of every tool of `toolbox`, in the toolbox's order: give it to an agent
/// (`AgentBuilder::tools`) or call a tool by name with [`ToolSet::execute`]. See the
/// [module](self) for an example.
pub fn tool_set(toolbox: Arc<Toolbox>) -> ToolSet {
    ToolSet::from_dynamic_tools(dynamic_tools(&toolbox))
}

/// Adds every tool of `toolbox` to `set`, beside the host's own tools; a tool of the same
/// name already in `set` is replaced (rig's rule). Returns the names added.
///
/// ```
/// use nanotool::adapters::rig::{add_tools, rig_agent::tool::ToolSet};
/// use nanotool::{CommandExecKernel, KernelSettings, Toolbox, builtins};
/// use std::sync::Arc;
///
/// let mut toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings::default()).unwrap());
/// for tool in builtins::all() {
///     toolbox.register_arc(tool).unwrap();
/// }
/// let mut set = ToolSet::default();
/// let added = add_tools(&mut set, Arc::new(toolbox));
/// assert!(added.iter().any(|name| name == "grep"));
/// assert!(set.contains("grep"));
/// ```
pub fn add_tools(set: &mut ToolSet, toolbox: Arc<Toolbox>) -> Vec<String> {
    dynamic_tools(&toolbox)
        .into_iter()
        .map(|tool| set.add_dynamic_tool(tool))
        .collect()
}

/// `output` as rig's answer (see the table in the [module](self)): the text on success, else
/// a [`ToolExecutionError`] whose model-visible output is the full text, classified by what
/// happened. A refusal (614) is the one retryable error: the text says what to change.
///
/// ```
/// use nanotool::adapters::rig::{result_of, rig_core::tool::ToolErrorKind};
/// use nanotool::{SlotError, ToolOutput};
///
/// let refused = ToolOutput::refused(&SlotError::new("file", "`/etc/shadow` is absolute"));
/// let error = result_of(&refused).unwrap_err();
/// assert_eq!(error.kind(), ToolErrorKind::InvalidArgs);
/// assert_eq!(error.retryable(), Some(true));
/// assert_eq!(error.code(), Some("614"));
/// assert_eq!(
///     error.model_feedback(),
///     Some("error 614: argument `file`: `/etc/shadow` is absolute")
/// );
/// ```
pub fn result_of(output: &ToolOutput) -> Result<RigOutput, ToolExecutionError> {
    if !output.is_error {
        return Ok(RigOutput::text(output.text.clone()));
    }
    let text = output.text.clone();
    let error = match (&output.exec, output.code) {
        (_, Some(CODE_INVALID_ARGUMENTS)) => ToolExecutionError::invalid_args(text)
            .with_retryable(true)
            .with_code(CODE_INVALID_ARGUMENTS.to_string()),
        // No tool answers another code today; should one, it is not a refusal to retry.
        (_, Some(code)) => ToolExecutionError::other(text)
            .with_retryable(false)
            .with_code(code.to_string()),
        (Some(exec), _) => {
            // A run ends by one of them at most (the kernel sets one flag).
            let kind = if exec.timed_out {
                ToolErrorKind::Timeout
            } else if exec.cancelled {
                ToolErrorKind::Cancelled
            } else {
                ToolErrorKind::Other
            };
            ToolExecutionError::new(kind, text)
                .with_retryable(false)
                .with_code(exec.exit_code.to_string())
        }
        // A tool that failed without running a command and without a code.
        (None, None) => ToolExecutionError::other(text).with_retryable(false),
    };
    Err(error)
}

/// A [`CallError`] as rig's error, its text visible to the model: an unknown name is
/// [`ToolErrorKind::NotFound`] (with nanotool's suggestions), a panic is
/// [`ToolErrorKind::Other`] (code `panicked`), a call never run is [`ToolErrorKind::Other`]
/// and retryable (nothing ran).
///
/// ```
/// use nanotool::adapters::rig::{error_of, rig_core::tool::ToolErrorKind};
/// use nanotool::CallError;
///
/// let error = error_of(&CallError::Panicked { tool: "t".into(), message: "boom".into() });
/// assert_eq!(error.kind(), ToolErrorKind::Other);
/// assert_eq!(error.retryable(), Some(false));
/// assert_eq!(error.model_feedback(), Some("tool `t` panicked: boom"));
/// ```
pub fn error_of(error: &CallError) -> ToolExecutionError {
    let text = error.to_string();
    match error {
        CallError::UnknownTool(_) => ToolExecutionError::not_found(text),
        CallError::Panicked { .. } => ToolExecutionError::other(text)
            .with_retryable(false)
            .with_code("panicked"),
        CallError::NotRun { .. } => ToolExecutionError::other(text)
            .with_retryable(true)
            .with_code("not_run"),
    }
}

/// `result` of [`ToolSet::execute`] for the tool `name`, with nanotool's suggestions added
/// when rig answered that no tool has that name: the error stays rig's own
/// ([`ToolErrorKind::NotFound`], rig's message), and the model reads rig's feedback followed
/// by `did you mean ...?` with the closest names of `toolbox`. Any other result is returned
/// as it is.
///
/// ```
/// use nanotool::adapters::rig::{rig_core::tool::ToolContext, tool_set, with_suggestions};
/// use nanotool::{CommandExecKernel, KernelSettings, Toolbox, builtins};
/// use std::sync::Arc;
///
/// let mut toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings::default()).unwrap());
/// for tool in builtins::all() {
///     toolbox.register_arc(tool).unwrap();
/// }
/// let toolbox = Arc::new(toolbox);
/// let tools = tool_set(Arc::clone(&toolbox));
/// let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let result = runtime.block_on(tools.execute("grp", "{}", &mut ToolContext::new()));
/// let result = with_suggestions(&toolbox, "grp", result);
/// assert_eq!(
///     result.output().as_text(),
///     Some("tool `grp` not found; did you mean `grep`?")
/// );
/// ```
pub fn with_suggestions(toolbox: &Toolbox, name: &str, result: ToolResult) -> ToolResult {
    if !result.is_error_kind(ToolErrorKind::NotFound) || toolbox.get(name).is_some() {
        return result;
    }
    let Some(hint) = did_you_mean(&toolbox.closest_names(name)) else {
        return result;
    };
    let feedback = result
        .output()
        .as_text()
        .map(str::to_owned)
        .unwrap_or_else(|| format!("tool `{name}` not found"));
    result.with_output(RigOutput::text(format!("{feedback}; {hint}")))
}
