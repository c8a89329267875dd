//! The MCP server behind `nanotool serve` (DESIGN §10): JSON-RPC 2.0 over stdio, one message
//! per line, speaking both eras of the Model Context Protocol.
//!
//! - **2025-11-25** (the handshake era): `initialize`, `notifications/initialized`, `ping`.
//! - **2026-07-28** (the per-request era): `server/discover`; every request carries
//!   `params._meta["io.modelcontextprotocol/protocolVersion"]` and
//!   `["io.modelcontextprotocol/clientCapabilities"]`; every result carries
//!   `resultType: "complete"` and the server's identity in `_meta`; `tools/list` carries the
//!   cache hints `ttlMs` and `cacheScope`.
//!
//! A request is served by the modern rules when it names a protocol version in `_meta`, and by
//! the handshake rules when the process was initialised and it names none. Both eras share
//! `tools/list` (a fixed order, an opaque `cursor`) and `tools/call`, and both cancel a call
//! with `notifications/cancelled`, which on stdio is the mechanism of 2026-07-28 too: the
//! call's process group is killed and no response follows.
//!
//! What lives here: the framing (bounded line reader, one locked writer), the dispatcher, the worker
//! pool that runs calls concurrently, cancellation, and the audit log of every call
//! ([`audit`]). What does not: how a tool runs (the [`Tool`] and the kernel) and which tools
//! exist (the [`ToolHost`], usually a [`Toolbox`]).
//!
//! ```no_run
//! use std::sync::Arc;
//! use nanotool::mcp::{McpServer, ServerOptions};
//! use nanotool::{CommandExecKernel, KernelSettings, Toolbox};
//!
//! let toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings::default()).unwrap());
//! let server = McpServer::new(Arc::new(toolbox), ServerOptions::default());
//! server.serve(std::io::stdin(), std::io::stdout()).unwrap();
//! ```

use std::collections::{HashMap, VecDeque};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use nanotool_runtime::{CancelHandle, Tool, ToolOutput, Toolbox, export, hint};
use serde_json::{Map, Value, json};

/// The `_meta` key naming a request's protocol version (2026-07-28).
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key carrying a request's client capabilities (2026-07-28).
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The result `_meta` key carrying the server's identity (2026-07-28).
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// Protocol versions served per request, through `_meta` (newest first).
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];
/// Protocol versions reachable through the `initialize` handshake (newest first).
pub const HANDSHAKE_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC: the line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: the message is not a valid request.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: bad parameters (unknown tool, bad cursor, missing `_meta`).
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: the server failed (a tool panicked, too many calls in flight).
pub const INTERNAL_ERROR: i64 = -32603;
/// MCP 2026-07-28: the requested protocol version is not supported.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// The tools a server offers, and how one of them is called.
///
/// [`Toolbox`] implements it; a host with its own registry may too.
pub trait ToolHost: Send + Sync {
    /// Every tool, in a fixed order (the order `tools/list` pages through).
    fn tools(&self) -> &[Arc<dyn Tool>];
    /// Where the tool named `name` stands in [`ToolHost::tools`] (by default, a scan): the
    /// one lookup of a call.
    fn position(&self, name: &str) -> Option<usize> {
        self.tools().iter().position(|t| t.name() == name)
    }
    /// Runs one call of the tool at `index` in [`ToolHost::tools`]; `cancel` fires when the
    /// client cancels it.
    fn call(&self, index: usize, args: &Value, cancel: &CancelHandle) -> ToolOutput;
    /// The MCP definitions of [`ToolHost::tools`], in the same order (by default each with
    /// the `outputSchema` of a command's result: [`export::mcp_definition`]).
    fn definitions(&self) -> Vec<Value> {
        self.tools()
            .iter()
            .map(|t| export::mcp_definition(t.as_ref(), true))
            .collect()
    }
}

impl ToolHost for Toolbox {
    fn tools(&self) -> &[Arc<dyn Tool>] {
        Toolbox::tools(self)
    }

    fn position(&self, name: &str) -> Option<usize> {
        Toolbox::position(self, name).ok()
    }

    fn call(&self, index: usize, args: &Value, cancel: &CancelHandle) -> ToolOutput {
        // Through the toolbox, which also applies its deny list at call time.
        Toolbox::call_at(self, index, args, Some(cancel))
    }

    fn definitions(&self) -> Vec<Value> {
        self.mcp_tools()
    }
}

/// Settings of an [`McpServer`].
#[derive(Debug, Clone, PartialEq)]
pub struct ServerOptions {
    /// Longest accepted line, in bytes; a longer one is answered with an error and skipped
    /// without being held in memory (default 4 MiB).
    pub max_line_bytes: usize,
    /// Calls run at once (default 64; the threads are started with the session and sleep
    /// until there is work); more wait in a queue.
    pub workers: usize,
    /// Calls accepted (running or queued) before new ones are refused (default 1024).
    pub max_in_flight: usize,
    /// Bytes the calls queued and running may hold, their arguments counted at their parsed
    /// size (default 64 MiB). A call beyond it is answered at once with a JSON-RPC error
    /// saying the server is busy and to retry; a call is always accepted when nothing else
    /// is held, so one message of [`ServerOptions::max_line_bytes`] can always run.
    pub max_request_bytes: usize,
    /// Tools per `tools/list` page (default 100).
    pub page_size: usize,
    /// The `ttlMs` cache hint on `tools/list` and `server/discover` (default 60 000: the tool
    /// set of a process never changes, the hint only bounds how stale a cache may get). The
    /// scope is always `private`: the tools come from one user's work folder.
    pub ttl_ms: u64,
    /// `serverInfo.name` (default `nanotool`).
    pub name: String,
    /// `serverInfo.version` (default this crate's version).
    pub version: String,
    /// `instructions` for the model, if any.
    pub instructions: Option<String>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            max_line_bytes: 4 * 1024 * 1024,
            workers: 64,
            max_in_flight: 1024,
            max_request_bytes: 64 * 1024 * 1024,
            page_size: 100,
            ttl_ms: 60_000,
            name: "nanotool".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            instructions: None,
        }
    }
}

/// An MCP server over one pair of byte streams.
pub struct McpServer {
    host: Arc<dyn ToolHost>,
    options: ServerOptions,
    current: Mutex<Option<Arc<Shared>>>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("tools", &self.host.tools().len())
            .field("options", &self.options)
            .finish()
    }
}

/// The `structuredContent` of a call result, or `None` for a refused call (614).
pub fn structured_content(output: &ToolOutput) -> Option<Value> {
    if output.code == Some(nanotool_runtime::CODE_INVALID_ARGUMENTS) {
        return None;
    }
    match &output.exec {
        Some(exec) => Some(json!({
            "exit_code": exec.exit_code,
            "output": exec.output,
            "truncated": exec.truncated,
            "timed_out": exec.timed_out,
            "confined": exec.confined,
        })),
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

/// The `tools/call` result of `output` (without the era-specific fields).
pub fn call_result(output: &ToolOutput) -> Value {
    let mut result = json!({
        "content": [{"type": "text", "text": output.text}],
        "isError": output.is_error,
    });
    if let Some(structured) = structured_content(output) {
        result["structuredContent"] = structured;
    }
    result
}

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

pub use nanotool_runtime::hint::MAX_TOOL_NAME_CHARS;

/// Characters of one string kept in a log line or an echoed name; the rest is replaced by its
/// length.
const LOG_STRING_CHARS: usize = 200;
/// Bytes of one logged value (arguments, an argv, a refusal) before it is cut.
const LOG_VALUE_BYTES: usize = 2048;

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

fn push_log_value(value: &Value, out: &mut String) {
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

fn push_log_str(s: &str, out: &mut String) {
    let shown = shorten(s, LOG_STRING_CHARS);
    out.push_str(&Value::from(shown.as_ref()).to_string());
}

/// An argv as a log shows it: a JSON array of shortened strings, cut after about 2 KiB.
fn log_strings(items: &[String]) -> String {
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

/// What a call holds while it waits and runs, counted against
/// [`ServerOptions::max_request_bytes`]: its arguments at their parsed size (a JSON value is
/// a fixed-size node plus what its strings, arrays and maps own), its name, and a small
/// fixed cost for the call itself.
fn request_bytes(name: &str, args: &Value) -> usize {
    const CALL: usize = 512;
    CALL + name.len() + value_bytes(args)
}

fn value_bytes(value: &Value) -> usize {
    const NODE: usize = std::mem::size_of::<Value>();
    match value {
        Value::String(s) => NODE + s.capacity(),
        Value::Array(items) => {
            NODE + (items.capacity() - items.len()) * NODE
                + items.iter().map(value_bytes).sum::<usize>()
        }
        Value::Object(map) => {
            NODE + map
                .iter()
                .map(|(k, v)| std::mem::size_of::<String>() + k.capacity() + 32 + value_bytes(v))
                .sum::<usize>()
        }
        _ => NODE,
    }
}

/// The longest line a [`LogWriter`] passes on; a longer one is cut, with its length.
pub const MAX_LOG_LINE: usize = 16 * 1024;

/// A log sink that never makes the code that logs wait: lines go to a bounded queue in
/// memory, and one thread of their own writes them to the sink (stderr, in `nanotool
/// serve`). When the sink stalls (a client that never reads the server's stderr), the queue
/// fills and further lines are dropped and counted, and a note of how many were lost is
/// written once the sink moves again. No lock is held while the sink is written, so a stalled
/// sink can lose log lines but never holds up an answer.
///
/// Its writers plug into a `tracing` subscriber (`.with_writer(move || pipe.writer())`).
#[derive(Clone)]
pub struct LogPipe {
    queue: Arc<LogQueue>,
}

impl std::fmt::Debug for LogPipe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogPipe")
            .field("max_bytes", &self.queue.max_bytes)
            .finish()
    }
}

struct LogQueue {
    state: Mutex<LogState>,
    changed: Condvar,
    max_bytes: usize,
}

#[derive(Default)]
struct LogState {
    lines: VecDeque<Vec<u8>>,
    bytes: usize,
    /// Lines dropped since the last note.
    unnoted: u64,
    /// Lines dropped in all.
    dropped_total: u64,
    /// The writing thread holds a line.
    writing: bool,
}

impl LogPipe {
    /// A pipe to this process's stderr, holding at most `max_bytes` of waiting lines.
    pub fn stderr(max_bytes: usize) -> io::Result<LogPipe> {
        LogPipe::with_sink(io::stderr(), max_bytes)
    }

    /// A pipe to `sink`, holding at most `max_bytes` of waiting lines; the thread that writes
    /// them lives as long as the process.
    pub fn with_sink<W: Write + Send + 'static>(sink: W, max_bytes: usize) -> io::Result<LogPipe> {
        let queue = Arc::new(LogQueue {
            state: Mutex::new(LogState::default()),
            changed: Condvar::new(),
            max_bytes,
        });
        let drained = queue.clone();
        thread::Builder::new()
            .name("log".into())
            .spawn(move || drain_log(&drained, sink))?;
        Ok(LogPipe { queue })
    }

    /// A writer for one log line (or a few): what it was given is queued when it is flushed
    /// or dropped, never waiting for the sink.
    pub fn writer(&self) -> LogWriter {
        LogWriter {
            queue: self.queue.clone(),
            line: Vec::new(),
            seen: 0,
        }
    }

    /// Lines dropped because the sink did not keep up.
    pub fn dropped(&self) -> u64 {
        self.queue
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .dropped_total
    }

    /// Waits up to `wait` for every queued line to be written; tells whether they were.
    pub fn flush(&self, wait: Duration) -> bool {
        let state = self.queue.state.lock().unwrap_or_else(|e| e.into_inner());
        let (state, _) = self
            .queue
            .changed
            .wait_timeout_while(state, wait, |s| !s.lines.is_empty() || s.writing)
            .unwrap_or_else(|e| e.into_inner());
        state.lines.is_empty() && !state.writing
    }
}

impl LogQueue {
    fn push(&self, line: Vec<u8>) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.bytes + line.len() > self.max_bytes {
            state.unnoted += 1;
            state.dropped_total += 1;
            return;
        }
        state.bytes += line.len();
        state.lines.push_back(line);
        self.changed.notify_all();
    }
}

fn drain_log<W: Write>(queue: &LogQueue, mut sink: W) {
    loop {
        let (line, dropped) = {
            let mut state = queue.state.lock().unwrap_or_else(|e| e.into_inner());
            while state.lines.is_empty() {
                state = queue.changed.wait(state).unwrap_or_else(|e| e.into_inner());
            }
            let line = state.lines.pop_front().unwrap_or_default();
            state.bytes -= line.len();
            state.writing = true;
            (line, std::mem::take(&mut state.unnoted))
        };
        // The lock is released: a sink that blocks here holds up no one else.
        if dropped > 0 {
            let note = format!("[{dropped} log lines dropped: the log was not being read]\n");
            let _ = sink.write_all(note.as_bytes());
        }
        let _ = sink.write_all(&line);
        let _ = sink.flush();
        let mut state = queue.state.lock().unwrap_or_else(|e| e.into_inner());
        state.writing = false;
        queue.changed.notify_all();
    }
}

/// One writer of a [`LogPipe`]: it gathers what it is given (at most [`MAX_LOG_LINE`]
/// bytes) and queues it on flush or drop.
pub struct LogWriter {
    queue: Arc<LogQueue>,
    line: Vec<u8>,
    /// Bytes given since the last flush, kept or not.
    seen: usize,
}

impl std::fmt::Debug for LogWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogWriter")
            .field("pending", &self.line.len())
            .finish()
    }
}

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = MAX_LOG_LINE.saturating_sub(self.line.len());
        self.line.extend_from_slice(&buf[..buf.len().min(room)]);
        self.seen += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.line.is_empty() {
            return Ok(());
        }
        let mut line = std::mem::take(&mut self.line);
        if self.seen > line.len() {
            // Cut on a character boundary, and say how long it was.
            let keep = match std::str::from_utf8(&line) {
                Ok(_) => line.len(),
                Err(e) => e.valid_up_to(),
            };
            line.truncate(keep);
            line.extend_from_slice(format!("… [log line cut: {} bytes]\n", self.seen).as_bytes());
        }
        self.seen = 0;
        self.queue.push(line);
        Ok(())
    }
}

impl Drop for LogWriter {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// A JSON-RPC error on its way to the client.
#[derive(Debug, Clone, PartialEq)]
struct RpcError {
    code: i64,
    message: String,
    data: Option<Value>,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// How a request is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    /// The handshake rules (the process was initialised, the request names no version).
    Handshake,
    /// The per-request rules of 2026-07-28.
    Modern,
}

/// One queued call.
struct Job {
    id: Value,
    key: String,
    /// Where the tool stands in the host's list (found once, when the call was accepted).
    index: usize,
    tool: Arc<dyn Tool>,
    args: Value,
    era: Era,
    cancel: CancelHandle,
}

/// A call that was accepted and has not answered yet.
struct InFlight {
    cancel: CancelHandle,
    cancelled: bool,
    /// What the call holds, counted against [`ServerOptions::max_request_bytes`].
    bytes: usize,
}

struct Shared {
    host: Arc<dyn ToolHost>,
    options: ServerOptions,
    out: Mutex<Output>,
    in_flight: Mutex<HashMap<String, InFlight>>,
    initialized: AtomicBool,
    accepted: AtomicUsize,
    /// Bytes held by the calls in `in_flight` (changed under its lock).
    held_bytes: AtomicUsize,
    fingerprint: u64,
    /// The `tools/list` entries, computed once: the tool set of a session never changes.
    definitions: Vec<Value>,
}

impl McpServer {
    /// A server offering `host`'s tools.
    pub fn new(host: Arc<dyn ToolHost>, options: ServerOptions) -> Self {
        McpServer {
            host,
            options,
            current: Mutex::new(None),
        }
    }

    /// Cancels every call in flight (their process groups are killed, no response follows);
    /// returns how many there were. For a host shutting down on a signal.
    pub fn cancel_all(&self) -> usize {
        let current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        let Some(shared) = current.as_ref() else {
            return 0;
        };
        let mut in_flight = shared.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        for entry in in_flight.values_mut() {
            entry.cancelled = true;
            entry.cancel.cancel();
        }
        in_flight.len()
    }

    /// Calls accepted and not yet finished.
    pub fn in_flight(&self) -> usize {
        let current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        current.as_ref().map_or(0, |shared| {
            shared
                .in_flight
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .len()
        })
    }

    /// The definitions `tools/list` pages through, in order.
    pub fn tool_definitions(&self) -> Vec<Value> {
        self.host.definitions()
    }

    /// Serves until `input` ends, then waits for the calls still running, writes their
    /// results and returns. Nothing but protocol messages is written to `output`.
    ///
    /// Malformed input never ends the loop; only an I/O error reading `input` does.
    pub fn serve<R, W>(&self, input: R, output: W) -> io::Result<()>
    where
        R: Read + Send + 'static,
        W: Write + Send + 'static,
    {
        let session = Arc::new(Session::new(
            self.host.clone(),
            self.options.clone(),
            output,
        ));
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(session.shared.clone());
        let pool = Arc::new(Pool {
            state: Mutex::new(PoolState {
                reader: Some((
                    Box::new(BufReader::with_capacity(64 * 1024, input)),
                    Vec::new(),
                )),
                queue: VecDeque::new(),
                idle: 0,
                eof: false,
                error: None,
            }),
            wake: Condvar::new(),
        });
        let threads: Vec<_> = (0..self.options.workers.max(1))
            .map(|i| {
                let (session, pool) = (session.clone(), pool.clone());
                thread::Builder::new()
                    .name(format!("mcp-{i}"))
                    .spawn(move || pool_thread(&session, &pool))
            })
            .collect::<io::Result<_>>()?;
        for t in threads {
            let _ = t.join();
        }
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = None;
        session.flush();
        let error = pool
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .error
            .take();
        error.map_or(Ok(()), Err)
    }
}

/// The threads of a session take turns at reading: one reads while the others run calls or
/// wait. The reader that meets a `tools/call` runs it itself when another thread is idle to
/// take over the reading (so no hop to another thread lies on the call's path), and queues
/// it otherwise; either way a reader is always there for the next message, cancellations
/// included.
struct Pool {
    state: Mutex<PoolState>,
    wake: Condvar,
}

struct PoolState {
    /// The input and the one line buffer, when no thread is reading: the buffer goes with
    /// the turn at reading, so the threads do not each keep a line's worth of memory.
    reader: Option<(Box<dyn BufRead + Send>, Vec<u8>)>,
    /// Calls waiting for a thread.
    queue: VecDeque<Job>,
    /// Threads waiting on `wake`.
    idle: usize,
    /// The input ended (or failed).
    eof: bool,
    /// Why reading failed, if it did.
    error: Option<io::Error>,
}

/// What one turn at reading produced.
enum Read1 {
    /// A call to run.
    Call(Job),
    /// The input ended.
    Eof,
    /// Reading failed.
    Failed(io::Error),
}

fn pool_thread(session: &Session, pool: &Pool) {
    let mut st = pool.state.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if let Some((mut reader, mut line)) = st.reader.take() {
            drop(st);
            let turn = session.read_one(reader.as_mut(), &mut line);
            st = pool.state.lock().unwrap_or_else(|e| e.into_inner());
            match turn {
                Read1::Call(job) => {
                    st.reader = Some((reader, line));
                    if st.idle > 0 {
                        // Hand the reading over and run the call here.
                        pool.wake.notify_one();
                        drop(st);
                        session.shared.run(job);
                        st = pool.state.lock().unwrap_or_else(|e| e.into_inner());
                    } else {
                        st.queue.push_back(job);
                    }
                }
                Read1::Eof => {
                    st.eof = true;
                    pool.wake.notify_all();
                }
                Read1::Failed(e) => {
                    st.error = Some(e);
                    st.eof = true;
                    pool.wake.notify_all();
                }
            }
            continue;
        }
        if let Some(job) = st.queue.pop_front() {
            drop(st);
            session.shared.run(job);
            st = pool.state.lock().unwrap_or_else(|e| e.into_inner());
            continue;
        }
        if st.eof {
            return;
        }
        st.idle += 1;
        st = pool.wake.wait(st).unwrap_or_else(|e| e.into_inner());
        st.idle -= 1;
    }
}

/// Where messages go: one writer at a time, each message written whole as one line and
/// flushed. After a failed write (the client closed its end) messages are dropped.
struct Output {
    sink: Box<dyn Write + Send>,
    broken: bool,
}

/// A running session: the shared state and the message handlers.
struct Session {
    shared: Arc<Shared>,
}

impl Session {
    fn new<W: Write + Send + 'static>(
        host: Arc<dyn ToolHost>,
        options: ServerOptions,
        output: W,
    ) -> Self {
        let fingerprint = fingerprint(host.tools());
        let definitions = host.definitions();
        let shared = Arc::new(Shared {
            host,
            options,
            out: Mutex::new(Output {
                sink: Box::new(output),
                broken: false,
            }),
            in_flight: Mutex::new(HashMap::new()),
            initialized: AtomicBool::new(false),
            accepted: AtomicUsize::new(0),
            held_bytes: AtomicUsize::new(0),
            fingerprint,
            definitions,
        });
        Session { shared }
    }

    fn flush(&self) {
        let mut out = self.shared.out.lock().unwrap_or_else(|e| e.into_inner());
        let _ = out.sink.flush();
    }

    /// Reads and handles messages until one is a call to run, or the input ends.
    fn read_one(&self, reader: &mut dyn BufRead, line: &mut Vec<u8>) -> Read1 {
        let max = self.shared.options.max_line_bytes;
        loop {
            match read_frame(reader, max, line) {
                Ok(Frame::Line) => {
                    if let Some(job) = self.handle_line(line) {
                        return Read1::Call(job);
                    }
                }
                Ok(Frame::TooLong(len)) => {
                    tracing::warn!(bytes = len, "refused an oversized line");
                    self.send_error(
                        &Value::Null,
                        &RpcError::new(
                            INVALID_REQUEST,
                            format!(
                                "message too large: the line has more than {max} bytes; send one JSON-RPC message per line, at most {max} bytes"
                            ),
                        ),
                    );
                }
                Ok(Frame::Eof) => return Read1::Eof,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Read1::Failed(e),
            }
            if line.capacity() > 1024 * 1024 {
                *line = Vec::new();
            }
        }
    }

    fn send(&self, message: Value) {
        self.shared.send(message);
    }

    fn send_error(&self, id: &Value, error: &RpcError) {
        self.shared.send(error_message(id, error));
    }

    fn handle_line(&self, line: &[u8]) -> Option<Job> {
        let text = match std::str::from_utf8(line) {
            Ok(t) => t,
            Err(e) => {
                self.send_error(
                    &Value::Null,
                    &RpcError::new(
                        PARSE_ERROR,
                        format!(
                            "parse error: the line is not UTF-8 (byte {}); send UTF-8 JSON",
                            e.valid_up_to()
                        ),
                    ),
                );
                return None;
            }
        };
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        // Through the same reader as descriptor files: a key given twice is refused, so no
        // part of a frame is read one way and run another.
        let message: Value = match nanotool_runtime::descriptor::parse_json(text) {
            Ok(v) => v,
            Err(e) if e.classify() == serde_json::error::Category::Data => {
                self.send_error(
                    &Value::Null,
                    &RpcError::new(
                        INVALID_REQUEST,
                        format!(
                            "invalid request: {}; give each key once per object",
                            shorten(&e.to_string(), LOG_VALUE_BYTES)
                        ),
                    ),
                );
                return None;
            }
            Err(e) => {
                self.send_error(
                    &Value::Null,
                    &RpcError::new(
                        PARSE_ERROR,
                        format!(
                            "parse error: {e}; send one JSON-RPC 2.0 object per line, e.g. {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}"
                        ),
                    ),
                );
                return None;
            }
        };
        let object = match message {
            Value::Object(o) => o,
            Value::Array(_) => {
                self.send_error(
                    &Value::Null,
                    &RpcError::new(
                        INVALID_REQUEST,
                        "JSON-RPC batches are not part of MCP (2025-11-25, 2026-07-28); send each message on its own line",
                    ),
                );
                return None;
            }
            _ => {
                self.send_error(
                    &Value::Null,
                    &RpcError::new(
                        INVALID_REQUEST,
                        "invalid request: a message is a JSON object with \"jsonrpc\": \"2.0\" and a \"method\"",
                    ),
                );
                return None;
            }
        };
        self.handle_object(object)
    }

    fn handle_object(&self, mut msg: Map<String, Value>) -> Option<Job> {
        let id = msg.remove("id");
        // A usable id for error replies: only a string or a number is echoed.
        let reply_id = match &id {
            Some(v @ (Value::String(_) | Value::Number(_))) => v.clone(),
            _ => Value::Null,
        };
        if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            self.send_error(
                &reply_id,
                &RpcError::new(
                    INVALID_REQUEST,
                    "invalid request: \"jsonrpc\" must be \"2.0\"",
                ),
            );
            return None;
        }
        let method = match msg.remove("method") {
            Some(Value::String(m)) => m,
            Some(_) => {
                self.send_error(
                    &reply_id,
                    &RpcError::new(
                        INVALID_REQUEST,
                        "invalid request: \"method\" must be a string",
                    ),
                );
                return None;
            }
            None => {
                if msg.contains_key("result") || msg.contains_key("error") {
                    // A response: this server sends no requests, so none is expected.
                    tracing::debug!("ignored a response from the client");
                } else {
                    self.send_error(
                        &reply_id,
                        &RpcError::new(INVALID_REQUEST, "invalid request: \"method\" is missing"),
                    );
                }
                return None;
            }
        };
        let params = msg.remove("params");
        if let Some(p) = &params
            && !p.is_object()
            && !p.is_null()
        {
            if id.is_some() {
                self.send_error(
                    &reply_id,
                    &RpcError::new(INVALID_PARAMS, "\"params\" must be a JSON object"),
                );
            }
            return None;
        }
        let params = match params {
            Some(Value::Object(p)) => p,
            _ => Map::new(),
        };
        match id {
            None => {
                self.handle_notification(&method, &params);
                None
            }
            Some(id @ (Value::String(_) | Value::Number(_))) => {
                self.handle_request(id, &method, params)
            }
            Some(_) => {
                self.send_error(
                    &Value::Null,
                    &RpcError::new(
                        INVALID_REQUEST,
                        "invalid request: \"id\" must be a string or a number",
                    ),
                );
                None
            }
        }
    }

    fn handle_notification(&self, method: &str, params: &Map<String, Value>) {
        match method {
            "notifications/initialized" => {
                self.shared.initialized.store(true, Ordering::SeqCst);
            }
            "notifications/cancelled" => {
                if let Some(request) = params.get("requestId") {
                    self.shared.cancel(request, params.get("reason"));
                }
            }
            other => tracing::debug!(
                method = %shorten(other, LOG_STRING_CHARS),
                "ignored a notification"
            ),
        }
    }

    fn handle_request(&self, id: Value, method: &str, params: Map<String, Value>) -> Option<Job> {
        let result = match method {
            "initialize" => Ok(self.initialize(&params)),
            "ping" => Ok(json!({})),
            "server/discover" => self
                .era(&params, true)
                .map(|_| self.shared.discover_result()),
            "tools/list" => self
                .era(&params, false)
                .and_then(|era| self.shared.list_tools(&params, era)),
            "tools/call" => match self.era(&params, false) {
                Ok(era) => {
                    // Run by a pool thread (or refused right here).
                    return match self.accept_call(id.clone(), params, era) {
                        Ok(job) => Some(job),
                        Err(e) => {
                            self.send_error(&id, &e);
                            None
                        }
                    };
                }
                Err(e) => Err(e),
            },
            other => Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!(
                    "method `{}` not found; this server implements initialize, ping, server/discover, tools/list and tools/call",
                    shorten(other, LOG_STRING_CHARS)
                ),
            )),
        };
        let era = if has_modern_meta(&params) {
            Era::Modern
        } else {
            Era::Handshake
        };
        match result {
            Ok(result) => self.send(result_message(&id, self.shared.finish_result(result, era))),
            Err(e) => self.send_error(&id, &e),
        }
        None
    }

    fn initialize(&self, params: &Map<String, Value>) -> Value {
        let requested = params.get("protocolVersion").and_then(Value::as_str);
        let version = match requested {
            Some(v) if HANDSHAKE_VERSIONS.contains(&v) => v,
            _ => HANDSHAKE_VERSIONS[0],
        };
        // Requests after `initialize` follow the handshake rules (the spec lets a client send
        // requests before `notifications/initialized` arrives only in a narrow window; being
        // lenient here costs nothing).
        self.shared.initialized.store(true, Ordering::SeqCst);
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": self.shared.server_info(),
        });
        if let Some(instructions) = &self.shared.options.instructions {
            result["instructions"] = Value::from(instructions.as_str());
        }
        result
    }

    /// Which rules serve a request: the modern ones when `_meta` names a version (which must
    /// be one we speak), the handshake ones after `initialize`; else the request is refused.
    fn era(&self, params: &Map<String, Value>, modern_only: bool) -> Result<Era, RpcError> {
        let meta = params.get("_meta");
        let version = meta.and_then(|m| m.get(META_PROTOCOL_VERSION));
        match version {
            None => {
                if !modern_only && self.shared.initialized.load(Ordering::SeqCst) {
                    return Ok(Era::Handshake);
                }
                Err(RpcError::new(
                    INVALID_PARAMS,
                    format!(
                        "missing params._meta[\"{META_PROTOCOL_VERSION}\"]: set it to \"{}\" together with params._meta[\"{META_CLIENT_CAPABILITIES}\"] (an object, {{}} for none), or open the session with `initialize` (protocol 2025-11-25)",
                        MODERN_VERSIONS[0]
                    ),
                ))
            }
            Some(Value::String(v)) if MODERN_VERSIONS.contains(&v.as_str()) => {
                match meta.and_then(|m| m.get(META_CLIENT_CAPABILITIES)) {
                    Some(Value::Object(_)) => Ok(Era::Modern),
                    _ => Err(RpcError::new(
                        INVALID_PARAMS,
                        format!(
                            "missing params._meta[\"{META_CLIENT_CAPABILITIES}\"]: every {v} request declares the client's capabilities, an object ({{}} for none)"
                        ),
                    )),
                }
            }
            // A session opened with `initialize` keeps the handshake rules, even when a
            // request's `_meta` repeats the version it negotiated.
            Some(Value::String(v))
                if HANDSHAKE_VERSIONS.contains(&v.as_str())
                    && !modern_only
                    && self.shared.initialized.load(Ordering::SeqCst) =>
            {
                Ok(Era::Handshake)
            }
            Some(Value::String(v)) => Err(RpcError::new(
                UNSUPPORTED_PROTOCOL_VERSION,
                format!(
                    "unsupported protocol version \"{v}\": use {} in params._meta, or `initialize` for {}",
                    MODERN_VERSIONS.join(", "),
                    HANDSHAKE_VERSIONS.join(", ")
                ),
            )
            .with_data(json!({"supported": MODERN_VERSIONS, "requested": v}))),
            Some(other) => Err(RpcError::new(
                INVALID_PARAMS,
                format!(
                    "params._meta[\"{META_PROTOCOL_VERSION}\"] must be a string such as \"{}\", not {other}",
                    MODERN_VERSIONS[0]
                ),
            )),
        }
    }

    fn accept_call(
        &self,
        id: Value,
        params: Map<String, Value>,
        era: Era,
    ) -> Result<Job, RpcError> {
        let name = match params.get("name") {
            Some(Value::String(n)) => n.clone(),
            Some(_) => {
                return Err(RpcError::new(
                    INVALID_PARAMS,
                    "tools/call: \"name\" must be a string, the name of a tool from tools/list",
                ));
            }
            None => {
                return Err(RpcError::new(
                    INVALID_PARAMS,
                    "tools/call: \"name\" is missing; give the name of a tool from tools/list",
                ));
            }
        };
        let mut params = params;
        let args = match params.remove("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v @ Value::Object(_)) => v,
            Some(other) => {
                return Err(RpcError::new(
                    INVALID_PARAMS,
                    format!(
                        "tools/call: \"arguments\" must be a JSON object such as {{\"path\": \".\"}}, not {}",
                        hint::json_kind(&other)
                    ),
                ));
            }
        };
        let host = &self.shared.host;
        let Some((index, tool)) = host
            .position(&name)
            .and_then(|i| Some((i, host.tools().get(i)?.clone())))
        else {
            let names: Vec<&str> = host.tools().iter().map(|t| t.name()).collect();
            let closest = hint::closest(&name, names.iter().copied());
            let advice = hint::did_you_mean(&closest)
                .unwrap_or_else(|| format!("available: {}", names.join(", ")));
            // The name is echoed shortened, with its length: the answer stays small.
            let shown = shorten(&name, MAX_TOOL_NAME_CHARS);
            return Err(
                RpcError::new(INVALID_PARAMS, format!("unknown tool `{shown}`; {advice}"))
                    .with_data(json!({"tool": shown, "closest": closest, "available": names})),
            );
        };
        let key = id_key(&id);
        let bytes = request_bytes(&name, &args);
        let cancel = CancelHandle::new();
        {
            let mut in_flight = self
                .shared
                .in_flight
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if in_flight.contains_key(&key) {
                return Err(RpcError::new(
                    INVALID_REQUEST,
                    format!(
                        "request id {id} is already in use by a call in flight; give each request its own id"
                    ),
                ));
            }
            if in_flight.len() >= self.shared.options.max_in_flight {
                return Err(RpcError::new(
                    INTERNAL_ERROR,
                    format!(
                        "server busy: {} calls in flight; wait for results before sending more",
                        in_flight.len()
                    ),
                ));
            }
            // Checked and added under the lock that removes finished calls.
            let held = self.shared.held_bytes.load(Ordering::SeqCst);
            let limit = self.shared.options.max_request_bytes;
            if held > 0 && held.saturating_add(bytes) > limit {
                return Err(RpcError::new(
                    INTERNAL_ERROR,
                    format!(
                        "server busy: the calls queued and running hold {held} bytes and this one needs {bytes} (limit {limit}); retry it when earlier calls have answered"
                    ),
                )
                .with_data(json!({"heldBytes": held, "requestBytes": bytes, "limitBytes": limit})));
            }
            self.shared.held_bytes.fetch_add(bytes, Ordering::SeqCst);
            in_flight.insert(
                key.clone(),
                InFlight {
                    cancel: cancel.clone(),
                    cancelled: false,
                    bytes,
                },
            );
        }
        self.shared.accepted.fetch_add(1, Ordering::SeqCst);
        Ok(Job {
            id,
            key,
            index,
            tool,
            args,
            era,
            cancel,
        })
    }
}

impl Shared {
    fn send(&self, message: Value) {
        // serde_json escapes every control character: the message is one line.
        let mut line = message.to_string();
        line.push('\n');
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        if out.broken {
            return;
        }
        let written = out.sink.write_all(line.as_bytes());
        if written.and_then(|()| out.sink.flush()).is_err() {
            out.broken = true;
            tracing::warn!("the output is closed; further messages are dropped");
        }
    }

    fn server_info(&self) -> Value {
        json!({"name": self.options.name, "version": self.options.version})
    }

    /// Adds the fields every result carries in its era.
    fn finish_result(&self, mut result: Value, era: Era) -> Value {
        if era == Era::Modern
            && let Value::Object(map) = &mut result
        {
            map.insert("resultType".into(), Value::from("complete"));
            let meta = map
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                meta.insert(META_SERVER_INFO.into(), self.server_info());
            }
        }
        result
    }

    fn discover_result(&self) -> Value {
        let mut result = json!({
            "supportedVersions": MODERN_VERSIONS,
            "capabilities": {"tools": {}},
            "ttlMs": self.options.ttl_ms,
            "cacheScope": "private",
        });
        if let Some(instructions) = &self.options.instructions {
            result["instructions"] = Value::from(instructions.as_str());
        }
        result
    }

    fn list_tools(&self, params: &Map<String, Value>, era: Era) -> Result<Value, RpcError> {
        let tools = &self.definitions;
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => decode_cursor(c, self.fingerprint)
                .filter(|&offset| offset > 0 && offset < tools.len())
                .ok_or_else(|| self.bad_cursor(c))?,
            Some(other) => return Err(self.bad_cursor(&other.to_string())),
        };
        let page = self.options.page_size.max(1);
        let end = (start + page).min(tools.len());
        let mut result = json!({ "tools": &tools[start..end] });
        if end < tools.len() {
            result["nextCursor"] = Value::from(encode_cursor(end, self.fingerprint));
        }
        if era == Era::Modern {
            result["ttlMs"] = Value::from(self.options.ttl_ms);
            result["cacheScope"] = Value::from("private");
        }
        Ok(result)
    }

    fn bad_cursor(&self, cursor: &str) -> RpcError {
        RpcError::new(
            INVALID_PARAMS,
            format!(
                "invalid cursor {cursor:?}: pass back the nextCursor of the previous tools/list result unchanged, or leave cursor out to start from the first tool"
            ),
        )
    }

    fn cancel(&self, request: &Value, reason: Option<&Value>) {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        let keys = alternate_keys(request);
        let Some(key) = keys.iter().find(|k| in_flight.contains_key(k.as_str())) else {
            tracing::debug!(request = %log_value(request), "cancel for a request not in flight; ignored");
            return;
        };
        let Some(entry) = in_flight.get_mut(key.as_str()) else {
            return;
        };
        entry.cancelled = true;
        entry.cancel.cancel();
        let reason = reason.and_then(|r| r.as_str()).unwrap_or("");
        tracing::info!(
            request = %log_value(request),
            reason = %shorten(reason, LOG_STRING_CHARS),
            "call cancelled by the client"
        );
    }

    /// Removes a finished call; tells whether it was cancelled.
    fn take_in_flight(&self, key: &str) -> bool {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        match in_flight.remove(key) {
            Some(entry) => {
                self.held_bytes.fetch_sub(entry.bytes, Ordering::SeqCst);
                entry.cancelled
            }
            None => false,
        }
    }

    fn is_cancelled(&self, key: &str) -> bool {
        let in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        in_flight.get(key).is_some_and(|e| e.cancelled)
    }

    fn run(&self, job: Job) {
        if self.is_cancelled(&job.key) {
            self.take_in_flight(&job.key);
            tracing::info!(tool = job.tool.name(), "cancelled before it started");
            return;
        }
        let started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            self.host.call(job.index, &job.args, &job.cancel)
        }));
        let duration = started.elapsed();
        let reply = match outcome {
            Ok(output) => {
                audit("mcp", job.tool.name(), &job.args, &output, duration);
                Ok(call_result(&output))
            }
            Err(panic) => {
                let why = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                tracing::error!(tool = job.tool.name(), why, "tool panicked");
                Err(RpcError::new(
                    INTERNAL_ERROR,
                    format!("tool `{}` failed inside the server: {why}", job.tool.name()),
                ))
            }
        };
        // Decide under the lock whether the answer goes out: a cancelled call gets none.
        if self.take_in_flight(&job.key) {
            tracing::info!(tool = job.tool.name(), "no response for a cancelled call");
            return;
        }
        match reply {
            Ok(result) => self.send(result_message(&job.id, self.finish_result(result, job.era))),
            Err(e) => self.send(error_message(&job.id, &e)),
        }
    }
}

fn result_message(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn error_message(id: &Value, error: &RpcError) -> Value {
    let mut e = json!({"code": error.code, "message": error.message});
    if let Some(data) = &error.data {
        e["data"] = data.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "error": e})
}

fn has_modern_meta(params: &Map<String, Value>) -> bool {
    // Any version but a handshake one asks for the modern rules (an unknown one is refused
    // with -32022 in the modern shape).
    params
        .get("_meta")
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .is_some_and(|v| !v.as_str().is_some_and(|v| HANDSHAKE_VERSIONS.contains(&v)))
}

fn id_key(id: &Value) -> String {
    id.to_string()
}

/// The keys a `requestId` may match: itself, and a number written as a string or the reverse
/// (clients disagree on which they echo).
fn alternate_keys(id: &Value) -> Vec<String> {
    let mut keys = vec![id_key(id)];
    match id {
        Value::String(s) => {
            if let Ok(n) = s.parse::<i64>() {
                keys.push(n.to_string());
            }
        }
        Value::Number(n) => keys.push(Value::from(n.to_string()).to_string()),
        _ => {}
    }
    keys
}

fn fingerprint(tools: &[Arc<dyn Tool>]) -> u64 {
    // FNV-1a over the names: a cursor from another tool set is refused.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for tool in tools {
        for b in tool.name().bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn encode_cursor(offset: usize, fingerprint: u64) -> String {
    format!("nt1.{offset:x}.{fingerprint:016x}")
}

fn decode_cursor(cursor: &str, fingerprint: u64) -> Option<usize> {
    let rest = cursor.strip_prefix("nt1.")?;
    let (offset, fp) = rest.split_once('.')?;
    if u64::from_str_radix(fp, 16).ok()? != fingerprint || fp.len() != 16 {
        return None;
    }
    usize::from_str_radix(offset, 16).ok()
}

/// What [`read_frame`] found.
#[derive(Debug, PartialEq, Eq)]
enum Frame {
    /// A line (without its newline) is in the buffer.
    Line,
    /// A line longer than the limit was skipped; its length so far.
    TooLong(usize),
    /// End of input.
    Eof,
}

/// Reads one line into `buf`, holding at most `max` bytes of it; a longer line is consumed
/// to its end and reported as [`Frame::TooLong`] without being stored.
fn read_frame<R: BufRead + ?Sized>(
    reader: &mut R,
    max: usize,
    buf: &mut Vec<u8>,
) -> io::Result<Frame> {
    buf.clear();
    let mut skipped: Option<usize> = None;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match skipped {
                Some(n) => Frame::TooLong(n),
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
                buf.clear();
                buf.shrink_to(64 * 1024);
            }
            None => buf.extend_from_slice(chunk),
        }
        let used = found.unwrap_or(available.len());
        reader.consume(used);
        if found.is_some() {
            return Ok(match skipped {
                Some(n) => Frame::TooLong(n),
                None => Frame::Line,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_on_newlines_and_skip_long_lines() {
        let input = b"abc\n0123456789\nxy".to_vec();
        let mut r = BufReader::with_capacity(4, &input[..]);
        let mut buf = Vec::new();
        assert_eq!(read_frame(&mut r, 5, &mut buf).unwrap(), Frame::Line);
        assert_eq!(buf, b"abc");
        assert_eq!(read_frame(&mut r, 5, &mut buf).unwrap(), Frame::TooLong(10));
        assert_eq!(read_frame(&mut r, 5, &mut buf).unwrap(), Frame::Line);
        assert_eq!(buf, b"xy");
        assert_eq!(read_frame(&mut r, 5, &mut buf).unwrap(), Frame::Eof);
    }

    #[test]
    fn cursors_round_trip_and_refuse_other_tool_sets() {
        let c = encode_cursor(7, 42);
        assert_eq!(decode_cursor(&c, 42), Some(7));
        assert_eq!(decode_cursor(&c, 43), None);
        assert_eq!(decode_cursor("garbage", 42), None);
    }
}
