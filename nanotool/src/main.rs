//! The `nanotool` command: list, export, check and call command tools, or serve them to an
//! MCP client over stdio.
//!
//! Exit statuses: 0 when the work was done (for `call`: the command ran, whatever its own exit
//! code, a timeout included), 2 when a call was refused (614) or names an unknown tool, 1 when
//! something could not run (a binary missing, a folder unreadable, bad usage, `check` errors).
//!
//! | module | what lives there |
//! |---|---|
//! | `cli` | clap's types: the options and the subcommands |
//! | `assembly` | the kernel and the toolbox every subcommand uses |
//! | `commands` | one module per subcommand |
//! | `signals` | signal handling and process hardening: all of the binary's `unsafe` |

use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use nanotool::mcp;
use serde_json::Value;

mod assembly;
mod cli;
mod commands;
mod signals;

use assembly::{Assembled, assemble, warn_descriptors, warn_unreadable};
use cli::{Cli, Command};

/// A failure of the command itself, with its exit status.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: u8,
    pub(crate) message: String,
}

impl Failure {
    fn cannot_run(message: impl Into<String>) -> Self {
        Failure {
            status: 1,
            message: message.into(),
        }
    }

    fn refused(message: impl Into<String>) -> Self {
        Failure {
            status: 2,
            message: message.into(),
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    init_logging(matches!(cli.command, Command::Serve));
    match run(cli) {
        Ok(status) => ExitCode::from(status),
        Err(failure) => {
            eprintln!("nanotool: {}", failure.message);
            ExitCode::from(failure.status)
        }
    }
}

/// The server's log pipe (only `serve` logs through one): flushed, briefly, before it exits.
pub(crate) static LOG_PIPE: std::sync::OnceLock<mcp::LogPipe> = std::sync::OnceLock::new();

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

fn run(cli: Cli) -> Result<u8, Failure> {
    let common = &cli.common;
    match &cli.command {
        Command::List { json } => {
            let Assembled {
                toolbox, errors, ..
            } = assemble(common)?;
            warn_descriptors(&errors);
            if *json {
                warn_unreadable(&toolbox);
            }
            commands::list::run(&toolbox, *json)
        }
        Command::Schema { format } => {
            let Assembled {
                toolbox, errors, ..
            } = assemble(common)?;
            warn_descriptors(&errors);
            commands::schema::run(&toolbox, *format)
        }
        Command::Call { name, args, json } => {
            let Assembled {
                toolbox, errors, ..
            } = assemble(common)?;
            warn_descriptors(&errors);
            commands::call::run(&toolbox, name, args, *json)
        }
        Command::Check { dir, json } => commands::check::run(common, dir.as_deref(), *json),
        Command::Serve => commands::serve::run(common),
    }
}

pub(crate) fn print_json(value: &Value) -> Result<u8, Failure> {
    let text = serde_json::to_string_pretty(value).expect("a JSON value always serialises");
    write_stdout(&text)?;
    Ok(0)
}

pub(crate) fn write_stdout(text: &str) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    let result = if text.ends_with('\n') {
        out.write_all(text.as_bytes())
    } else {
        writeln!(out, "{text}")
    };
    result
        .and_then(|()| out.flush())
        .or_else(|e| {
            if e.kind() == io::ErrorKind::BrokenPipe {
                Ok(())
            } else {
                Err(e)
            }
        })
        .map_err(|e| Failure::cannot_run(format!("cannot write to stdout: {e}")))
}
