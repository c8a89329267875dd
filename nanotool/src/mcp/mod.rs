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

use std::collections::HashMap;
use std::io::{self, BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Mutex};
use std::thread;

use nanotool_runtime::{CancelHandle, Tool, ToolOutput, Toolbox, export};
use serde_json::Value;

mod audit;
mod call;
mod dispatch;
mod era;
mod framing;
mod log;
mod pool;

pub use audit::{audit, log_value, shorten};
pub use call::{call_result, structured_content};
pub use era::{
    HANDSHAKE_VERSIONS, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, META_SERVER_INFO,
    MODERN_VERSIONS,
};
pub use framing::{
    INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
};
pub use log::{LogPipe, LogWriter, MAX_LOG_LINE};
pub use nanotool_runtime::hint::MAX_TOOL_NAME_CHARS;

use call::InFlight;
use dispatch::fingerprint;
use framing::Output;
use pool::{Pool, pool_thread};

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
        let pool = Arc::new(Pool::new(Box::new(BufReader::with_capacity(
            64 * 1024,
            input,
        ))));
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
        let error = pool.take_error();
        error.map_or(Ok(()), Err)
    }
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
}
