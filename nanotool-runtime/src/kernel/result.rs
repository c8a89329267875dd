//! What a run did ([`ExecResult`]): how the exit status, the stop and the output of an ended
//! command make it, the exit codes the kernel gives of its own ([`EXIT_TIMEOUT`], ...), and
//! its text; and what a confined command cannot reach ([`UnreadableBinary`]).

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use super::cgroup::Recorded;
use super::explain;
use super::lifecycle::HostSigchld;
use super::limits::{LimitHit, Limits, seconds};
use super::output::Capture;
use super::sandbox::Access;
use super::sandbox::tmpfs::TempFs;
use super::wait::Stop;

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
        let mut text = self.header(None);
        text.push_str(&self.output);
        text
    }

    /// The text before the output: `exit: N` (with the status's `meaning`, when its tool
    /// declares one: `exit: 1 (no match)`), the notes that apply, each on its own line, and
    /// `output: `.
    pub(crate) fn header(&self, meaning: Option<&str>) -> String {
        let mut text = format!("exit: {}", self.exit_code);
        if let Some(meaning) = meaning {
            text.push_str(&format!(" ({meaning})"));
        }
        text.push('\n');
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

    /// The result of a command that was started and has ended: its exit code or signal, the
    /// limit that ended it, the timeout or cancel that stopped it, its output and the
    /// sandbox's note.
    pub(super) fn ended(ended: Ended<'_>) -> Self {
        let Ended {
            name,
            status,
            stop,
            capture,
            access,
            confined,
            limits,
            recorded,
            tmpfs,
            started,
        } = ended;
        let (output, omitted) = capture.render();
        let mut result = ExecResult {
            confined,
            total_bytes: capture.total(),
            truncated: omitted > 0,
            omitted_bytes: omitted,
            output,
            ..ExecResult::default()
        };
        match status {
            Ok(status) => {
                if let Some(code) = status.code() {
                    result.exit_code = code;
                } else if let Some(sig) = status.signal() {
                    result.signal = Some(sig);
                    result.exit_code = 128 + sig;
                    result.limit = LimitHit::from_signal(sig, limits);
                }
                if result.limit.is_none() {
                    result.limit = LimitHit::from_cgroup(recorded, limits);
                }
                // A failure that says "no space" with the temp dir's tmpfs full, in a call
                // whose commands see it: the write that failed was most likely there (one
                // `fstatfs`, on such failures only).
                if result.limit.is_none()
                    && result.exit_code != 0
                    && result.output.contains("No space left on device")
                    && let Some(tempfs) = tmpfs
                    && tempfs.is_full()
                {
                    result.limit = Some(LimitHit::TempDir(tempfs.size));
                }
            }
            Err(e) => {
                // Someone else reaped our child, and the kernel keeps no status for us: report
                // it, do not abort.
                result.exit_code = EXIT_CANNOT_EXECUTE;
                let why = match HostSigchld::current() {
                    HostSigchld::Ignored | HostSigchld::NoChildWait => {
                        "the host ignores SIGCHLD, so the system reaped the process, and this Linux is older than 6.15, which keeps the status for the process's pidfd"
                    }
                    HostSigchld::Default | HostSigchld::Handled => {
                        "something else in the host reaped the process"
                    }
                };
                result.start_error =
                    Some(format!("`{name}`: the exit status is lost ({why}): {e}"));
            }
        }
        match stop {
            Stop::Exited => {}
            Stop::TimedOut => {
                result.timed_out = true;
                result.exit_code = EXIT_TIMEOUT;
            }
            Stop::Cancelled => {
                result.cancelled = true;
                result.exit_code = EXIT_CANCELLED;
            }
        }
        // A confined command that failed with a refusal in its output: say what the tool may
        // not do and what would allow it.
        if result.confined && result.exit_code != 0 && !result.timed_out && !result.cancelled {
            result.sandbox_note = explain::sandbox_note(&result.output, result.exit_code, access);
        }
        result.duration = started.elapsed();
        result
    }
}

/// How a started command ended, as the kernel saw it once its group was killed, its leader
/// reaped and its output drained: what [`ExecResult::ended`] makes the result of.
pub(super) struct Ended<'a> {
    /// The binary as argv names it, for the message of a lost exit status.
    pub(super) name: &'a str,
    /// The leader's exit status, or why it is lost.
    pub(super) status: io::Result<ExitStatus>,
    /// Why the wait loop stopped.
    pub(super) stop: Stop,
    /// The output the call kept.
    pub(super) capture: &'a mut Capture,
    /// The profile the command ran with.
    pub(super) access: Access,
    /// The command ran confined.
    pub(super) confined: bool,
    /// The limits that held for the call.
    pub(super) limits: &'a Limits,
    /// What the call's cgroup recorded (nothing without one).
    pub(super) recorded: Recorded,
    /// The temp dir's tmpfs, when the call's commands entered it.
    pub(super) tmpfs: Option<&'a TempFs>,
    /// When the call began.
    pub(super) started: Instant,
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

impl UnreadableBinary {
    /// The binary `binary`, resolved to `resolved` (symbolic links followed), with the paths
    /// to add: under `home` (the commands' `HOME`), the top folder of its toolchain; elsewhere,
    /// the folder it is in.
    pub(super) fn new(binary: &str, resolved: PathBuf, home: Option<&Path>) -> Self {
        let mut add = Vec::new();
        match home.and_then(|h| Some((h, resolved.strip_prefix(h).ok()?))) {
            // A toolchain under $HOME: its top folder (`~/.pyenv`, `~/.nvm`, `~/.local`).
            Some((home, rest)) => {
                let top = rest.components().next().map(|c| home.join(c));
                add.extend(top.clone());
                // rustup's proxies in ~/.cargo/bin run the toolchains kept in ~/.rustup.
                if top.as_deref() == Some(&home.join(".cargo")) && home.join(".rustup").is_dir() {
                    add.push(home.join(".rustup"));
                }
            }
            None => add.extend(resolved.parent().map(Path::to_path_buf)),
        }
        UnreadableBinary {
            binary: binary.to_owned(),
            resolved,
            add,
        }
    }
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
