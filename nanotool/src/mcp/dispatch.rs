//! Dispatch: a parsed message to its handler (a notification, a request by method, a
//! response ignored), and `tools/list` with its opaque, tool-set-bound cursor.

use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use nanotool_runtime::Tool;

use super::audit::{LOG_STRING_CHARS, shorten};
use super::call::Job;
use super::era::{Era, has_modern_meta};
use super::framing::{INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, RpcError, result_message};
use super::{Session, Shared};

impl Session {
    pub(super) fn handle_object(&self, mut msg: Map<String, Value>) -> Option<Job> {
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

    pub(super) fn handle_notification(&self, method: &str, params: &Map<String, Value>) {
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

    pub(super) fn handle_request(
        &self,
        id: Value,
        method: &str,
        params: Map<String, Value>,
    ) -> Option<Job> {
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
}

impl Shared {
    pub(super) fn list_tools(
        &self,
        params: &Map<String, Value>,
        era: Era,
    ) -> Result<Value, RpcError> {
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

    pub(super) fn bad_cursor(&self, cursor: &str) -> RpcError {
        RpcError::new(
            INVALID_PARAMS,
            format!(
                "invalid cursor {cursor:?}: pass back the nextCursor of the previous tools/list result unchanged, or leave cursor out to start from the first tool"
            ),
        )
    }
}

pub(super) fn fingerprint(tools: &[Arc<dyn Tool>]) -> u64 {
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

pub(super) fn encode_cursor(offset: usize, fingerprint: u64) -> String {
    format!("nt1.{offset:x}.{fingerprint:016x}")
}

pub(super) fn decode_cursor(cursor: &str, fingerprint: u64) -> Option<usize> {
    let rest = cursor.strip_prefix("nt1.")?;
    let (offset, fp) = rest.split_once('.')?;
    if u64::from_str_radix(fp, 16).ok()? != fingerprint || fp.len() != 16 {
        return None;
    }
    usize::from_str_radix(offset, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_other_tool_sets() {
        let c = encode_cursor(7, 42);
        assert_eq!(decode_cursor(&c, 42), Some(7));
        assert_eq!(decode_cursor(&c, 43), None);
        assert_eq!(decode_cursor("garbage", 42), None);
    }
}
