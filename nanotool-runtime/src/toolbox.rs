//! [`Toolbox`]: assembly of tools, the host deny list, the tool lists for each provider
//! (built one tool at a time by [`crate::export`]).
//!
//! A toolbox holds one [`CommandExecKernel`] and the registered tools, in registration order:
//! code tools and built-ins ([`Toolbox::register`]), descriptor tools
//! ([`Toolbox::load_descriptors`]) and, only when the host asks for it with an allowlist,
//! [`ExecTool`] ([`Toolbox::enable_exec`]). It refuses a name conflict and an invalid name,
//! applies the host's extra deny list ([`Toolbox::deny_binaries`]) to every form, and exports
//! the tool list for MCP, OpenAI and Anthropic.
//!
//! What does not live here: validation of a call's arguments (the tool does it, through
//! [`crate::CommandSpec::render`]), and running a command (the kernel).
//!
//! See [`Toolbox`] for an example.

use crate::descriptor::{DescriptorError, DescriptorLoader};
use crate::exec_tool::{ExecTool, ExecToolError};
use crate::export;
use crate::hint;
use crate::kernel::{CancelHandle, CommandExecKernel};
use crate::spec::{SpecError, is_tool_name};
use crate::tool::{Tool, ToolContext, ToolOutput};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, RwLock};
use thiserror::Error;

/// Why a tool could not be registered.
#[derive(Debug, Error)]
pub enum RegisterError {
    /// Another tool has this name.
    #[error("a tool named `{0}` is already registered: give this tool another name")]
    NameConflict(String),
    /// The name does not match `^[A-Za-z0-9_-]{1,64}$`.
    #[error(
        "`{0}` is not a valid tool name: providers accept 1 to 64 ASCII letters, digits, `_` or `-`"
    )]
    InvalidName(String),
    /// The tool's binary is on the host's deny list (or the built-in one).
    #[error("tool `{tool}` is refused: {source}")]
    Denied {
        /// The tool's name.
        tool: String,
        /// What the spec said.
        source: Box<SpecError>,
    },
    /// The tool's definition is invalid (a code tool whose template, slots or defaults the
    /// runtime refuses when it builds the spec): error 613, as for a descriptor.
    #[error("tool `{tool}` is invalid (error 613): {source}")]
    Invalid {
        /// The tool's name.
        tool: String,
        /// What building the spec said.
        source: Box<SpecError>,
    },
    /// ExecTool's allowlist is not acceptable.
    #[error(transparent)]
    Exec(#[from] ExecToolError),
    /// The host's settings for a tool cannot be used ([`Toolbox::set_tool_settings`]).
    #[error("settings for tool `{tool}`: {source}")]
    Settings {
        /// The tool's name.
        tool: String,
        /// What checking the settings said.
        source: Box<SpecError>,
    },
    /// The host set settings for a tool that is not registered.
    #[error(transparent)]
    Unknown(#[from] UnknownTool),
    /// The host set settings for a tool that runs no command.
    #[error("tool `{0}` runs no command: timeout, output cap, variables and paths do not apply")]
    NoCommands(String),
}

/// A call named a tool that is not registered.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct UnknownTool {
    /// The name asked for.
    pub name: String,
    /// Registered names close to it, closest first (for "did you mean").
    pub suggestions: Vec<String>,
}

impl fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown tool `{}`", self.name)?;
        match hint::did_you_mean(&self.suggestions) {
            Some(hint) => write!(f, "; {hint}"),
            None => Ok(()),
        }
    }
}

/// The kernel and the registered tools. `Send + Sync`: share it behind an [`Arc`] and call
/// from any thread.
///
/// Register a [`crate::CommandTool`] and export it:
///
/// ```
/// use nanotool_runtime::{
///     CommandExecKernel, CommandSpec, CommandTool, KernelSettings, SlotKind, SlotSpec, Toolbox,
/// };
///
/// let kernel = CommandExecKernel::new(KernelSettings::default()).unwrap();
/// let mut toolbox = Toolbox::new(kernel);
/// let spec = CommandSpec::new(
///     "count_lines",
///     "Count the lines of a file",
///     "wc -l <file>",
///     vec![SlotSpec::new("file", SlotKind::Path, "The file to count")],
/// )
/// .unwrap();
/// toolbox.register(CommandTool::new(spec)).unwrap();
///
/// // Doc tests run in the crate's folder.
/// let out = toolbox
///     .call("count_lines", &serde_json::json!({"file": "Cargo.toml"}), None)
///     .unwrap();
/// assert!(out.text.starts_with("exit: 0"), "{}", out.text);
/// assert!(toolbox.call("count_line", &serde_json::json!({}), None).is_err());
///
/// let mcp = toolbox.mcp_tools();
/// assert_eq!(mcp[0]["name"], "count_lines");
/// assert_eq!(mcp[0]["inputSchema"]["required"][0], "file");
/// let openai = toolbox.openai_tools(true);
/// assert_eq!(openai[0]["function"]["strict"], true);
/// let anthropic = toolbox.anthropic_tools();
/// assert_eq!(anthropic[0]["input_schema"]["additionalProperties"], false);
/// ```
pub struct Toolbox {
    kernel: CommandExecKernel,
    tools: Vec<Arc<dyn Tool>>,
    index: HashMap<String, usize>,
    /// Whether each tool (by index) runs commands, for `outputSchema`.
    runs_commands: Vec<bool>,
    /// Why each tool (by index) is refused by the host's deny list grown since it was
    /// registered; decided in [`Toolbox::deny_binaries`], read at every call.
    denied_since: Vec<Option<String>>,
    /// The host's extra deny list, shared with [`ExecTool`] so it holds at call time too.
    deny: Arc<RwLock<Vec<String>>>,
}

impl fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("kernel", &self.kernel)
            .field(
                "tools",
                &self.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
            )
            .field("deny", &self.deny_list())
            .finish()
    }
}

impl Toolbox {
    /// An empty toolbox running every command through `kernel`.
    pub fn new(kernel: CommandExecKernel) -> Self {
        Toolbox {
            kernel,
            tools: Vec::new(),
            index: HashMap::new(),
            runs_commands: Vec::new(),
            denied_since: Vec::new(),
            deny: Arc::default(),
        }
    }

    /// The kernel.
    pub fn kernel(&self) -> &CommandExecKernel {
        &self.kernel
    }

    /// Adds binaries to the host's deny list (on top of the built-in one; nothing removes
    /// from either). Call it before registering: a tool whose binary is denied is refused at
    /// registration. A command tool registered earlier that the grown list denies (its binary,
    /// or one a wrapper in it runs) stays listed, but every call to it is refused (614);
    /// ExecTool checks the list at every call.
    pub fn deny_binaries<I, S>(&mut self, binaries: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut deny = self.deny.write().unwrap_or_else(|e| e.into_inner());
        for binary in binaries {
            let binary = binary.into();
            if !deny.contains(&binary) {
                deny.push(binary);
            }
        }
        // The tools already registered, against the whole policy with the list as it is now
        // (a binary behind `nice` or `timeout` too): once here, not at every call.
        for (tool, denied) in self.tools.iter().zip(&mut self.denied_since) {
            if denied.is_none() {
                *denied = tool
                    .spec()
                    .and_then(|spec| spec.check_denied(&deny).err())
                    .map(|refusal| refusal.to_string());
            }
        }
        drop(deny);
        self
    }

    /// The host's extra deny list.
    pub fn deny_list(&self) -> Vec<String> {
        self.deny.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Registers a tool (a code tool, a built-in, a [`crate::CommandTool`]).
    pub fn register(&mut self, tool: impl Tool + 'static) -> Result<(), RegisterError> {
        self.register_arc(Arc::new(tool))
    }

    /// Registers a shared tool. Refuses an invalid name, a name already registered, a tool
    /// whose definition is invalid ([`Tool::definition_error`]), and a command tool whose
    /// binary is denied.
    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegisterError> {
        self.check_name(tool.name())?;
        if let Some(error) = tool.definition_error() {
            return Err(RegisterError::Invalid {
                tool: tool.name().to_owned(),
                source: Box::new(error.clone()),
            });
        }
        // A spec already passed the built-in list when it was built (`CommandSpec::new`):
        // only a host list adds anything to check.
        let deny = self.deny_list();
        if let Some(spec) = tool.spec().filter(|_| !deny.is_empty()) {
            spec.check_denied(&deny)
                .map_err(|source| RegisterError::Denied {
                    tool: tool.name().to_owned(),
                    source: Box::new(source),
                })?;
        }
        let runs = tool.spec().is_some();
        self.push(tool, runs);
        Ok(())
    }

    fn check_name(&self, name: &str) -> Result<(), RegisterError> {
        if !is_tool_name(name) {
            return Err(RegisterError::InvalidName(name.to_owned()));
        }
        if self.index.contains_key(name) {
            return Err(RegisterError::NameConflict(name.to_owned()));
        }
        Ok(())
    }

    fn push(&mut self, tool: Arc<dyn Tool>, runs_commands: bool) {
        self.index.insert(tool.name().to_owned(), self.tools.len());
        self.tools.push(tool);
        self.runs_commands.push(runs_commands);
        // Registered against the deny list as it is now.
        self.denied_since.push(None);
    }

    /// Loads every `*.tool.json` in `dir` (see [`DescriptorLoader::load_dir`]) against the
    /// names registered so far and the host's deny list, registers the good ones, and returns
    /// one 613 error per bad file. A missing folder loads nothing and is no error.
    pub fn load_descriptors(&mut self, dir: &Path) -> Vec<DescriptorError> {
        let mut loader = DescriptorLoader::new()
            .reserve(self.index.keys().cloned())
            .deny_binaries(self.deny_list());
        let load = loader.load_dir(dir);
        for tool in load.tools {
            self.push(Arc::new(tool), true);
        }
        load.errors
    }

    /// Loads the one descriptor of `dir` named after the tool `name` (`NAME.tool.json`) when
    /// it defines that tool and loads cleanly: what one call of `name` needs, whatever else
    /// the folder holds. Returns whether it did; otherwise nothing is registered, and
    /// [`Toolbox::load_descriptors`] finds the tool (or reports why not) by loading them all.
    /// Where two files define `name` (a conflict, which the full load reports as 613 for the
    /// second in name order), this one is the file named after it.
    pub fn load_descriptor_named(&mut self, dir: &Path, name: &str) -> bool {
        if !crate::spec::is_tool_name(name) || self.index.contains_key(name) {
            return false;
        }
        let mut loader = DescriptorLoader::new()
            .reserve(self.index.keys().cloned())
            .deny_binaries(self.deny_list());
        match loader.load_file(&dir.join(format!("{name}{}", crate::descriptor::DESCRIPTOR_SUFFIX)))
        {
            Ok(tool) if tool.name() == name => {
                self.push(Arc::new(tool), true);
                true
            }
            _ => false,
        }
    }

    /// Runs the tool named `name` with the host's `settings` over its own from now on (where
    /// `settings` sets a value; variables and readable paths add up): what a host config
    /// file's per-tool entry does. The merged settings pass the checks a descriptor's do; a
    /// refusal leaves the tool as it was.
    ///
    /// ```
    /// use nanotool_runtime::kernel::RunSettings;
    /// use nanotool_runtime::{CommandExecKernel, KernelSettings, Toolbox};
    /// use std::time::Duration;
    ///
    /// let mut toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings::default()).unwrap());
    /// toolbox.enable_exec(vec!["ls".into()]).unwrap();
    /// let long = RunSettings::new().with_timeout(Duration::from_secs(900));
    /// toolbox.set_tool_settings("exec", &long).unwrap();
    /// let settings = toolbox.get("exec").unwrap().settings().unwrap();
    /// assert_eq!(settings.timeout, Some(Duration::from_secs(900)));
    /// assert!(toolbox.set_tool_settings("nope", &long).is_err());
    /// ```
    pub fn set_tool_settings(
        &mut self,
        name: &str,
        settings: &crate::kernel::RunSettings,
    ) -> Result<(), RegisterError> {
        let index = self.position(name)?;
        match self.tools[index].with_host_settings(settings) {
            None => Err(RegisterError::NoCommands(name.to_owned())),
            Some(Err(source)) => Err(RegisterError::Settings {
                tool: name.to_owned(),
                source: Box::new(source),
            }),
            Some(Ok(tool)) => {
                self.tools[index] = tool;
                Ok(())
            }
        }
    }

    /// Enables [`ExecTool`] (name `exec`) with this allowlist of binaries. Refuses an
    /// allowlist entry that is denied (built-in or host list) or not a plain binary, and a
    /// second `exec`.
    pub fn enable_exec(&mut self, allow: Vec<String>) -> Result<(), RegisterError> {
        self.enable_exec_with_writes(allow, false)
    }

    /// Like [`enable_exec`](Self::enable_exec); with `writes`, exec commands may write inside
    /// the workspace (the sandbox keeps them read-only otherwise). Never the network.
    pub fn enable_exec_with_writes(
        &mut self,
        allow: Vec<String>,
        writes: bool,
    ) -> Result<(), RegisterError> {
        let tool = ExecTool::with_shared_deny(allow, Arc::clone(&self.deny))?.with_writes(writes);
        self.check_name(tool.name())?;
        self.push(Arc::new(tool), true);
        Ok(())
    }

    /// The registered tools, in registration order.
    pub fn tools(&self) -> &[Arc<dyn Tool>] {
        &self.tools
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    /// The registered names closest to `name` (for "did you mean"; see
    /// [`hint::closest`]).
    pub fn closest_names(&self, name: &str) -> Vec<String> {
        hint::closest(name, self.tools.iter().map(|t| t.name()))
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// Where the tool named `name` stands in [`Toolbox::tools`], or the [`UnknownTool`]
    /// error with the names closest to it.
    pub fn position(&self, name: &str) -> Result<usize, UnknownTool> {
        self.index.get(name).copied().ok_or_else(|| UnknownTool {
            name: name.to_owned(),
            suggestions: self.closest_names(name),
        })
    }

    /// Calls the tool named `name` with `args`; `cancel` may end the call from any thread.
    /// A refused call (614) or a failed command is an `Ok` output marked as an error; only an
    /// unknown name is an `Err`.
    pub fn call(
        &self,
        name: &str,
        args: &Value,
        cancel: Option<&CancelHandle>,
    ) -> Result<ToolOutput, UnknownTool> {
        let index = self.position(name)?;
        Ok(self.call_at(index, args, cancel))
    }

    /// Calls the tool at `index` in [`Toolbox::tools`] (found once, with
    /// [`Toolbox::position`]); an index past the last tool is a failed call.
    pub fn call_at(&self, index: usize, args: &Value, cancel: Option<&CancelHandle>) -> ToolOutput {
        let Some(tool) = self.tools.get(index) else {
            return ToolOutput::failed(format!(
                "no tool at position {index}: the toolbox has {} tools",
                self.tools.len()
            ));
        };
        // A binary denied after registration, wherever the template runs it (`timeout 5 git
        // ...` too), as `deny_binaries` found it.
        if let Some(refusal) = &self.denied_since[index] {
            return ToolOutput::refused_text(format!(
                "error {}: tool `{}` is refused by the host's deny list: {refusal}",
                crate::error::CODE_INVALID_ARGUMENTS,
                tool.name()
            ));
        }
        let ctx = ToolContext {
            kernel: &self.kernel,
            cancel,
        };
        tool.call(args, &ctx)
    }

    /// The MCP `tools/list` entries ([`export::mcp_definition`]): `name`, `description`,
    /// `inputSchema`, `annotations`, and for tools that run commands an `outputSchema`
    /// ([`command_output_schema`](crate::export::command_output_schema)).
    pub fn mcp_tools(&self) -> Vec<Value> {
        self.tools
            .iter()
            .zip(&self.runs_commands)
            .map(|(tool, &runs)| export::mcp_definition(tool.as_ref(), runs))
            .collect()
    }

    /// OpenAI function tools ([`export::openai_definition`]), strict or not.
    pub fn openai_tools(&self, strict: bool) -> Vec<Value> {
        self.tools
            .iter()
            .map(|tool| export::openai_definition(tool.as_ref(), strict))
            .collect()
    }

    /// Anthropic tool definitions ([`export::anthropic_definition`]): `name`,
    /// `description`, `input_schema`.
    pub fn anthropic_tools(&self) -> Vec<Value> {
        self.tools
            .iter()
            .map(|tool| export::anthropic_definition(tool.as_ref(), false))
            .collect()
    }

    /// Anthropic tool definitions for strict tool use (`"strict": true`,
    /// [`export::anthropic_definition`]).
    pub fn anthropic_tools_strict(&self) -> Vec<Value> {
        self.tools
            .iter()
            .map(|tool| export::anthropic_definition(tool.as_ref(), true))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolbox_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Toolbox>();
    }
}
