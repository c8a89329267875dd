//! `nanotool call`: one call, its result printed, its exit status the call's outcome.

use std::time::Instant;

use nanotool::mcp;
use nanotool::{CODE_INVALID_ARGUMENTS, CancelHandle, Tool, Toolbox};
use nanotool_runtime::hint;
use serde_json::{Value, json};

use crate::report::{Failure, print_json, write_stdout};
use crate::signals::{cancel_on_signal, make_non_dumpable};

pub(crate) fn run(
    toolbox: &Toolbox,
    name: &str,
    raw_args: &str,
    json: bool,
) -> Result<u8, Failure> {
    let index = match toolbox.position(name) {
        Ok(index) => index,
        Err(unknown) => {
            let names: Vec<&str> = toolbox.tools().iter().map(|t| t.name()).collect();
            let hint = hint::did_you_mean(&unknown.suggestions)
                .map(|hint| format!("{hint} "))
                .unwrap_or_default();
            if json {
                print_json(&json!({
                    "tool": name,
                    "is_error": true,
                    "error": "unknown tool",
                    "closest": unknown.suggestions,
                    "tools": names,
                }))?;
            }
            return Err(Failure::refused(format!(
                "unknown tool `{name}`; {hint}tools: {} (see `nanotool list`)",
                names.join(", ")
            )));
        }
    };
    let tool = toolbox.tools()[index].clone();
    let args = parse_args(raw_args, tool.as_ref())?;
    make_non_dumpable();
    let cancel = CancelHandle::new();
    // A signal cancels the call from its handler (no thread to start).
    let signalled = cancel_on_signal(cancel.clone());
    let started = Instant::now();
    let output = toolbox.call_at(index, &args, Some(&cancel));
    mcp::audit("cli", tool.name(), &args, &output, started.elapsed());
    let status = match &output.exec {
        _ if output.code == Some(CODE_INVALID_ARGUMENTS) => 2,
        // The command could not start (missing binary, ...).
        Some(exec) if exec.start_error.is_some() => 1,
        Some(_) => 0,
        None if output.is_error => 1,
        None => 0,
    };
    if json {
        let mut value = json!({
            "tool": tool.name(),
            "is_error": output.is_error,
            "code": output.code,
            "text": output.text,
        });
        if let Some(exec) = &output.exec {
            value["exit_code"] = json!(exec.exit_code);
            value["signal"] = json!(exec.signal);
            value["timed_out"] = json!(exec.timed_out);
            value["cancelled"] = json!(exec.cancelled);
            value["truncated"] = json!(exec.truncated);
            value["total_bytes"] = json!(exec.total_bytes);
            value["duration_ms"] = json!(exec.duration.as_secs_f64() * 1000.0);
            value["output"] = json!(output.output().unwrap_or_default());
            value["start_error"] = json!(exec.start_error);
            value["confined"] = json!(exec.confined);
        }
        print_json(&value)?;
    } else {
        write_stdout(&output.text)?;
    }
    let signal = signalled.map_or(0, |s| s.load(std::sync::atomic::Ordering::SeqCst));
    if signal != 0 {
        return Ok(u8::try_from(128 + signal).unwrap_or(1));
    }
    Ok(status)
}

/// Parses ARGS_JSON, or says where it went wrong and what good JSON looks like. Valid JSON
/// that is not an object goes to the tool, whose validation refuses it (614), as it would
/// refuse it from a model.
pub(crate) fn parse_args(raw: &str, tool: &dyn Tool) -> Result<Value, Failure> {
    serde_json::from_str::<Value>(raw).map_err(|e| {
        let example = example_args(tool);
        let line_text = raw.lines().nth(e.line().saturating_sub(1)).unwrap_or("");
        let caret = format!("{}^", " ".repeat(e.column().saturating_sub(1)));
        Failure::cannot_run(format!(
            "ARGS_JSON is not valid JSON: {e}\n  {line_text}\n  {caret}\nwrite a JSON object in single quotes, keys and strings in double quotes, for example:\n  nanotool call {} '{example}'",
            tool.name()
        ))
    })
}

/// A JSON object naming the tool's arguments, for error messages.
pub(crate) fn example_args(tool: &dyn Tool) -> String {
    let schema = tool.input_schema();
    let mut example = serde_json::Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            let value = match prop.get("type").and_then(Value::as_str) {
                Some("integer") => json!(1),
                Some("number") => json!(1.5),
                Some("boolean") => json!(true),
                _ => match prop.get("enum").and_then(Value::as_array) {
                    Some(values) if !values.is_empty() => values[0].clone(),
                    _ => json!("..."),
                },
            };
            example.insert(name.clone(), value);
        }
    }
    Value::Object(example).to_string()
}
