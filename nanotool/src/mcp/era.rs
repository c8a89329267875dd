//! The protocol rules of each era, as pure functions: which rules serve a request, what
//! `initialize` and `server/discover` answer, and the fields every result carries in its era.
//!
//! - **2025-11-25** (the handshake era): `initialize`, `notifications/initialized`, `ping`.
//! - **2026-07-28** (the per-request era): `server/discover`; every request carries
//!   `params._meta["io.modelcontextprotocol/protocolVersion"]` and
//!   `["io.modelcontextprotocol/clientCapabilities"]`; every result carries
//!   `resultType: "complete"` and the server's identity in `_meta`.
//!
//! A request is served by the modern rules when it names a protocol version in `_meta`, and
//! by the handshake rules when the process was initialised and it names none.
//!
//! Nothing here holds state: what a rule depends on (whether the session was initialised,
//! the server's identity) is an argument.

use serde_json::{Map, Value, json};

use super::wire::{ErrorCode, RpcError};

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

/// The `initialize` result for `params`, from a server named by `server_info`.
pub(super) fn initialize_result(
    params: &Map<String, Value>,
    server_info: Value,
    instructions: Option<&str>,
) -> Value {
    let requested = params.get("protocolVersion").and_then(Value::as_str);
    let version = match requested {
        Some(v) if HANDSHAKE_VERSIONS.contains(&v) => v,
        _ => HANDSHAKE_VERSIONS[0],
    };
    let mut result = json!({
        "protocolVersion": version,
        "capabilities": {"tools": {}},
        "serverInfo": server_info,
    });
    if let Some(instructions) = instructions {
        result["instructions"] = Value::from(instructions);
    }
    result
}

/// Which rules serve a request: the modern ones when `_meta` names a version (which must be
/// one we speak), the handshake ones once the session is `initialized`; else the request is
/// refused. `modern_only` for a method of 2026-07-28 alone (`server/discover`).
pub(super) fn era_of(
    params: &Map<String, Value>,
    modern_only: bool,
    initialized: bool,
) -> Result<Era, RpcError> {
    let meta = params.get("_meta");
    let version = meta.and_then(|m| m.get(META_PROTOCOL_VERSION));
    match version {
        None => {
            if !modern_only && initialized {
                return Ok(Era::Handshake);
            }
            Err(RpcError::new(
                ErrorCode::INVALID_PARAMS,
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
                    ErrorCode::INVALID_PARAMS,
                    format!(
                        "missing params._meta[\"{META_CLIENT_CAPABILITIES}\"]: every {v} request declares the client's capabilities, an object ({{}} for none)"
                    ),
                )),
            }
        }
        // A session opened with `initialize` keeps the handshake rules, even when a
        // request's `_meta` repeats the version it negotiated.
        Some(Value::String(v))
            if HANDSHAKE_VERSIONS.contains(&v.as_str()) && !modern_only && initialized =>
        {
            Ok(Era::Handshake)
        }
        Some(Value::String(v)) => Err(RpcError::new(
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            format!(
                "unsupported protocol version \"{v}\": use {} in params._meta, or `initialize` for {}",
                MODERN_VERSIONS.join(", "),
                HANDSHAKE_VERSIONS.join(", ")
            ),
        )
        .with_data(json!({"supported": MODERN_VERSIONS, "requested": v}))),
        Some(other) => Err(RpcError::new(
            ErrorCode::INVALID_PARAMS,
            format!(
                "params._meta[\"{META_PROTOCOL_VERSION}\"] must be a string such as \"{}\", not {other}",
                MODERN_VERSIONS[0]
            ),
        )),
    }
}

/// The era a reply takes when the request could not be placed in one (an error, a method
/// served alike in both): any version but a handshake one asks for the modern rules (an
/// unknown one is refused with -32022 in the modern shape).
pub(super) fn reply_era(params: &Map<String, Value>) -> Era {
    let modern = params
        .get("_meta")
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .is_some_and(|v| !v.as_str().is_some_and(|v| HANDSHAKE_VERSIONS.contains(&v)));
    if modern { Era::Modern } else { Era::Handshake }
}

/// `result` with the fields every result carries in `era`.
pub(super) fn finish_result(mut result: Value, era: Era, server_info: &Value) -> Value {
    if era == Era::Modern
        && let Value::Object(map) = &mut result
    {
        map.insert("resultType".into(), Value::from("complete"));
        let meta = map
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(META_SERVER_INFO.into(), server_info.clone());
        }
    }
    result
}

/// The `server/discover` result.
pub(super) fn discover_result(ttl_ms: u64, instructions: Option<&str>) -> Value {
    let mut result = json!({
        "supportedVersions": MODERN_VERSIONS,
        "capabilities": {"tools": {}},
        "ttlMs": ttl_ms,
        "cacheScope": "private",
    });
    if let Some(instructions) = instructions {
        result["instructions"] = Value::from(instructions);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::{Era, era_of, reply_era};
    use serde_json::{Map, Value, json};

    fn params(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("the tests pass objects"),
        }
    }

    #[test]
    fn a_request_is_placed_by_its_meta_and_the_handshake() {
        let none = params(json!({}));
        assert!(era_of(&none, false, false).is_err());
        assert_eq!(era_of(&none, false, true), Ok(Era::Handshake));
        assert!(era_of(&none, true, true).is_err());
        let modern = params(json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }}));
        assert_eq!(era_of(&modern, true, false), Ok(Era::Modern));
        assert_eq!(reply_era(&modern), Era::Modern);
        let old =
            params(json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25"}}));
        assert_eq!(era_of(&old, false, true), Ok(Era::Handshake));
        assert!(era_of(&old, false, false).is_err());
        assert_eq!(reply_era(&old), Era::Handshake);
    }
}
