//! # nanotool
//!
//! Command tools for LLM agents whose safety is a property of their shape: a tool is a
//! command template plus the parts the model may fill, and the less it may fill, the stronger
//! the guarantee. Every command runs through one kernel ([`CommandExecKernel`]): an argv
//! without a shell, the working directory locked, a timeout that kills the process group,
//! bounded output, and confinement by Landlock and seccomp where Linux offers them.
//!
//! ## Three forms of tool
//!
//! | form | what the model fills | checked | start with |
//! |---|---|---|---|
//! | a `#[command_tool]` struct | typed slots | at compile time | [`command_tool`], [`SlotEnum`], [`CommandStruct`], [`WorkPath`] |
//! | a `*.tool.json` descriptor | the same slots | at load time (error 613) | [`DescriptorLoader`] |
//! | [`ExecTool`] (off by default) | free text, for an allowlist of binaries | at call time | [`ExecTool`] |
//!
//! A [`Toolbox`] holds the tools of every form with one kernel, and calls them by name
//! ([`Toolbox::call`]; [`Toolbox::call_async`] as a future). A refused call is error 614 in
//! its [`ToolOutput`], never a panic. [`Tool`] is the one trait every tool implements.
//!
//! ## Serving the tools
//!
//! - [`mcp`] (feature `mcp`, on by default): an MCP server over stdio, both protocol eras.
//! - [`adapters`]: the tools in rmcp (feature `rmcp`) or rig (feature `rig`).
//! - [`export`]: one tool's definition for MCP, OpenAI and Anthropic.
//! - [`builtins`]: `grep`, `find` and `sed_print`, written with the macro.
//!
//! ## Features
//!
//! | feature | default | what it adds | minimum Rust |
//! |---|---|---|---|
//! | `cli` | yes | the `nanotool` binary (`clap`, log output) | 1.88 |
//! | `mcp` | with `cli` | [`mcp`]: the MCP server over stdio | 1.88 |
//! | `rmcp` | no | `adapters::rmcp`: a [`Toolbox`] in the official Rust MCP SDK | 1.88 |
//! | `rig` | no | `adapters::rig`: a [`Toolbox`]'s tools in a rig `ToolSet` | 1.95 |
//!
//! On Linux every command is confined (Landlock, seccomp); on other Unix systems the kernel
//! runs without a sandbox and [`SandboxStatus`] says so; Windows is refused at compile time.
//!
//! Feature `cli` (on by default) builds the `nanotool` binary; a library user may turn the
//! default features off. The template parser, the policy tables and the other internals are
//! in `nanotool-runtime`, for a host that needs them.
//!
//! ## Example
//!
//! ```
//! use nanotool::{CommandExecKernel, CommandStruct, KernelSettings, Toolbox, WorkPath, command_tool};
//! use serde_json::json;
//!
//! /// Count the lines of a file in the workspace.
//! #[command_tool("wc -l <file>")]
//! pub struct CountLines {
//!     /// The file to count, relative to the workspace
//!     pub file: WorkPath,
//! }
//!
//! let dir = std::env::temp_dir().join(format!("nanotool-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! std::fs::write(dir.join("notes.txt"), "one\ntwo\n").unwrap();
//!
//! let settings = KernelSettings { cwd: dir.clone(), ..KernelSettings::default() };
//! let mut toolbox = Toolbox::new(CommandExecKernel::new(settings).unwrap());
//! toolbox.register(CountLines::tool()).unwrap();
//!
//! // The model's call: the path is confined to the workspace and rendered `./notes.txt`.
//! let output = toolbox.call("count_lines", &json!({"file": "notes.txt"}), None).unwrap();
//! assert!(!output.is_error, "{}", output.text);
//! assert!(output.text.contains("2 ./notes.txt"));
//!
//! // Leaving the workspace is refused (614) before anything runs.
//! let refused = toolbox.call("count_lines", &json!({"file": "../../etc/passwd"}), None).unwrap();
//! assert!(refused.is_error);
//! assert_eq!(refused.code, Some(nanotool::CODE_INVALID_ARGUMENTS));
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```
#![deny(missing_docs)]

extern crate self as nanotool;

pub mod adapters;
pub mod builtins;
#[cfg(feature = "mcp")]
pub mod mcp;

// The code form.
/// # Example
///
/// ```
/// use nanotool::SlotEnum;
/// use nanotool::SlotType;
///
/// #[derive(SlotEnum, Debug, PartialEq)]
/// enum Order {
///     #[slot(value = "-r")]
///     Reverse,
///     NameFirst,
/// }
///
/// assert_eq!(
///     Order::kind(),
///     nanotool::SlotKind::Enum(vec!["-r".into(), "name-first".into()])
/// );
/// assert_eq!(Order::from_json(&"-r".into()), Ok(Order::Reverse));
/// ```
#[doc(inline)]
pub use nanotool_macros::SlotEnum;
/// # Example
///
/// ```
/// use nanotool::{command_tool, CommandStruct, SlotEnum, WorkPath};
///
/// /// How `ls` lists.
/// #[derive(SlotEnum)]
/// pub enum Listing {
///     /// One name per line.
///     #[slot(value = "-1")]
///     OnePerLine,
///     /// Long format.
///     #[slot(value = "-l")]
///     Long,
/// }
///
/// /// Count the lines of files in the workspace.
/// #[command_tool("grep -c --max-count=<limit> <pattern> <file>", name = "count_lines")]
/// pub struct CountLines {
///     /// Text to count
///     pub pattern: String,
///     /// The file to read
///     #[slot(default = "README.md")]
///     pub file: WorkPath,
///     /// Stop after this many matches
///     #[slot(minimum = 1, maximum = 1000)]
///     pub limit: Option<u32>,
/// }
///
/// /// List a directory.
/// #[command_tool("ls <mode> <dir>")]
/// pub struct List {
///     /// Listing format
///     pub mode: Listing,
///     /// Directory to list
///     #[slot(default = ".")]
///     pub dir: WorkPath,
/// }
///
/// use nanotool::Tool;
/// let tool = CountLines::tool();
/// assert_eq!(tool.name(), "count_lines");
/// assert_eq!(List::tool().name(), "list");
/// let call = CountLines { pattern: "x".into(), file: WorkPath::from("a.txt"), limit: None };
/// let argv = call.argv(std::path::Path::new(".")).unwrap();
/// assert_eq!(argv.as_slice(), ["grep", "-c", "x", "./a.txt"]);
/// ```
#[doc(inline)]
pub use nanotool_macros::command_tool;
pub use nanotool_runtime::code_form::{CodeTool, CommandStruct, SlotType, WorkPath};

// The descriptor form.
pub use nanotool_runtime::descriptor::{DescriptorError, DescriptorLoader};

// The free-text form.
pub use nanotool_runtime::exec_tool::{ExecLayer, ExecTool};

// Tools, their specs, results and errors.
pub use nanotool_runtime::error::{CODE_INVALID_ARGUMENTS, CODE_INVALID_DESCRIPTOR};
pub use nanotool_runtime::export;
pub use nanotool_runtime::policy::PolicyError;
pub use nanotool_runtime::slot::{SlotError, SlotKind, SlotSpec};
pub use nanotool_runtime::spec::{Argv, CommandSpec, SpecError};
pub use nanotool_runtime::tool::{CommandTool, Tool, ToolContext, ToolOutput};

// Assembly, and calls as futures.
pub use nanotool_runtime::async_call::{CallError, ToolCall};
pub use nanotool_runtime::toolbox::{RegisterError, Toolbox, UnknownTool};

// The kernel.
pub use nanotool_runtime::kernel::{
    Access, CancelHandle, CommandExecKernel, ExecResult, KernelError, KernelSettings, SandboxMode,
    SandboxStatus, UnreadableBinary,
};
pub use nanotool_runtime::kernel::{
    CgroupMode, CgroupStatus, LimitHit, Limits, LimitsStatus, PidNamespaceMode, TempDirStatus,
};

/// What the code `#[command_tool]` and `#[derive(SlotEnum)]` generate names; not an API.
///
/// The name carries the version (as `serde::__private228` does): a macro crate of another
/// release names a module this crate does not have, so a mismatched pair fails to build
/// instead of compiling against items whose meaning changed.
#[doc(hidden)]
pub mod __private_v0_1 {
    pub use nanotool_runtime::code_form::{
        CommandStruct, DefaultDef, SettingsDef, SlotDef, SlotType, args_object, build_tool, require,
    };
    pub use nanotool_runtime::kernel::Access;
    pub use nanotool_runtime::policy::SlotFreedom;
    pub use nanotool_runtime::slot::{SlotClass, SlotError, SlotKind};
    pub use nanotool_runtime::spec::{CommandSpec, SpecError};
    pub use nanotool_runtime::tool::CommandTool;
    pub use serde_json::Value;
    pub use std::sync::OnceLock;
}
