//! The tool definitions each provider reads, one tool at a time: MCP (`tools/list`, with the
//! `outputSchema` of a command's result and the `annotations` of what it may do), OpenAI
//! function tools (plain or strict) and Anthropic tools (plain or strict). Every list of
//! definitions ([`crate::Toolbox::mcp_tools`], the MCP server's `tools/list`, `nanotool
//! schema`) is built from these functions, so a tool is described one way wherever it is shown.
//!
//! Every input schema goes through [`portable_schema`] first: an object root with
//! `properties`, `required` and `"additionalProperties": false`, without `$schema` or `title`.

use crate::kernel::Access;
use crate::tool::Tool;
use serde_json::{Map, Value, json};

/// The MCP `tools/list` entry of `tool`: `name`, `description`, `inputSchema` (portable),
/// `annotations` ([`access_annotations`]) and, with `output_schema`, the `outputSchema` of a
/// command's result ([`command_output_schema`]).
///
/// ```
/// use nanotool_runtime::{CommandSpec, CommandTool, SlotKind, SlotSpec};
/// use nanotool_runtime::export::mcp_definition;
///
/// let spec = CommandSpec::new(
///     "count_lines",
///     "Count the lines of a file",
///     "wc -l <file>",
///     vec![SlotSpec::new("file", SlotKind::Path, "The file to count")],
/// )
/// .unwrap();
/// let entry = mcp_definition(&CommandTool::new(spec), true);
/// assert_eq!(entry["inputSchema"]["additionalProperties"], false);
/// assert_eq!(entry["annotations"]["readOnlyHint"], true);
/// assert_eq!(entry["outputSchema"]["required"][0], "exit_code");
/// ```
pub fn mcp_definition(tool: &dyn Tool, output_schema: bool) -> Value {
    let mut entry = json!({
        "name": tool.name(),
        "description": tool.description(),
        "inputSchema": portable_schema(tool.input_schema()),
        "annotations": access_annotations(tool.access()),
    });
    if output_schema {
        entry["outputSchema"] = command_output_schema();
    }
    entry
}

/// The OpenAI function tool of `tool`: `{"type": "function", "function": {name, description,
/// parameters}}`. With `strict`, the function carries `"strict": true` and its parameters
/// follow the structured-outputs rules: every property in `required`, optional ones nullable
/// through `anyOf: [{...}, {"type": "null"}]` (a null is treated as absent), and `default`,
/// `minimum`, `maximum` and `pattern` moved into the description (strict mode refuses
/// `default`, and the others on some models; the runtime still checks them all).
pub fn openai_definition(tool: &dyn Tool, strict: bool) -> Value {
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
}

/// The Anthropic tool definition of `tool`: `name`, `description`, `input_schema`. With
/// `strict` (`"strict": true`), `minimum` and `maximum`, which strict mode does not take, are
/// moved into the description (the runtime still checks them).
pub fn anthropic_definition(tool: &dyn Tool, strict: bool) -> Value {
    let mut schema = portable_schema(tool.input_schema());
    if !strict {
        return json!({
            "name": tool.name(),
            "description": tool.description(),
            "input_schema": schema,
        });
    }
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
            "confined": {"type": "boolean", "description": "The command ran inside the sandbox (Landlock and seccomp)"},
            "sandbox_note": {"type": "string", "description": "Present when a confined command failed with a refusal the sandbox may have caused: what the tool may not do and how its author could allow it"},
            "exit_meaning": {"type": "string", "description": "Present when the tool declares the exit status as no failure: what it means (grep's 1: \"no match\")"}
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
/// use nanotool_runtime::export::access_annotations;
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

/// A schema every provider accepts: an object root with `properties`, `required` and
/// `"additionalProperties": false`, without `$schema` or `title`.
pub fn portable_schema(schema: Value) -> Value {
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
