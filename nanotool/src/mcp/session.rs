//! One session: the state of one `serve` (the host, the options, the output, the calls in
//! flight, whether the client initialised) and all of its request handling, from a parsed
//! line to its answer. The layers below do the rest: [`super::wire`] reads and writes the
//! frames, [`super::era`] says which rules serve a request, [`super::paging`] pages
//! `tools/list`, [`super::in_flight`] admits and cancels calls; the pool
//! ([`super::pool`]) asks for the next job and runs it.

use std::io::{self, BufRead};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use nanotool_runtime::{CancelHandle, Progress, Tool, hint};
use serde_json::{Map, Value, json};

use super::audit::{LOG_STRING_CHARS, audit, shorten};
use super::era::{self, Era};
use super::host::ToolHost;
use super::in_flight::{InFlight, Limits, request_bytes};
use super::options::ServerOptions;
use super::paging;
use super::pool::{Jobs, Turn};
use super::progress::{self, Ticker};
use super::result::{call_result, text_call_result};
use super::wire::{
    ErrorCode, Frame, Output, RpcError, error_message, parse_line, read_frame, result_message,
    too_long,
};
use nanotool_runtime::hint::MAX_TOOL_NAME_CHARS;

/// One accepted `tools/call`, waiting for a thread.
pub(super) struct Job {
    id: Value,
    key: String,
    /// Where the tool stands in the host's list (found once, when the call was accepted).
    index: usize,
    tool: Arc<dyn Tool>,
    args: Value,
    era: Era,
    cancel: CancelHandle,
    /// The progress token, what the call has printed so far and the clock of its
    /// notifications, for a request that asked for progress.
    watch: Option<(Value, Arc<Progress>, Arc<Ticker>)>,
}

/// A running session.
pub(super) struct Session {
    host: Arc<dyn ToolHost>,
    options: ServerOptions,
    out: Output,
    calls: InFlight,
    initialized: AtomicBool,
    /// The server's identity, as `serverInfo` and in a modern result's `_meta`.
    server_info: Value,
    fingerprint: u64,
    /// The `tools/list` entries, computed once: the tool set of a session never changes.
    definitions: Vec<Value>,
    /// Whether [`ServerOptions::left_out`] went to the client already (once per session).
    left_out_sent: AtomicBool,
}

/// The `_meta` key of a 2026-07-28 request asking for log messages at a level or above.
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

impl Session {
    /// A session offering `host`'s tools, writing its messages to `out`.
    pub(super) fn new(host: Arc<dyn ToolHost>, options: ServerOptions, out: Output) -> Self {
        let fingerprint = paging::fingerprint(host.tools());
        let mut definitions = host.definitions();
        if !options.structured_content {
            // No `structuredContent` in the results: no schema promising one.
            for definition in &mut definitions {
                if let Some(object) = definition.as_object_mut() {
                    object.remove("outputSchema");
                }
            }
        }
        let server_info = json!({"name": options.name, "version": options.version});
        Session {
            host,
            options,
            out,
            calls: InFlight::default(),
            initialized: AtomicBool::new(false),
            server_info,
            fingerprint,
            definitions,
            left_out_sent: AtomicBool::new(false),
        }
    }

    /// Sends what the host left out ([`ServerOptions::left_out`]) as log messages at level
    /// `error`, once per session.
    fn send_left_out(&self) {
        if self.options.left_out.is_empty() || self.left_out_sent.swap(true, Ordering::SeqCst) {
            return;
        }
        for message in &self.options.left_out {
            self.out.send(&json!({
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "error", "logger": "nanotool", "data": message},
            }));
        }
    }

    /// The calls in flight (for [`super::McpServer::cancel_all`] and `in_flight`).
    pub(super) fn calls(&self) -> &InFlight {
        &self.calls
    }

    /// Flushes the output (at the end of the session).
    pub(super) fn flush(&self) {
        self.out.flush();
    }

    fn send_error(&self, id: &Value, error: &RpcError) {
        self.out.send(&error_message(id, error));
    }

    fn send_result(&self, id: &Value, result: Value, era: Era) {
        let result = era::finish_result(result, era, &self.server_info);
        self.out.send(&result_message(id, result));
    }

    /// One line: parsed, then handled; a `tools/call` comes back as a job.
    fn handle_line(&self, line: &[u8]) -> Option<Job> {
        match parse_line(line) {
            Ok(Some(object)) => self.handle_object(object),
            Ok(None) => None,
            Err(error) => {
                self.send_error(&Value::Null, &error);
                None
            }
        }
    }

    /// A parsed message to its handler: a notification, a request by method, a response
    /// ignored.
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
                    ErrorCode::INVALID_REQUEST,
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
                        ErrorCode::INVALID_REQUEST,
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
                        &RpcError::new(
                            ErrorCode::INVALID_REQUEST,
                            "invalid request: \"method\" is missing",
                        ),
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
                    &RpcError::new(
                        ErrorCode::INVALID_PARAMS,
                        "\"params\" must be a JSON object",
                    ),
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
                        ErrorCode::INVALID_REQUEST,
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
                self.initialized.store(true, Ordering::SeqCst);
                self.send_left_out();
            }
            "notifications/cancelled" => {
                if let Some(request) = params.get("requestId") {
                    self.calls.cancel(request, params.get("reason"));
                }
            }
            other => tracing::debug!(
                method = %shorten(other, LOG_STRING_CHARS),
                "ignored a notification"
            ),
        }
    }

    fn handle_request(&self, id: Value, method: &str, params: Map<String, Value>) -> Option<Job> {
        let initialized = self.initialized.load(Ordering::SeqCst);
        let instructions = self.options.instructions.as_deref();
        // A 2026-07-28 request asks for log messages in its `_meta`: what the host left out
        // goes before its answer.
        if params
            .get("_meta")
            .and_then(|m| m.get(META_LOG_LEVEL))
            .is_some()
        {
            self.send_left_out();
        }
        let result = match method {
            "initialize" => {
                // Requests after `initialize` follow the handshake rules (the spec lets a
                // client send requests before `notifications/initialized` arrives only in a
                // narrow window; being lenient here costs nothing).
                self.initialized.store(true, Ordering::SeqCst);
                let mut result =
                    era::initialize_result(&params, self.server_info.clone(), instructions);
                if !self.options.left_out.is_empty() {
                    // The messages of what was left out follow `notifications/initialized`.
                    result["capabilities"]["logging"] = json!({});
                }
                Ok(result)
            }
            "ping" => Ok(json!({})),
            // Declared (`logging`) only to send what was left out, at level `error`, which
            // any level a client sets lets through.
            "logging/setLevel" if initialized => Ok(json!({})),
            "server/discover" => era::era_of(&params, true, initialized)
                .map(|_| era::discover_result(self.options.ttl_ms, instructions)),
            "tools/list" => era::era_of(&params, false, initialized)
                .and_then(|era| self.list_tools(&params, era)),
            "tools/call" => match era::era_of(&params, false, initialized) {
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
                ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "method `{}` not found; this server implements initialize, ping, server/discover, tools/list and tools/call",
                    shorten(other, LOG_STRING_CHARS)
                ),
            )),
        };
        match result {
            Ok(result) => self.send_result(&id, result, era::reply_era(&params)),
            Err(e) => self.send_error(&id, &e),
        }
        None
    }

    /// One page of `tools/list`, with the cache hints of the modern era.
    fn list_tools(&self, params: &Map<String, Value>, era: Era) -> Result<Value, RpcError> {
        let tools = &self.definitions;
        let (range, next) = paging::page(
            params.get("cursor"),
            tools.len(),
            self.options.page_size,
            self.fingerprint,
        )?;
        let mut result = json!({ "tools": &tools[range] });
        if let Some(next) = next {
            result["nextCursor"] = Value::from(next);
        }
        if era == Era::Modern {
            result["ttlMs"] = Value::from(self.options.ttl_ms);
            result["cacheScope"] = Value::from("private");
        }
        Ok(result)
    }

    /// A `tools/call` accepted: its tool looked up once, its arguments an object, the call
    /// admitted among the calls in flight.
    fn accept_call(
        &self,
        id: Value,
        mut params: Map<String, Value>,
        era: Era,
    ) -> Result<Job, RpcError> {
        let name = match params.get("name") {
            Some(Value::String(n)) => n.clone(),
            Some(_) => {
                return Err(RpcError::new(
                    ErrorCode::INVALID_PARAMS,
                    "tools/call: \"name\" must be a string, the name of a tool from tools/list",
                ));
            }
            None => {
                return Err(RpcError::new(
                    ErrorCode::INVALID_PARAMS,
                    "tools/call: \"name\" is missing; give the name of a tool from tools/list",
                ));
            }
        };
        let args = match params.remove("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v @ Value::Object(_)) => v,
            Some(other) => {
                return Err(RpcError::new(
                    ErrorCode::INVALID_PARAMS,
                    format!(
                        "tools/call: \"arguments\" must be a JSON object such as {{\"path\": \".\"}}, not {}",
                        hint::json_kind(&other)
                    ),
                ));
            }
        };
        let host = &self.host;
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
            return Err(RpcError::new(
                ErrorCode::INVALID_PARAMS,
                format!("unknown tool `{shown}`; {advice}"),
            )
            .with_data(json!({"tool": shown, "closest": closest, "available": names})));
        };
        let limits = Limits {
            max_calls: self.options.max_in_flight,
            max_bytes: self.options.max_request_bytes,
        };
        let token = progress::token(&params);
        let admitted =
            self.calls
                .admit(&id, request_bytes(&name, &args), limits, token.is_some())?;
        let watch = token
            .zip(admitted.watch)
            .map(|(token, (progress, ticker))| (token, progress, ticker));
        Ok(Job {
            id,
            key: admitted.key,
            index,
            tool,
            args,
            era,
            cancel: admitted.cancel,
            watch,
        })
    }
}

impl Jobs for Session {
    type Job = Job;

    /// Reads and handles messages until one is a call to run, or the input ends.
    fn next_job(&self, reader: &mut dyn BufRead, line: &mut Vec<u8>) -> Turn<Job> {
        let max = self.options.max_line_bytes;
        loop {
            match read_frame(reader, max, line) {
                Ok(Frame::Line) => {
                    if let Some(job) = self.handle_line(line) {
                        return Turn::Job(job);
                    }
                }
                Ok(Frame::TooLong(len, id)) => {
                    tracing::warn!(bytes = len, "refused an oversized line");
                    self.send_error(&id.unwrap_or(Value::Null), &too_long(max));
                }
                Ok(Frame::Eof) => return Turn::Eof,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Turn::Failed(e),
            }
            if line.capacity() > 1024 * 1024 {
                *line = Vec::new();
            }
        }
    }

    /// Runs one call with panics caught, audits it, and answers it unless it was cancelled.
    fn run_job(&self, job: Job) {
        if self.calls.is_cancelled(&job.key) {
            self.calls.finish(&job.key);
            tracing::info!(tool = job.tool.name(), "cancelled before it started");
            return;
        }
        let started = Instant::now();
        let call = || {
            catch_unwind(AssertUnwindSafe(|| {
                self.host.call(job.index, &job.args, &job.cancel)
            }))
        };
        let outcome = match &job.watch {
            None => call(),
            Some((token, progress, ticker)) => std::thread::scope(|scope| {
                let notify = || {
                    ticker.run(|elapsed| {
                        self.out
                            .send(&progress::notification(token, elapsed, progress));
                    });
                };
                // Without a thread (none could be made) the call runs without progress.
                let spawned = std::thread::Builder::new()
                    .name("mcp-progress".into())
                    .spawn_scoped(scope, notify);
                if let Err(e) = &spawned {
                    tracing::warn!(error = %e, "no progress thread; the call runs without progress");
                }
                let outcome = call();
                // No notification after this: the result follows.
                ticker.stop();
                outcome
            }),
        };
        let duration = started.elapsed();
        let reply = match outcome {
            Ok(output) => {
                audit("mcp", job.tool.name(), &job.args, &output, duration);
                Ok(if self.options.structured_content {
                    call_result(&output)
                } else {
                    text_call_result(&output)
                })
            }
            Err(panic) => {
                let why = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                tracing::error!(tool = job.tool.name(), why, "tool panicked");
                Err(RpcError::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!("tool `{}` failed inside the server: {why}", job.tool.name()),
                ))
            }
        };
        // Decide under the lock whether the answer goes out: a cancelled call gets none.
        if self.calls.finish(&job.key) {
            tracing::info!(tool = job.tool.name(), "no response for a cancelled call");
            return;
        }
        match reply {
            Ok(result) => self.send_result(&job.id, result, job.era),
            Err(e) => self.send_error(&job.id, &e),
        }
    }
}
