//! The calls in flight, as a value of their own: admitting a call (its id unique among the
//! calls in flight, its memory counted against the limits), cancelling one or all
//! (`notifications/cancelled`: the process group is killed and no response follows), and
//! retiring a finished one. It never sees the session: it is told ids, sizes and limits.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use nanotool_runtime::{CancelHandle, Progress};
use serde_json::{Value, json};

use super::audit::{LOG_STRING_CHARS, log_value, shorten};
use super::progress::Ticker;
use super::wire::{ErrorCode, RpcError};

/// The limits a call is admitted under.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Calls accepted (running or queued) at most.
    pub(super) max_calls: usize,
    /// Bytes the calls may hold together (a call is always admitted when nothing is held).
    pub(super) max_bytes: usize,
}

/// One call that was admitted and has not answered yet.
struct Entry {
    cancel: CancelHandle,
    cancelled: bool,
    /// The clock of the call's progress notifications, if its request asked for them.
    ticker: Option<Arc<Ticker>>,
    /// What the call holds, counted against [`Limits::max_bytes`].
    bytes: usize,
}

/// The calls admitted and not yet finished, by request id.
#[derive(Default)]
pub(super) struct InFlight {
    calls: Mutex<HashMap<String, Entry>>,
    /// Bytes held by the calls in `calls` (changed under its lock).
    held_bytes: AtomicUsize,
}

/// A call that was admitted: its key among the calls in flight, and what cancels it.
pub(super) struct Admitted {
    pub(super) key: String,
    pub(super) cancel: CancelHandle,
    /// What the call has printed so far and the clock of its notifications, for a call whose
    /// request asked for progress.
    pub(super) watch: Option<(Arc<Progress>, Arc<Ticker>)>,
}

impl InFlight {
    /// Admits the call with request `id` holding `bytes`, watching its progress if `watch`,
    /// or says why not (its id is in use, or the server is busy).
    pub(super) fn admit(
        &self,
        id: &Value,
        bytes: usize,
        limits: Limits,
        watch: bool,
    ) -> Result<Admitted, RpcError> {
        let key = id_key(id);
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        if calls.contains_key(&key) {
            return Err(RpcError::new(
                ErrorCode::INVALID_REQUEST,
                format!(
                    "request id {id} is already in use by a call in flight; give each request its own id"
                ),
            ));
        }
        if calls.len() >= limits.max_calls {
            return Err(RpcError::new(
                ErrorCode::INTERNAL_ERROR,
                format!(
                    "server busy: {} calls in flight; retry this call when earlier calls have answered",
                    calls.len()
                ),
            ));
        }
        // Checked and added under the lock that removes finished calls.
        let held = self.held_bytes.load(Ordering::SeqCst);
        let limit = limits.max_bytes;
        if held > 0 && held.saturating_add(bytes) > limit {
            return Err(RpcError::new(
                ErrorCode::INTERNAL_ERROR,
                format!(
                    "server busy: the calls queued and running hold {held} bytes and this one needs {bytes} (limit {limit}); retry it when earlier calls have answered"
                ),
            )
            .with_data(json!({"heldBytes": held, "requestBytes": bytes, "limitBytes": limit})));
        }
        self.held_bytes.fetch_add(bytes, Ordering::SeqCst);
        let watch = watch.then(|| (Arc::new(Progress::new()), Arc::new(Ticker::default())));
        let cancel = match &watch {
            Some((progress, _)) => CancelHandle::with_progress(progress.clone()),
            None => CancelHandle::new(),
        };
        calls.insert(
            key.clone(),
            Entry {
                cancel: cancel.clone(),
                cancelled: false,
                ticker: watch.as_ref().map(|(_, ticker)| ticker.clone()),
                bytes,
            },
        );
        Ok(Admitted { key, cancel, watch })
    }

    /// Cancels the call a client's `requestId` names, if it is in flight.
    pub(super) fn cancel(&self, request: &Value, reason: Option<&Value>) {
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        let keys = alternate_keys(request);
        let Some(key) = keys.iter().find(|k| calls.contains_key(k.as_str())) else {
            tracing::debug!(request = %log_value(request), "cancel for a request not in flight; ignored");
            return;
        };
        let Some(entry) = calls.get_mut(key.as_str()) else {
            return;
        };
        entry.cancelled = true;
        entry.cancel.cancel();
        if let Some(ticker) = &entry.ticker {
            ticker.stop();
        }
        let reason = reason.and_then(|r| r.as_str()).unwrap_or("");
        tracing::info!(
            request = %log_value(request),
            reason = %shorten(reason, LOG_STRING_CHARS),
            "call cancelled by the client"
        );
    }

    /// Cancels every call in flight; returns how many there were.
    pub(super) fn cancel_all(&self) -> usize {
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        for entry in calls.values_mut() {
            entry.cancelled = true;
            entry.cancel.cancel();
            if let Some(ticker) = &entry.ticker {
                ticker.stop();
            }
        }
        calls.len()
    }

    /// Calls admitted and not yet finished.
    pub(super) fn len(&self) -> usize {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether the call `key` was cancelled (before it started, for a queued call).
    pub(super) fn is_cancelled(&self, key: &str) -> bool {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        calls.get(key).is_some_and(|e| e.cancelled)
    }

    /// Retires a finished call; tells whether it was cancelled (then no response follows).
    pub(super) fn finish(&self, key: &str) -> bool {
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        match calls.remove(key) {
            Some(entry) => {
                self.held_bytes.fetch_sub(entry.bytes, Ordering::SeqCst);
                entry.cancelled
            }
            None => false,
        }
    }
}

/// What a call holds while it waits and runs, counted against [`Limits::max_bytes`]: its
/// arguments at their parsed size (a JSON value is a fixed-size node plus what its strings,
/// arrays and maps own), its name, and a small fixed cost for the call itself.
pub(super) fn request_bytes(name: &str, args: &Value) -> usize {
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

#[cfg(test)]
mod tests {
    use super::{InFlight, Limits};
    use serde_json::Value;

    const LIMITS: Limits = Limits {
        max_calls: 2,
        max_bytes: 1000,
    };

    #[test]
    fn ids_are_unique_and_limits_hold_until_a_call_finishes() {
        let calls = InFlight::default();
        let first = calls.admit(&Value::from(1), 600, LIMITS, false).unwrap();
        assert!(calls.admit(&Value::from(1), 1, LIMITS, false).is_err());
        assert!(calls.admit(&Value::from(2), 600, LIMITS, false).is_err());
        assert!(!calls.finish(&first.key));
        assert!(calls.admit(&Value::from(2), 600, LIMITS, false).is_ok());
        assert_eq!(calls.len(), 1);
    }

    #[test]
    fn a_cancel_matches_a_number_written_as_a_string() {
        let calls = InFlight::default();
        let call = calls.admit(&Value::from(7), 1, LIMITS, false).unwrap();
        calls.cancel(&Value::from("7"), None);
        assert!(calls.is_cancelled(&call.key));
        assert!(call.cancel.is_cancelled());
        assert!(calls.finish(&call.key));
    }
}
