//! The MCP shape of a call's result: `content`, `isError` and `structuredContent` (without
//! the era's own fields, which [`super::era`] adds). Shared with the rmcp adapter.

use nanotool_runtime::{CODE_INVALID_ARGUMENTS, ToolOutput};
use serde_json::{Value, json};

/// The `structuredContent` of a call result, or `None` for a refused call (614).
pub fn structured_content(output: &ToolOutput) -> Option<Value> {
    if output.code == Some(CODE_INVALID_ARGUMENTS) {
        return None;
    }
    match &output.exec {
        Some(exec) => {
            let mut structured = json!({
                "exit_code": exec.exit_code,
                "output": output.output().unwrap_or_default(),
                "truncated": exec.truncated,
                "timed_out": exec.timed_out,
                "confined": exec.confined,
            });
            if let Some(note) = &exec.sandbox_note {
                structured["sandbox_note"] = json!(note);
            }
            if let Some(meaning) = &output.exit_meaning {
                structured["exit_meaning"] = json!(meaning);
            }
            Some(structured)
        }
        // A tool that ran no command: its text is its output.
        None if !output.is_error => Some(json!({
            "exit_code": 0,
            "output": output.text,
            "truncated": false,
            "timed_out": false,
            "confined": false,
        })),
        None => None,
    }
}

/// The `tools/call` result of `output` (without the era-specific fields), with
/// `structuredContent` ([`structured_content`]) beside the text.
pub fn call_result(output: &ToolOutput) -> Value {
    let mut result = text_call_result(output);
    if let Some(structured) = structured_content(output) {
        result["structuredContent"] = structured;
    }
    result
}

/// The `tools/call` result of `output` as text only: what `nanotool serve` sends by default
/// ([`ServerOptions::structured_content`](super::ServerOptions::structured_content)). The
/// text is the exit status (with its meaning when the tool declares it), the notes
/// (timed out, bytes omitted, ...) and the output as lines; `isError` is set for failures
/// only.
///
/// ```
/// use nanotool::mcp::text_call_result;
/// use nanotool::{ExecResult, ToolOutput};
///
/// let out = ToolOutput::from_exec(ExecResult { output: "a.rs:1: fn main() {\n".into(), ..ExecResult::default() });
/// let result = text_call_result(&out);
/// assert_eq!(result["content"][0]["text"], "exit: 0\noutput: a.rs:1: fn main() {\n");
/// assert_eq!(result["isError"], false);
/// assert!(result.get("structuredContent").is_none());
/// ```
pub fn text_call_result(output: &ToolOutput) -> Value {
    json!({
        "content": [{"type": "text", "text": output.text}],
        "isError": output.is_error,
    })
}
