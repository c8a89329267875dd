//! The object-safe [`Tool`] trait every form implements, [`ToolOutput`], and [`CommandTool`]:
//! a [`CommandSpec`] as a tool (the one call path shared by the macro and descriptors).
//!
//! ```
//! use nanotool_runtime::{
//!     CommandExecKernel, CommandSpec, CommandTool, KernelSettings, SlotKind, SlotSpec, Tool,
//!     ToolContext,
//! };
//! use serde_json::json;
//! use std::sync::Arc;
//!
//! let spec = CommandSpec::new(
//!     "count_lines",
//!     "Count the lines of a file",
//!     "wc -l <file>",
//!     vec![SlotSpec::new("file", SlotKind::Path, "The file to count")],
//! )
//! .unwrap();
//! let tool: Arc<dyn Tool> = Arc::new(CommandTool::new(spec));
//! assert_eq!(tool.name(), "count_lines");
//!
//! let kernel = CommandExecKernel::new(KernelSettings::default()).unwrap();
//! let ctx = ToolContext { kernel: &kernel, cancel: None };
//! // Refused before anything runs: the model sees the reason as the tool's result.
//! let out = tool.call(&json!({"file": "../../etc/shadow"}), &ctx);
//! assert!(out.is_error);
//! assert_eq!(out.code, Some(614));
//! assert!(out.text.starts_with("error 614: argument `file`: `../../etc/shadow` leaves the working directory"));
//! ```
//!
//! What does *not* live here: validation (see [`CommandSpec::render`]), running a command (see
//! [`crate::kernel`]), and assembling tools into a set (see [`crate::toolbox`]).

use crate::kernel::{Access, CancelHandle, CommandExecKernel, ExecResult, RunSettings};
use crate::slot::SlotError;
use crate::spec::{CommandSpec, ExitCodes, SpecError};
use serde_json::Value;
use std::sync::Arc;

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
    /// Whether the call failed: refused (614), or the command failed — it could not start,
    /// timed out, was cancelled, was killed, or exited with a status other than 0 that its tool
    /// does not declare (MCP's `isError`). A status the tool declares ([`CommandSpec::exit_codes`],
    /// grep's 1 is "no match") is not a failure: [`ToolOutput::exit_meaning`] says what it
    /// means.
    pub is_error: bool,
    /// What the command's exit status means, when its tool declares it as not a failure
    /// (`no match` for grep's 1); the text shows it after the status (`exit: 1 (no match)`).
    pub exit_meaning: Option<String>,
    /// The error code (614 for refused arguments), if any.
    pub code: Option<u16>,
    /// What the kernel did, when a command ran. Its [`output`](ExecResult::output) is empty:
    /// the output is moved into [`text`](Self::text), so that a call holds it once, and
    /// [`ToolOutput::output`] reads it there.
    pub exec: Option<ExecResult>,
    /// Where the command's output starts in [`text`](Self::text), when a command ran (after
    /// the `exit:` line, the notes and `output: `).
    pub output_at: Option<usize>,
    /// The argv the kernel was given, when a command ran (or was tried): what an audit log
    /// records, never rendered a second time.
    pub argv: Option<Vec<String>>,
}

impl ToolOutput {
    /// A call refused by slot validation: `error 614: <the error>`, marked as an error.
    ///
    /// ```
    /// use nanotool_runtime::{SlotError, ToolOutput};
    ///
    /// let out = ToolOutput::refused(&SlotError::new("path", "`/etc` is absolute"));
    /// assert_eq!(out.text, "error 614: argument `path`: `/etc` is absolute");
    /// assert!(out.is_error);
    /// assert_eq!(out.code, Some(614));
    /// ```
    pub fn refused(error: &SlotError) -> Self {
        ToolOutput {
            text: format!("error {}: {error}", error.code()),
            is_error: true,
            code: Some(error.code()),
            exit_meaning: None,
            exec: None,
            output_at: None,
            argv: None,
        }
    }

    /// A call refused (614) for a reason other than one argument's value (the host's deny
    /// list, a layer of ExecTool): `text` is the whole result, `error 614: ...`.
    ///
    /// ```
    /// use nanotool_runtime::ToolOutput;
    ///
    /// let out = ToolOutput::refused_text("error 614: tool `git` is denied".into());
    /// assert_eq!((out.is_error, out.code), (true, Some(614)));
    /// ```
    pub fn refused_text(text: String) -> Self {
        ToolOutput {
            text,
            is_error: true,
            code: Some(crate::error::CODE_INVALID_ARGUMENTS),
            exit_meaning: None,
            exec: None,
            output_at: None,
            argv: None,
        }
    }

    /// A call that failed without running a command and without a code (a tool that cannot
    /// run, a name no tool has).
    pub fn failed(text: String) -> Self {
        ToolOutput {
            text,
            is_error: true,
            code: None,
            exit_meaning: None,
            exec: None,
            output_at: None,
            argv: None,
        }
    }

    /// The result of a command that ran (or tried to): the text is [`ExecResult::text`];
    /// an error when the command failed to start, timed out, was cancelled, was killed or
    /// exited non-zero.
    pub fn from_exec(result: ExecResult) -> Self {
        Self::from_exec_with(result, &ExitCodes::new())
    }

    /// [`ToolOutput::from_exec`] for a tool that declares `exit_codes`: a command that ends
    /// with one of them is not an error, and the text says what the status means
    /// (`exit: 1 (no match)`).
    ///
    /// ```
    /// use nanotool_runtime::{ExecResult, ToolOutput};
    /// use nanotool_runtime::spec::ExitCodes;
    ///
    /// let no_match = ExecResult { exit_code: 1, ..ExecResult::default() };
    /// let out = ToolOutput::from_exec_with(no_match.clone(), &ExitCodes::new().with(1, "no match"));
    /// assert!(!out.is_error);
    /// assert!(out.text.starts_with("exit: 1 (no match)\n"), "{}", out.text);
    /// assert_eq!(out.exit_meaning.as_deref(), Some("no match"));
    /// // Undeclared, the same status is a failure.
    /// assert!(ToolOutput::from_exec(no_match).is_error);
    /// ```
    pub fn from_exec_with(mut result: ExecResult, exit_codes: &ExitCodes) -> Self {
        let ended_by_itself = result.start_error.is_none()
            && !result.timed_out
            && !result.cancelled
            && result.signal.is_none()
            && result.limit.is_none();
        let meaning = exit_codes
            .meaning(result.exit_code)
            .filter(|_| ended_by_itself);
        // The output becomes the text, the header put in front of it in its own buffer (a
        // large one grows in place, by `mremap`): never two copies of an output of up to the
        // cap.
        let header = result.header(meaning);
        let mut text = std::mem::take(&mut result.output);
        text.reserve_exact(header.len());
        text.insert_str(0, &header);
        ToolOutput {
            output_at: Some(header.len()),
            text,
            is_error: !ended_by_itself || (result.exit_code != 0 && meaning.is_none()),
            code: None,
            exit_meaning: meaning.map(str::to_owned),
            exec: Some(result),
            argv: None,
        }
    }

    /// The command's output, when a command ran: the end of [`text`](Self::text), after its
    /// `exit:` line and notes.
    ///
    /// ```
    /// use nanotool_runtime::{ExecResult, ToolOutput};
    ///
    /// let out = ToolOutput::from_exec(ExecResult { output: "a\nb\n".into(), ..ExecResult::default() });
    /// assert_eq!(out.text, "exit: 0\noutput: a\nb\n");
    /// assert_eq!(out.output(), Some("a\nb\n"));
    /// assert_eq!(ToolOutput::failed("no such tool".into()).output(), None);
    /// ```
    pub fn output(&self) -> Option<&str> {
        self.output_at.and_then(|at| self.text.get(at..))
    }

    /// [`ToolOutput::from_exec`] of the command that ran `argv`, which the output carries.
    pub fn ran(argv: Vec<String>, result: ExecResult) -> Self {
        ToolOutput {
            argv: Some(argv),
            ..ToolOutput::from_exec(result)
        }
    }
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
    /// What the tool's commands may do beyond the default profile (read-only workspace, no
    /// network); shown to clients (MCP `readOnlyHint`, `openWorldHint`).
    fn access(&self) -> Access {
        Access::READ_ONLY
    }
    /// Runs one call.
    fn call(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput;
    /// Why the tool cannot run at all, when its definition is invalid (a code tool whose spec
    /// the runtime refuses to build); a `Toolbox` refuses to register such a tool.
    fn definition_error(&self) -> Option<&SpecError> {
        None
    }
    /// The settings its commands run with (timeout, output cap, variables, readable paths),
    /// when it runs commands: by default its spec's.
    fn settings(&self) -> Option<&RunSettings> {
        self.spec().map(CommandSpec::settings)
    }
    /// A copy of this tool whose commands run with `host`'s settings over its own (where
    /// `host` sets one; variables and readable paths add up): how a host's per-tool entry (a
    /// config file's `tools.NAME`) applies, through the checks a descriptor's settings pass.
    /// `None` for a tool that runs no command.
    fn with_host_settings(&self, host: &RunSettings) -> Option<Result<Arc<dyn Tool>, SpecError>> {
        let _ = host;
        None
    }
}

/// A [`CommandSpec`] as a [`Tool`]: a call renders the arguments against the kernel's working
/// directory (refused with 614 if they fail) and runs the argv through the kernel.
#[derive(Debug, Clone)]
pub struct CommandTool {
    spec: CommandSpec,
}

impl CommandTool {
    /// Wraps a spec.
    pub fn new(spec: CommandSpec) -> Self {
        CommandTool { spec }
    }

    /// The spec.
    pub fn spec(&self) -> &CommandSpec {
        &self.spec
    }
}

impl Tool for CommandTool {
    fn name(&self) -> &str {
        self.spec.name()
    }

    fn description(&self) -> &str {
        self.spec.description()
    }

    fn input_schema(&self) -> Value {
        self.spec.json_schema()
    }

    fn spec(&self) -> Option<&CommandSpec> {
        Some(&self.spec)
    }

    fn with_host_settings(&self, host: &RunSettings) -> Option<Result<Arc<dyn Tool>, SpecError>> {
        let merged = self.spec.settings().overridden_by(host);
        Some(
            self.spec
                .clone()
                .with_settings(merged)
                .map(|spec| Arc::new(CommandTool::new(spec)) as Arc<dyn Tool>),
        )
    }

    fn access(&self) -> Access {
        self.spec.access()
    }

    fn call(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        let argv = match self.spec.render(args, ctx.kernel.cwd()) {
            Ok(argv) => argv,
            Err(error) => return ToolOutput::refused(&error),
        };
        let result =
            ctx.kernel
                .run_with(&argv, self.spec.access(), self.spec.settings(), ctx.cancel);
        ToolOutput {
            argv: Some(argv.into_vec()),
            ..ToolOutput::from_exec_with(result, self.spec.exit_codes())
        }
    }
}
