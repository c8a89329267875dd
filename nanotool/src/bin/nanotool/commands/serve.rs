//! `nanotool serve`: the tools over stdio to an MCP client, until stdin ends or a signal.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use nanotool::mcp::{McpServer, ServerOptions};

use crate::assembly::{Assembled, assemble, unreadable_binaries, warn_descriptors};
use crate::cli::Common;
use crate::logging::{LOG_FLUSH_WAIT, LOG_PIPE};
use crate::report::Failure;
use crate::signals::{SignalWatch, make_non_dumpable};

pub(crate) fn run(common: &Common, structured_content: bool) -> Result<u8, Failure> {
    let Assembled {
        toolbox,
        errors,
        left_out,
        ..
    } = assemble(common)?;
    warn_descriptors(&errors);
    make_non_dumpable();
    let signals = SignalWatch::start();
    let tools = toolbox.tools().len();
    let cwd = toolbox.kernel().cwd().to_path_buf();
    if cwd == Path::new("/") {
        tracing::warn!(
            "the working directory is `/`: path arguments may name any file on the system; pass --cwd DIR (MCP clients often start servers in `/`)"
        );
    }
    let toolbox_status = (
        toolbox.kernel().sandbox_status().to_string(),
        unreadable_binaries(&toolbox),
    );
    let spawn_status = toolbox.kernel().spawn_status().to_string();
    let limits_status = toolbox.kernel().limits_status().to_string();
    // Exiting from the signal thread runs no destructor: the kernel's private temp dir (the
    // private home is inside it) is removed there by hand.
    let tmpdir: Vec<PathBuf> = toolbox
        .kernel()
        .sandbox_tmpdir()
        .map(Path::to_path_buf)
        .into_iter()
        .collect();
    let tmpdir_at_eof = tmpdir.clone();
    // Likewise the calls' cgroups.
    let cgroups = toolbox.kernel().limits_status().cgroup.parent;
    let cgroups_at_eof = cgroups.clone();
    // What was left out reaches the client too (MCP logging at level `error`): a user sees in
    // the client why a tool or a setting is missing, not only in a log file.
    let options = ServerOptions {
        structured_content,
        left_out,
        ..ServerOptions::default()
    };
    let server = Arc::new(McpServer::new(Arc::new(toolbox), options));
    if let Some(signals) = signals {
        let server = server.clone();
        signals.on_signal(move |signal| {
            let n = server.cancel_all();
            tracing::warn!(
                signal,
                cancelled = n,
                "signal: cancelling calls and exiting"
            );
            // The kernel kills each cancelled group and reaps it; give that a moment.
            for _ in 0..200 {
                if server.in_flight() == 0 {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            clean_up(&tmpdir, cgroups.as_deref());
            if let Some(pipe) = LOG_PIPE.get() {
                pipe.flush(LOG_FLUSH_WAIT);
            }
            std::process::exit(128 + signal);
        });
    }
    tracing::info!("{}", toolbox_status.0);
    tracing::info!("{spawn_status}");
    tracing::info!("{limits_status}");
    for (tool, hint) in &toolbox_status.1 {
        tracing::warn!("tool `{tool}`: {hint}");
    }
    tracing::info!(
        tools,
        cwd = %cwd.display(),
        "serving MCP over stdio (2025-11-25 initialize, 2026-07-28 server/discover)"
    );
    let stdin = io::stdin();
    server
        .serve(stdin, io::stdout())
        .map_err(|e| Failure::cannot_run(format!("reading stdin: {e}")))?;
    tracing::info!("stdin closed; exiting");
    // The signal thread holds the server (hence the kernel) to the end: no destructor removes
    // the temp dir on this path either.
    server.cancel_all();
    clean_up(&tmpdir_at_eof, cgroups_at_eof.as_deref());
    if let Some(pipe) = LOG_PIPE.get() {
        pipe.flush(LOG_FLUSH_WAIT);
    }
    Ok(0)
}

/// Removes what the kernel leaves when no destructor runs: the commands' private temp dir and
/// the calls' cgroups. A signal during the read loop also ends it: the signal thread and the
/// main thread may both get here, one after the other.
fn clean_up(dirs: &[PathBuf], cgroups: Option<&Path>) {
    // One at a time: the second finds nothing left (two removals of one tree at once would
    // each find the other's work gone).
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    remove_tmpdir(dirs);
    remove_cgroups(cgroups);
}

/// Removes the commands' private temp dir (the private home is inside it) however deep or
/// locked its content is, and logs the path when it cannot.
fn remove_tmpdir(dirs: &[PathBuf]) {
    for dir in dirs {
        if std::fs::symlink_metadata(dir).is_ok()
            && let Err(e) = nanotool_runtime::kernel::remove_tree(dir)
        {
            tracing::error!("the commands' private folder is left behind: {e}");
        }
    }
}

/// Removes the calls' cgroups (every process left in them killed), and logs the cgroup when
/// it cannot.
fn remove_cgroups(dir: Option<&Path>) {
    if let Some(dir) = dir
        && dir.exists()
        && let Err(e) = nanotool_runtime::kernel::remove_cgroup_tree(dir)
    {
        tracing::error!("the calls' cgroups are left behind: {e}");
    }
}
