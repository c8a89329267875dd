//! The settings of an MCP server ([`ServerOptions`]).

/// Settings of an [`McpServer`](super::McpServer).
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
    /// Whether call results carry `structuredContent` (and command tools an `outputSchema`)
    /// beside the text (default `false`). Claude Code and Codex show the model the JSON of
    /// `structuredContent` when a result has one, the output JSON-escaped on one line; without
    /// it they show the text, the output as lines under its exit status (docs/DECISIONS.md,
    /// "What a model reads of a result"). A host whose client reads the fields sets it.
    pub structured_content: bool,
    /// What the host left out when it assembled the tools (a descriptor that did not load, a
    /// config entry dropped), one message each: sent to the client as MCP log messages at
    /// level `error` once it has initialised (the server then declares `logging`), so a user
    /// sees in the client why a tool is missing.
    pub left_out: Vec<String>,
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
            structured_content: false,
            left_out: Vec::new(),
        }
    }
}
