//! The byte layer: JSON-RPC 2.0 over stdio, one message per line. Frames are read through a
//! bounded line reader (a line over the limit is skipped without being held), parsed by the
//! strict JSON reader (a key given twice is refused), and written whole, one line at a time,
//! through one locked writer. [`RpcError`] and its [`ErrorCode`]s live here.
//!
//! This layer knows nothing above it: not the protocol's methods, not the session, not the
//! tools.

use std::fmt;
use std::io::{self, BufRead, Write};
use std::sync::Mutex;

use serde_json::{Map, Value, json};

use super::audit::{LOG_VALUE_BYTES, shorten};

/// A JSON-RPC error code, as sent in an error response's `code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    /// JSON-RPC: the line is not JSON.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// JSON-RPC: the message is not a valid request.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// JSON-RPC: no such method.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// JSON-RPC: bad parameters (unknown tool, bad cursor, missing `_meta`).
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// JSON-RPC: the server failed (a tool panicked, too many calls in flight).
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// MCP 2026-07-28: the requested protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A JSON-RPC error on its way to the client.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RpcError {
    pub(super) code: ErrorCode,
    pub(super) message: String,
    pub(super) data: Option<Value>,
}

impl RpcError {
    pub(super) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub(super) fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// The response carrying `result` to the request `id`.
pub(super) fn result_message(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// The response carrying `error` to the request `id`.
pub(super) fn error_message(id: &Value, error: &RpcError) -> Value {
    let mut e = json!({"code": error.code.0, "message": error.message});
    if let Some(data) = &error.data {
        e["data"] = data.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "error": e})
}

/// Where messages go: one writer at a time, each message written whole as one line and
/// flushed. After a failed write (the client closed its end) messages are dropped.
pub(super) struct Output {
    sink: Mutex<Sink>,
}

struct Sink {
    writer: Box<dyn Write + Send>,
    broken: bool,
}

impl Output {
    /// Messages written to `writer`.
    pub(super) fn new(writer: Box<dyn Write + Send>) -> Self {
        Output {
            sink: Mutex::new(Sink {
                writer,
                broken: false,
            }),
        }
    }

    /// Writes `message` as one line and flushes it.
    pub(super) fn send(&self, message: &Value) {
        // serde_json escapes every control character: the message is one line.
        let mut line = message.to_string();
        line.push('\n');
        let mut sink = self.sink.lock().unwrap_or_else(|e| e.into_inner());
        if sink.broken {
            return;
        }
        let written = sink.writer.write_all(line.as_bytes());
        if written.and_then(|()| sink.writer.flush()).is_err() {
            sink.broken = true;
            tracing::warn!("the output is closed; further messages are dropped");
        }
    }

    /// Flushes the writer (at the end of a session).
    pub(super) fn flush(&self) {
        let mut sink = self.sink.lock().unwrap_or_else(|e| e.into_inner());
        let _ = sink.writer.flush();
    }
}

/// What [`read_frame`] found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Frame {
    /// A line (without its newline) is in the buffer.
    Line,
    /// A line longer than the limit was skipped; its length so far.
    TooLong(usize, Option<Value>),
    /// End of input.
    Eof,
}

/// Reads one line into `buf`, holding at most `max` bytes of it; a longer line is consumed
/// to its end and reported as [`Frame::TooLong`] without being stored.
pub(super) fn read_frame<R: BufRead + ?Sized>(
    reader: &mut R,
    max: usize,
    buf: &mut Vec<u8>,
) -> io::Result<Frame> {
    buf.clear();
    let mut skipped: Option<usize> = None;
    let mut id: Option<Value> = None;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match skipped {
                Some(n) => Frame::TooLong(n, id.take()),
                None if buf.is_empty() => Frame::Eof,
                None => Frame::Line,
            });
        }
        let (chunk, found) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        match &mut skipped {
            Some(n) => *n += chunk.len(),
            None if buf.len() + chunk.len() > max => {
                skipped = Some(buf.len() + chunk.len());
                // The id, if it stands within the limit, so the sender's request completes.
                let room = max - buf.len();
                buf.extend_from_slice(&chunk[..room]);
                id = top_level_id(buf);
                buf.clear();
                buf.shrink_to(64 * 1024);
            }
            None => buf.extend_from_slice(chunk),
        }
        let used = found.unwrap_or(available.len());
        reader.consume(used);
        if found.is_some() {
            return Ok(match skipped {
                Some(n) => Frame::TooLong(n, id.take()),
                None => Frame::Line,
            });
        }
    }
}

/// The `"id"` of the object that `prefix` begins, when it stands whole in `prefix` at the
/// top level: a string without escapes (256 bytes at most) or a number followed by a
/// delimiter. Anything else (nested, truncated, escaped, another type) is no id.
pub(super) fn top_level_id(prefix: &[u8]) -> Option<Value> {
    let skip_ws = |mut i: usize| {
        while prefix.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let mut i = skip_ws(0);
    if prefix.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut depth = 1usize;
    while i < prefix.len() {
        match prefix[i] {
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < prefix.len() && prefix[j] != b'"' {
                    j += if prefix[j] == b'\\' { 2 } else { 1 };
                }
                if j >= prefix.len() {
                    return None;
                }
                let after = skip_ws(j + 1);
                if depth == 1 && &prefix[start..j] == b"id" && prefix.get(after) == Some(&b':') {
                    return id_value(&prefix[skip_ws(after + 1)..]);
                }
                i = j + 1;
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}

fn id_value(text: &[u8]) -> Option<Value> {
    match text.first()? {
        b'"' => {
            let end = text[1..].iter().take(257).position(|&b| b == b'"')? + 1;
            let inner = &text[1..end];
            if inner.contains(&b'\\') {
                return None;
            }
            std::str::from_utf8(inner).ok().map(Value::from)
        }
        b'-' | b'0'..=b'9' => {
            let end = text
                .iter()
                .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))?;
            if !matches!(text[end], b',' | b'}' | b' ' | b'\t' | b'\r' | b'\n') {
                return None;
            }
            serde_json::from_slice::<Value>(&text[..end])
                .ok()
                .filter(Value::is_number)
        }
        _ => None,
    }
}

/// The error answering a line longer than `max` bytes.
pub(super) fn too_long(max: usize) -> RpcError {
    RpcError::new(
        ErrorCode::INVALID_REQUEST,
        format!(
            "message too large: the line has more than {max} bytes; send one JSON-RPC message per line, at most {max} bytes"
        ),
    )
}

/// One line as a JSON object: `None` for a blank line, or the error to answer (with a `null`
/// id: a line that is not an object has none to answer to).
pub(super) fn parse_line(line: &[u8]) -> Result<Option<Map<String, Value>>, RpcError> {
    let text = std::str::from_utf8(line).map_err(|e| {
        RpcError::new(
            ErrorCode::PARSE_ERROR,
            format!(
                "parse error: the line is not UTF-8 (byte {}); send UTF-8 JSON",
                e.valid_up_to()
            ),
        )
    })?;
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    // Through the same reader as descriptor files: a key given twice is refused, so no
    // part of a frame is read one way and run another.
    let message: Value = match nanotool_runtime::descriptor::parse_json(text) {
        Ok(v) => v,
        Err(e) if e.classify() == serde_json::error::Category::Data => {
            return Err(RpcError::new(
                ErrorCode::INVALID_REQUEST,
                format!(
                    "invalid request: {}; give each key once per object",
                    shorten(&e.to_string(), LOG_VALUE_BYTES)
                ),
            ));
        }
        Err(e) => {
            return Err(RpcError::new(
                ErrorCode::PARSE_ERROR,
                format!(
                    "parse error: {e}; send one JSON-RPC 2.0 object per line, e.g. {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}"
                ),
            ));
        }
    };
    match message {
        Value::Object(o) => Ok(Some(o)),
        Value::Array(_) => Err(RpcError::new(
            ErrorCode::INVALID_REQUEST,
            "JSON-RPC batches are not part of MCP (2025-11-25, 2026-07-28); send each message on its own line",
        )),
        _ => Err(RpcError::new(
            ErrorCode::INVALID_REQUEST,
            "invalid request: a message is a JSON object with \"jsonrpc\": \"2.0\" and a \"method\"",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::{ErrorCode, Frame, parse_line, read_frame};
    use std::io::BufReader;

    #[test]
    fn frames_split_on_newlines_and_skip_long_lines() {
        let input = b"abc\n0123456789\nxy".to_vec();
        let mut r = BufReader::with_capacity(4, &input[..]);
        let mut buf = Vec::new();
        assert_eq!(read_frame(&mut r, 5, &mut buf).unwrap(), Frame::Line);
        assert_eq!(buf, b"abc");
        assert_eq!(
            read_frame(&mut r, 5, &mut buf).unwrap(),
            Frame::TooLong(10, None)
        );
        assert_eq!(read_frame(&mut r, 5, &mut buf).unwrap(), Frame::Line);
        assert_eq!(buf, b"xy");
        assert_eq!(read_frame(&mut r, 5, &mut buf).unwrap(), Frame::Eof);
    }

    #[test]
    fn lines_that_are_not_one_object_are_refused_with_their_code() {
        assert_eq!(parse_line(b"  ").unwrap(), None);
        assert_eq!(
            parse_line(b"{\"a\":1,\"a\":2}").unwrap_err().code,
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            parse_line(b"[1]").unwrap_err().code,
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(parse_line(b"{").unwrap_err().code, ErrorCode::PARSE_ERROR);
        assert_eq!(
            parse_line(b"\xff").unwrap_err().code,
            ErrorCode::PARSE_ERROR
        );
    }
}
