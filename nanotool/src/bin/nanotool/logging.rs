//! The binary's log: `NANOTOOL_LOG` sets the level; the server logs through a pipe that never
//! blocks it ([`nanotool::mcp::LogPipe`]), one-shot commands to stderr directly.

use std::io;
use std::sync::OnceLock;
use std::time::Duration;

use nanotool::mcp;

/// The server's log pipe (only `serve` logs through one): flushed, briefly, before it exits.
pub(crate) static LOG_PIPE: OnceLock<mcp::LogPipe> = OnceLock::new();

/// How long an exiting server waits for its log lines to reach stderr.
pub(crate) const LOG_FLUSH_WAIT: Duration = Duration::from_millis(500);

pub(crate) fn init_logging(serve: bool) {
    let level = match std::env::var("NANOTOOL_LOG").ok().as_deref() {
        Some("off") => None,
        Some("error") => Some(tracing::Level::ERROR),
        Some("warn") => Some(tracing::Level::WARN),
        Some("debug") => Some(tracing::Level::DEBUG),
        Some("trace") => Some(tracing::Level::TRACE),
        _ => Some(tracing::Level::INFO),
    };
    let Some(level) = level else { return };
    // The server never waits for stderr: a client that does not read it may lose log lines,
    // never answers (see `mcp::LogPipe`). One-shot commands write to stderr directly.
    if serve && let Ok(pipe) = mcp::LogPipe::stderr(1024 * 1024) {
        let pipe = LOG_PIPE.get_or_init(|| pipe);
        tracing_subscriber::fmt()
            .with_writer(move || pipe.writer())
            .with_max_level(level)
            .with_target(false)
            .init();
        return;
    }
    tracing_subscriber::fmt()
        .with_writer(io::stderr)
        .with_max_level(level)
        .with_target(false)
        .init();
}
