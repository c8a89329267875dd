//! # nanotool-runtime
//!
//! Everything that runs a nanotool command tool, and the one path every form of tool goes
//! through:
//!
//! | module | what lives there |
//! |---|---|
//! | [`template`] | the template grammar: `grep -rn <pattern> <path>` parsed into tokens and slots |
//! | [`policy`] | the deny list and the code-entry table, as data, and the checks over them |
//! | [`slot`] | slot kinds and specs, validation of one value, rendering |
//! | [`code_form`] | the code form: [`SlotType`] (a Rust type as a slot), [`CommandStruct`], [`CodeTool`], and what `#[command_tool]`'s generated code calls |
//! | [`spec`] | [`CommandSpec`]: a parsed template plus its slot specs; JSON Schema; argv rendering |
//! | [`kernel`] | [`CommandExecKernel`]: argv without a shell, locked cwd, timeout, bounded output |
//! | [`tool`] | the object-safe [`Tool`] trait, [`ToolOutput`], and [`CommandTool`] (a spec as a tool) |
//! | [`descriptor`] | `*.tool.json` descriptors and their loader (error 613) |
//! | [`toolbox`] | [`Toolbox`]: assembly of tools, the host deny list, the tool lists |
//! | [`export`] | one tool's definition for MCP, OpenAI and Anthropic |
//! | [`async_call`] | [`Toolbox::call_async`]: a call as a future that cancels when dropped |
//! | [`exec_tool`] | [`ExecTool`]: the free-text form, off by default, five layers |
//! | [`error`] | the error codes shared by every form |
//! | [`hint`] | what error messages share: "did you mean", the kind of a JSON value |
//!
//! ## Features and platforms
//!
//! | feature | what it adds |
//! |---|---|
//! | (none) | the crate has no optional features; `nanotool` (the facade) has `cli`, `mcp`, `rmcp`, `rig` |
//!
//! On Linux the kernel confines every command (Landlock and seccomp, `kernel::sandbox`). On
//! other Unix systems it runs the same process rules (argv without a shell, process group,
//! timeout, output cap, environment) without a sandbox, and [`SandboxStatus`] says
//! confinement is not available on this OS. Windows is refused at compile time.
//!
//! ## Quick start
//!
//! ```
//! use nanotool_runtime::template::Template;
//!
//! let template = Template::parse("grep -rn <pattern> <path>").unwrap();
//! assert_eq!(template.binary(), "grep");
//! assert_eq!(template.slot_names().collect::<Vec<_>>(), ["pattern", "path"]);
//! // A shell metacharacter in the fixed text is refused, with its byte offset.
//! assert!(Template::parse("grep x | sh").is_err());
//! ```
#![deny(missing_docs)]

// The kernel needs a Unix: process groups, `killpg`, `waitpid`, `poll` on a pipe.
#[cfg(not(unix))]
compile_error!(
    "nanotool-runtime runs commands on Unix systems only (Linux with its sandbox; macOS and the BSDs without one): Windows has no process groups, killpg or waitpid; build on Linux, macOS or a BSD (or WSL)"
);

pub mod async_call;
pub mod code_form;
pub mod descriptor;
pub mod error;
pub mod exec_tool;
pub mod export;
pub mod hint;
pub mod kernel;
pub mod policy;
pub mod slot;
pub mod spec;
pub mod template;
pub mod tool;
pub mod toolbox;

pub use async_call::{BlockingJob, CallError, ToolCall};
pub use code_form::{CodeTool, CommandStruct, SlotType, WorkPath};
pub use descriptor::{DescriptorError, DescriptorLoader};
pub use error::{CODE_INVALID_ARGUMENTS, CODE_INVALID_DESCRIPTOR};
pub use exec_tool::{ExecLayer, ExecTool};
pub use kernel::{
    Access, CancelHandle, CommandExecKernel, ExecResult, KernelError, KernelSettings, Promise,
    SandboxMode, SandboxStatus, UnreadableBinary,
};
pub use kernel::{LimitHit, Limits, LimitsStatus, PROGRESS_LINE_BYTES, Progress, TempDirStatus};
pub use policy::PolicyError;
pub use slot::{SlotClass, SlotError, SlotKind, SlotSpec};
pub use spec::{Argv, CommandSpec, SpecError};
pub use template::{Template, TemplateError};
pub use tool::{CommandTool, Tool, ToolContext, ToolOutput};
pub use toolbox::{RegisterError, Toolbox};
