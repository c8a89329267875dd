//! Tool calls: accepting a `tools/call` (its tool looked up once, its memory counted against
//! the limits, its id unique among the calls in flight), running it with panics caught,
//! cancelling it (`notifications/cancelled`: the process group is killed and no response
//! follows), and shaping its result (`content`, `isError`, `structuredContent`).

use serde_json::{Map, Value, json};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use nanotool_runtime::{CancelHandle, Tool, ToolOutput, hint};

use super::audit::{LOG_STRING_CHARS, audit, log_value, shorten};
use super::era::Era;
use super::framing::{
    INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, RpcError, error_message, result_message,
};
use super::{MAX_TOOL_NAME_CHARS, Session, Shared};

/// One queued call.
pub(super) struct Job {
    pub(super) id: Value,
    pub(super) key: String,
    /// Where the tool stands in the host's list (found once, when the call was accepted).
    pub(super) index: usize,
    pub(super) tool: Arc<dyn Tool>,
    pub(super) args: Value,
    pub(super) era: Era,
    pub(super) cancel: CancelHandle,
}

/// A call that was accepted and has not answered yet.
pub(super) struct InFlight {
    pub(super) cancel: CancelHandle,
    pub(super) cancelled: bool,
    /// What the call holds, counted against [`ServerOptions::max_request_bytes`].
    pub(super) bytes: usize,
}

impl Session {
    pub(super) fn accept_call(
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
    pub(super) fn cancel(&self, request: &Value, reason: Option<&Value>) {
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
    pub(super) fn take_in_flight(&self, key: &str) -> bool {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        match in_flight.remove(key) {
            Some(entry) => {
                self.held_bytes.fetch_sub(entry.bytes, Ordering::SeqCst);
                entry.cancelled
            }
            None => false,
        }
    }

    pub(super) fn is_cancelled(&self, key: &str) -> bool {
        let in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        in_flight.get(key).is_some_and(|e| e.cancelled)
    }

    pub(super) fn run(&self, job: Job) {
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

/// The `structuredContent` of a call result, or `None` for a refused call (614).
pub fn structured_content(output: &ToolOutput) -> Option<Value> {
    if output.code == Some(nanotool_runtime::CODE_INVALID_ARGUMENTS) {
        return None;
    }
    match &output.exec {
        Some(exec) => {
            let mut structured = json!({
                "exit_code": exec.exit_code,
                "output": exec.output,
                "truncated": exec.truncated,
                "timed_out": exec.timed_out,
                "confined": exec.confined,
            });
            if let Some(note) = &exec.sandbox_note {
                structured["sandbox_note"] = json!(note);
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

/// What a call holds while it waits and runs, counted against
/// [`ServerOptions::max_request_bytes`]: its arguments at their parsed size (a JSON value is
/// a fixed-size node plus what its strings, arrays and maps own), its name, and a small
/// fixed cost for the call itself.
pub(super) fn request_bytes(name: &str, args: &Value) -> usize {
    const CALL: usize = 512;
    CALL + name.len() + value_bytes(args)
}

pub(super) fn value_bytes(value: &Value) -> usize {
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

pub(super) fn id_key(id: &Value) -> String {
    id.to_string()
}

/// The keys a `requestId` may match: itself, and a number written as a string or the reverse
/// (clients disagree on which they echo).
pub(super) fn alternate_keys(id: &Value) -> Vec<String> {
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
