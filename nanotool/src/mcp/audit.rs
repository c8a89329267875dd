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
        Value::Array(items) => push_log_list(out, ('[', ']'), "items", items, push_log_value),
        Value::Object(map) => push_log_list(out, ('{', '}'), "keys", map, |(key, item), out| {
            push_log_str(key, out);
            out.push(':');
            push_log_value(item, out);
        }),
        other => out.push_str(&other.to_string()),
    }
}

/// A list between `brackets`, its elements separated by commas, that stops once `out` is
/// past [`LOG_VALUE_BYTES`] with a count of what was left out (`… (3 more items)`).
fn push_log_list<I: IntoIterator>(
    out: &mut String,
    brackets: (char, char),
    noun: &str,
    items: I,
    mut push: impl FnMut(I::Item, &mut String),
) where
    I::IntoIter: ExactSizeIterator,
{
    let items = items.into_iter();
    let len = items.len();
    out.push(brackets.0);
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if out.len() > LOG_VALUE_BYTES {
            let more = if noun.is_empty() {
                format!("… ({} more)", len - i)
            } else {
                format!("… ({} more {noun})", len - i)
            };
            out.push_str(&more);
            break;
        }
        push(item, out);
    }
    out.push(brackets.1);
}

pub(super) fn push_log_str(s: &str, out: &mut String) {
    let shown = shorten(s, LOG_STRING_CHARS);
    out.push_str(&Value::from(shown.as_ref()).to_string());
}

/// An argv as a log shows it: a JSON array of shortened strings, cut after about 2 KiB.
pub(super) fn log_strings(items: &[String]) -> String {
    let mut out = String::new();
    push_log_list(&mut out, ('[', ']'), "", items, |item, out| {
        push_log_str(item, out)
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What a cut list shows and what it counts as left out add up to the whole.
    fn shown_and_left(text: &str, open: char, tail: &str) -> (usize, usize) {
        let cut = text.find('…').expect("the list is cut");
        let shown = text[1..cut].split(',').filter(|s| !s.is_empty()).count();
        assert!(text.starts_with(open), "{text}");
        let left = text[cut..]
            .strip_prefix("… (")
            .and_then(|rest| rest.strip_suffix(tail))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{text}"));
        (shown, left)
    }

    #[test]
    fn long_lists_are_cut_with_a_count_of_what_is_left_out() {
        let items: Vec<Value> = (0..2000).map(|i| json!(i)).collect();
        let (shown, left) = shown_and_left(&log_value(&json!(items)), '[', " more items)]");
        assert_eq!(shown + left, 2000);

        let object: serde_json::Map<String, Value> =
            (0..2000).map(|i| (format!("k{i}"), json!(i))).collect();
        let (shown, left) = shown_and_left(&log_value(&json!(object)), '{', " more keys)}");
        assert_eq!(shown + left, 2000);

        let argv: Vec<String> = (0..2000).map(|i| format!("a{i}")).collect();
        let (shown, left) = shown_and_left(&log_strings(&argv), '[', " more)]");
        assert_eq!(shown + left, 2000);

        assert_eq!(log_strings(&["a".into(), "b".into()]), r#"["a","b"]"#);
        assert_eq!(log_value(&json!({"a": [1, "x"]})), r#"{"a":[1,"x"]}"#);
    }
}
