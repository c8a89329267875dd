//! Era negotiation: which rules of the Model Context Protocol serve a request.
//!
//! - **2025-11-25** (the handshake era): `initialize`, `notifications/initialized`, `ping`.
//! - **2026-07-28** (the per-request era): `server/discover`; every request carries
//!   `params._meta["io.modelcontextprotocol/protocolVersion"]` and
//!   `["io.modelcontextprotocol/clientCapabilities"]`; every result carries
//!   `resultType: "complete"` and the server's identity in `_meta`.
//!
//! A request is served by the modern rules when it names a protocol version in `_meta`, and
//! by the handshake rules when the process was initialised and it names none.

use serde_json::{Map, Value, json};
use std::sync::atomic::Ordering;

use super::framing::{INVALID_PARAMS, RpcError, UNSUPPORTED_PROTOCOL_VERSION};
use super::{Session, Shared};

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

/// How a request is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Era {
    /// The handshake rules (the process was initialised, the request names no version).
    Handshake,
    /// The per-request rules of 2026-07-28.
    Modern,
}

impl Session {
    pub(super) fn initialize(&self, params: &Map<String, Value>) -> Value {
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
    pub(super) fn era(
        &self,
        params: &Map<String, Value>,
        modern_only: bool,
    ) -> Result<Era, RpcError> {
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
}

impl Shared {
    pub(super) fn server_info(&self) -> Value {
        json!({"name": self.options.name, "version": self.options.version})
    }

    /// Adds the fields every result carries in its era.
    pub(super) fn finish_result(&self, mut result: Value, era: Era) -> Value {
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

    pub(super) fn discover_result(&self) -> Value {
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
}

pub(super) fn has_modern_meta(params: &Map<String, Value>) -> bool {
    // Any version but a handshake one asks for the modern rules (an unknown one is refused
    // with -32022 in the modern shape).
    params
        .get("_meta")
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .is_some_and(|v| !v.as_str().is_some_and(|v| HANDSHAKE_VERSIONS.contains(&v)))
}
