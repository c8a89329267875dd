//! [`McpServer`]: a session per `serve`, run by the pool until the input ends.

use std::fmt;
use std::io::{self, BufReader, Read, Write};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::host::ToolHost;
use super::options::ServerOptions;
use super::pool;
use super::session::Session;
use super::wire::Output;

/// An MCP server over one pair of byte streams.
pub struct McpServer {
    host: Arc<dyn ToolHost>,
    options: ServerOptions,
    /// The session being served, if any (for [`McpServer::cancel_all`]).
    current: Mutex<Option<Arc<Session>>>,
}

impl fmt::Debug for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("tools", &self.host.tools().len())
            .field("options", &self.options)
            .finish()
    }
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

    fn current(&self) -> Option<Arc<Session>> {
        self.current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Cancels every call in flight (their process groups are killed, no response follows);
    /// returns how many there were. For a host shutting down on a signal.
    pub fn cancel_all(&self) -> usize {
        self.current()
            .map_or(0, |session| session.calls().cancel_all())
    }

    /// Calls accepted and not yet finished.
    pub fn in_flight(&self) -> usize {
        self.current().map_or(0, |session| session.calls().len())
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
            Output::new(Box::new(output)),
        ));
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(session.clone());
        let input = Box::new(BufReader::with_capacity(64 * 1024, input));
        let read = pool::run(session.as_ref(), input, self.options.workers);
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = None;
        session.flush();
        read
    }
}
