//! The MCP server behind `nanotool serve` : JSON-RPC 2.0 over stdio, one message
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
//! The modules, from the bytes up; each imports only the ones above it in this table (and
//! `audit`, a leaf), never one that imports it back:
//!
//! | module | what lives there |
//! |---|---|
//! | `audit`, `log` | leaves: the audit record of every call ([`audit()`]), and the log pipe ([`LogPipe`]) |
//! | `wire` | the byte layer: frames, the strict JSON reader, one locked writer, [`ErrorCode`] and the JSON-RPC error |
//! | `era` | the protocol rules of each era, as pure functions |
//! | `paging` | the `tools/list` cursor and its pages, pure functions |
//! | `result` | a call's result in MCP's shape ([`call_result`]) |
//! | `progress` | `notifications/progress` of a long call: its ticker and its message |
//! | `in_flight` | the calls in flight as a value: admission under the limits, cancellation, retirement |
//! | `host`, `options` | [`ToolHost`] (which tools, how one is called) and [`ServerOptions`] |
//! | `pool` | the worker threads; through its `Jobs` trait they only ask for the next job and run it |
//! | `session` | one session: its state and all of its request handling |
//! | `server` | [`McpServer`]: a session per `serve`, run by the pool |
//!
//! What does not live here: how a tool runs (the [`Tool`](nanotool_runtime::Tool) and the
//! kernel) and which tools exist (the [`ToolHost`], usually a
//! [`Toolbox`](nanotool_runtime::Toolbox)).
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

mod audit;
mod era;
mod host;
mod in_flight;
mod log;
mod options;
mod paging;
mod pool;
mod progress;
mod result;
mod server;
mod session;
mod wire;

pub use audit::{audit, log_value, shorten};
pub use era::{
    HANDSHAKE_VERSIONS, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, META_SERVER_INFO,
    MODERN_VERSIONS,
};
pub use host::ToolHost;
pub use log::{LogPipe, LogWriter, MAX_LOG_LINE};
pub use options::ServerOptions;
pub use result::{call_result, structured_content, text_call_result};
pub use server::McpServer;
pub use wire::ErrorCode;
