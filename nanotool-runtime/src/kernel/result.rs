//! What a run did ([`ExecResult`]), the exit codes the kernel gives it of its own
//! ([`EXIT_TIMEOUT`], ...) and its text, and what a confined command cannot reach
//! ([`UnreadableBinary`]).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::limits::seconds;

/// Exit code of a run that timed out (as `timeout(1)` reports it).
pub const EXIT_TIMEOUT: i32 = 124;
/// Exit code of a run that was cancelled (128 + `SIGINT`, what a shell reports for Ctrl-C).
pub const EXIT_CANCELLED: i32 = 130;
/// Exit code when the binary exists but could not be executed (as a shell reports it).
pub const EXIT_CANNOT_EXECUTE: i32 = 126;
/// Exit code when the binary was not found, or argv was empty (as a shell reports it).
pub const EXIT_NOT_FOUND: i32 = 127;

/// What one run did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExecResult {
    /// Exit code: the command's own, or 124 on timeout, 130 when cancelled, 128+n when signal
    /// n ended it, 127 when the binary is missing (or argv empty), 126 when it could not be
    /// executed.
    pub exit_code: i32,
    /// The signal that ended the leader, if any (`SIGKILL` after a timeout or a cancel).
    pub signal: Option<i32>,
    /// The timeout fired.
    pub timed_out: bool,
    /// The cancel handle fired.
    pub cancelled: bool,
    /// Output was cut to the cap.
    pub truncated: bool,
    /// Bytes the command printed in all.
    pub total_bytes: u64,
    /// Wall time of the run.
    pub duration: Duration,
    /// The kept output, lossily decoded: all of it when it fits the cap, else the head, a
    /// `[... N bytes omitted ...]` line, and the tail, each cut on a character boundary.
    pub output: String,
    /// Why the command could not be started (binary not found, not executable, ...), if so.
    pub start_error: Option<String>,
    /// Bytes of output the marker stands for (0 unless [`truncated`](Self::truncated)).
    pub omitted_bytes: u64,
    /// The command ran confined by the sandbox (Landlock and seccomp in place).
    pub confined: bool,
    /// When a confined command failed and its output shows a refusal the sandbox may have
    /// caused: one line saying what the tool may not do and how its author or host could
    /// allow it (`"writes": true`, `"network": "local"`, `--sandbox-read DIR`). The text
    /// carries it too.
    pub sandbox_note: Option<String>,
    /// The limit that ended the command, when its signal tells (`SIGXFSZ`, `SIGXCPU`).
    pub limit: Option<super::limits::LimitHit>,
}

impl ExecResult {
    /// The result text: `exit: N`, then the notes that apply, each on its own
    /// line (`could not start: ...`, `timed out after N s`, `killed: file size limit 1 GiB
    /// reached`, `killed by signal N (SIGNAME)`, `cancelled`, `N bytes omitted`, the
    /// [`sandbox_note`](Self::sandbox_note)), then `output: ` and the output.
    pub fn text(&self) -> String {
        let mut text = format!("exit: {}\n", self.exit_code);
        if let Some(err) = &self.start_error {
            text.push_str(&format!("could not start: {err}\n"));
        }
        if self.timed_out {
            text.push_str(&format!("timed out after {} s\n", seconds(self.duration)));
        } else if self.cancelled {
            text.push_str("cancelled\n");
        } else if let Some(hit) = self.limit {
            text.push_str(&format!("{hit}\n"));
        } else if let Some(sig) = self.signal {
            text.push_str(&format!("killed by signal {sig} ({})\n", signal_name(sig)));
        }
        if self.truncated {
            text.push_str(&format!("{} bytes omitted\n", self.omitted_bytes));
        }
        if let Some(note) = &self.sandbox_note {
            text.push_str(note);
            text.push('\n');
        }
        text.push_str("output: ");
        text.push_str(&self.output);
        text
    }

    pub(super) fn start_failed(exit_code: i32, message: String, started: Instant) -> Self {
        ExecResult {
            exit_code,
            duration: started.elapsed(),
            start_error: Some(message),
            ..ExecResult::default()
        }
    }
}

/// A binary that confined commands cannot read, and what to add so that they can
/// ([`CommandExecKernel::unreadable_binary`](super::CommandExecKernel::unreadable_binary)). Its `Display` is the message `nanotool list`,
/// `check`, `serve` and a failed call show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadableBinary {
    /// The binary as the tool names it (`python3`).
    pub binary: String,
    /// Where it resolves, symbolic links followed.
    pub resolved: PathBuf,
    /// The paths to let commands read (`~/.pyenv`; `~/.cargo` and `~/.rustup` for rustup).
    pub add: Vec<PathBuf>,
}

impl std::fmt::Display for UnreadableBinary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let flags: Vec<String> = self
            .add
            .iter()
            .map(|p| format!("--sandbox-read {}", p.display()))
            .collect();
        write!(
            f,
            "`{}` resolves to {}, which confined commands cannot read; let them with {} (KernelSettings::sandbox_read)",
            self.binary,
            self.resolved.display(),
            flags.join(" ")
        )
    }
}

/// The name of a signal number, `SIG...`.
fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGSYS => "SIGSYS",
        _ => "signal",
    }
}
