//! [`Toolbox`] (DESIGN §8): assembly of tools, the host deny list, provider exports.
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

use crate::descriptor::{DescriptorError, DescriptorLoader, closest};
use crate::exec_tool::{ExecTool, ExecToolError};
use crate::kernel::Access;
use crate::kernel::{CancelHandle, CommandExecKernel};
use crate::spec::{SpecError, is_tool_name};
use crate::tool::{Tool, ToolContext, ToolOutput};
use serde_json::{Map, Value, json};
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
        match self.suggestions.as_slice() {
            [] => Ok(()),
            [one] => write!(f, "; did you mean `{one}`?"),
            many => write!(
                f,
                "; did you mean one of {}?",
                many.iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// The output schema of every command tool (MCP `outputSchema`, matched by `structuredContent`).
pub fn command_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "exit_code": {"type": "integer", "description": "The command's exit code (124 on timeout, 128+N when killed by signal N, 127 when the binary is missing)"},
            "output": {"type": "string", "description": "stdout and stderr merged in write order, capped"},
            "truncated": {"type": "boolean", "description": "The output was cut to the cap"},
            "timed_out": {"type": "boolean", "description": "The command was killed at the timeout"},
            "confined": {"type": "boolean", "description": "The command ran inside the sandbox (Landlock and seccomp)"}
        },
        "required": ["exit_code", "output", "truncated", "timed_out", "confined"],
        "additionalProperties": false
    })
}

/// MCP tool `annotations` for what a tool declares: `readOnlyHint` (neither writes nor
/// network), `destructiveHint` (it may write or delete in the workspace), `openWorldHint`
/// (it reaches the network).
///
/// ```
/// use nanotool_runtime::Access;
/// use nanotool_runtime::toolbox::access_annotations;
///
/// let a = access_annotations(Access::READ_ONLY);
/// assert_eq!(a["readOnlyHint"], true);
/// assert_eq!(a["openWorldHint"], false);
/// ```
pub fn access_annotations(access: Access) -> Value {
    json!({
        "readOnlyHint": access.is_read_only(),
        "destructiveHint": access.writes,
        "openWorldHint": access.network,
    })
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

    /// The registered names closest to `name` (for "did you mean").
    pub fn closest_names(&self, name: &str) -> Vec<String> {
        closest(name, self.tools.iter().map(|t| t.name()))
            .into_iter()
            .take(3)
            .map(str::to_owned)
            .collect()
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
        let index = *self.index.get(name).ok_or_else(|| UnknownTool {
            name: name.to_owned(),
            suggestions: self.closest_names(name),
        })?;
        let tool = &self.tools[index];
        // A binary denied after registration, wherever the template runs it (`timeout 5 git
        // ...` too), as `deny_binaries` found it.
        if let Some(refusal) = &self.denied_since[index] {
            return Ok(ToolOutput {
                text: format!(
                    "error {}: tool `{name}` is refused by the host's deny list: {refusal}",
                    crate::error::CODE_INVALID_ARGUMENTS
                ),
                is_error: true,
                code: Some(crate::error::CODE_INVALID_ARGUMENTS),
                exec: None,
            });
        }
        let ctx = ToolContext {
            kernel: &self.kernel,
            cancel,
        };
        Ok(tool.call(args, &ctx))
    }

    /// The MCP `tools/list` entries: `name`, `description`, `inputSchema`, and for tools
    /// that run commands an `outputSchema` ([`command_output_schema`]).
    pub fn mcp_tools(&self) -> Vec<Value> {
        self.tools
            .iter()
            .zip(&self.runs_commands)
            .map(|(tool, &runs)| {
                let mut entry = json!({
                    "name": tool.name(),
                    "description": tool.description(),
                    "inputSchema": portable_schema(tool.input_schema()),
                    "annotations": access_annotations(tool.access()),
                });
                if runs {
                    entry["outputSchema"] = command_output_schema();
                }
                entry
            })
            .collect()
    }

    /// OpenAI function tools: `{"type": "function", "function": {name, description,
    /// parameters}}`. With `strict`, the function carries `"strict": true` and its parameters
    /// follow the structured-outputs rules: every property in `required`, optional ones
    /// nullable through `anyOf: [{...}, {"type": "null"}]` (a null is treated as absent), and
    /// `default`, `minimum`, `maximum` and `pattern` moved into the description (strict mode
    /// refuses `default`, and the others on some models; the runtime still checks them all).
    pub fn openai_tools(&self, strict: bool) -> Vec<Value> {
        self.tools
            .iter()
            .map(|tool| {
                let schema = portable_schema(tool.input_schema());
                let mut function = json!({
                    "name": tool.name(),
                    "description": tool.description(),
                    "parameters": if strict { strict_schema(schema) } else { schema },
                });
                if strict {
                    function["strict"] = Value::Bool(true);
                }
                json!({"type": "function", "function": function})
            })
            .collect()
    }

    /// Anthropic tool definitions: `name`, `description`, `input_schema`.
    pub fn anthropic_tools(&self) -> Vec<Value> {
        self.tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name(),
                    "description": tool.description(),
                    "input_schema": portable_schema(tool.input_schema()),
                })
            })
            .collect()
    }

    /// Anthropic tool definitions for strict tool use (`"strict": true`): `minimum` and
    /// `maximum`, which strict mode does not take, are moved into the description (the
    /// runtime still checks them).
    pub fn anthropic_tools_strict(&self) -> Vec<Value> {
        self.tools
            .iter()
            .map(|tool| {
                let mut schema = portable_schema(tool.input_schema());
                if let Some(Value::Object(props)) = schema.get_mut("properties") {
                    for prop in props.values_mut() {
                        move_into_description(prop, &["minimum", "maximum"]);
                    }
                }
                json!({
                    "name": tool.name(),
                    "description": tool.description(),
                    "input_schema": schema,
                    "strict": true,
                })
            })
            .collect()
    }
}

/// A schema every provider accepts: an object root with `properties`, `required` and
/// `"additionalProperties": false`, without `$schema` or `title`.
fn portable_schema(schema: Value) -> Value {
    let mut object = match schema {
        Value::Object(object) => object,
        _ => Map::new(),
    };
    object.remove("$schema");
    object.remove("title");
    object.insert("type".into(), "object".into());
    object
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    object
        .entry("required")
        .or_insert_with(|| Value::Array(Vec::new()));
    object.insert("additionalProperties".into(), Value::Bool(false));
    if let Some(Value::Object(props)) = object.get_mut("properties") {
        for prop in props.values_mut() {
            if let Value::Object(p) = prop {
                p.remove("title");
                p.remove("$schema");
            }
        }
    }
    Value::Object(object)
}

/// Appends `keys` of a property schema to its description (`(default: 10; minimum: 1)`)
/// and removes them.
fn move_into_description(prop: &mut Value, keys: &[&str]) {
    let Value::Object(p) = prop else { return };
    let notes: Vec<String> = keys
        .iter()
        .filter_map(|k| p.remove(*k).map(|v| format!("{k}: {v}")))
        .collect();
    if notes.is_empty() {
        return;
    }
    let description = p
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let joined = notes.join("; ");
    let text = if description.is_empty() {
        format!("({joined})")
    } else {
        format!("{description} ({joined})")
    };
    p.insert("description".into(), Value::String(text));
}

/// The OpenAI strict variant of a portable schema.
fn strict_schema(mut schema: Value) -> Value {
    let required: Vec<String> = schema["required"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let mut all = Vec::new();
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            all.push(Value::String(name.clone()));
            move_into_description(prop, &["default", "minimum", "maximum", "pattern"]);
            if !required.contains(name) {
                let Value::Object(mut p) = prop.take() else {
                    continue;
                };
                let description = p.remove("description");
                let mut nullable = Map::new();
                if let Some(description) = description {
                    nullable.insert("description".into(), description);
                }
                nullable.insert("anyOf".into(), json!([Value::Object(p), {"type": "null"}]));
                *prop = Value::Object(nullable);
            }
        }
    }
    schema["required"] = Value::Array(all);
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolbox_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Toolbox>();
    }

    #[test]
    fn strict_schema_makes_optional_nullable() {
        let schema = portable_schema(json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "description": "A"},
                "n": {"type": "integer", "description": "N", "default": 5, "minimum": 1}
            },
            "required": ["a"]
        }));
        let strict = strict_schema(schema);
        assert_eq!(strict["required"], json!(["a", "n"]));
        assert_eq!(
            strict["properties"]["n"]["anyOf"][1],
            json!({"type": "null"})
        );
        assert_eq!(
            strict["properties"]["n"]["description"],
            "N (default: 5; minimum: 1)"
        );
        assert!(
            strict["properties"]["n"]["anyOf"][0]
                .get("minimum")
                .is_none()
        );
        assert_eq!(strict["additionalProperties"], false);
    }
}
