//! The audit log: one record per call, written to the `tracing` log, every value shortened
//! so that a line stays small whatever a client sends.

use serde_json::Value;
use std::time::Duration;

use nanotool_runtime::ToolOutput;

/// Writes the audit record of one call to the `tracing` log (stderr in the binary): tool,
/// argv (the one the output carries, [`ToolOutput::argv`]: what ran; the arguments as sent,
/// for a call refused before an argv existed), exit status, duration, truncation, and for a
/// refused call, why.
pub fn audit(via: &str, tool: &str, args: &Value, output: &ToolOutput, duration: Duration) {
    // Every value is shortened: a log line stays small whatever a client sends.
    let argv = output.argv.as_deref().map_or_else(String::new, log_strings);
    let ms = (duration.as_secs_f64() * 1e6).round() / 1e3;
    if output.code == Some(nanotool_runtime::CODE_INVALID_ARGUMENTS) {
        tracing::warn!(
            via,
            tool = %shorten(tool, LOG_STRING_CHARS),
            args = %log_value(args),
            refused = true,
            code = 614,
            why = %shorten(&output.text, LOG_VALUE_BYTES),
            duration_ms = ms,
            "call refused"
        );
        return;
    }
    match &output.exec {
        Some(exec) => tracing::info!(
            via,
            tool = %shorten(tool, LOG_STRING_CHARS),
            argv = %argv,
            exit = exec.exit_code,
            timed_out = exec.timed_out,
            cancelled = exec.cancelled,
            truncated = exec.truncated,
            bytes = exec.total_bytes,
            start_error = %shorten(exec.start_error.as_deref().unwrap_or(""), LOG_VALUE_BYTES),
            duration_ms = ms,
            "call"
        ),
        None => tracing::info!(
            via,
            tool = %shorten(tool, LOG_STRING_CHARS),
            args = %log_value(args),
            is_error = output.is_error,
            duration_ms = ms,
            "call"
        ),
    }
}

/// Characters of one string kept in a log line or an echoed name; the rest is replaced by its
/// length.
pub(super) const LOG_STRING_CHARS: usize = 200;

/// Bytes of one logged value (arguments, an argv, a refusal) before it is cut.
pub(super) const LOG_VALUE_BYTES: usize = 2048;

/// `text` whole when it has at most `max` characters, else its first `max` characters, an
/// ellipsis and its length in bytes.
pub fn shorten(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(text),
        Some((cut, _)) => {
            std::borrow::Cow::Owned(format!("{}… ({} bytes)", &text[..cut], text.len()))
        }
    }
}

/// A JSON value as a log shows it: strings over 200 characters are cut (with their length),
/// and the whole stops after about 2 KiB (with a count of what was left out). Its cost is
/// bounded too: nothing past the cut is visited.
pub fn log_value(value: &Value) -> String {
    let mut out = String::new();
    push_log_value(value, &mut out);
    out
}

pub(super) fn push_log_value(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => push_log_str(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if out.len() > LOG_VALUE_BYTES {
                    out.push_str(&format!("… ({} more items)", items.len() - i));
                    break;
                }
                push_log_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if out.len() > LOG_VALUE_BYTES {
                    out.push_str(&format!("… ({} more keys)", map.len() - i));
                    break;
                }
                push_log_str(key, out);
                out.push(':');
                push_log_value(item, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

pub(super) fn push_log_str(s: &str, out: &mut String) {
    let shown = shorten(s, LOG_STRING_CHARS);
    out.push_str(&Value::from(shown.as_ref()).to_string());
}

/// An argv as a log shows it: a JSON array of shortened strings, cut after about 2 KiB.
pub(super) fn log_strings(items: &[String]) -> String {
    let mut out = String::from("[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if out.len() > LOG_VALUE_BYTES {
            out.push_str(&format!("… ({} more)", items.len() - i));
            break;
        }
        push_log_str(item, &mut out);
    }
    out.push(']');
    out
}
