//! [`CommandExecKernel`] (DESIGN §5): runs one argv without a shell, in a locked cwd, in its
//! own process group, with a timeout that kills the group and bounded output.
//!
//! STUB — being written; the signatures below are the contract.

use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

/// Settings of a kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelSettings {
    /// Working directory every command runs in (canonicalised at construction).
    pub cwd: PathBuf,
    /// Time after which the whole process group is killed (default 30 s).
    pub timeout: Duration,
    /// Output cap in bytes, kept as head + tail (default 2048).
    pub max_output: usize,
    /// Extra environment variables the host passes to every command.
    pub env: Vec<(String, String)>,
}

impl Default for KernelSettings {
    fn default() -> Self {
        KernelSettings {
            cwd: PathBuf::from("."),
            timeout: Duration::from_secs(30),
            max_output: 2048,
            env: Vec::new(),
        }
    }
}

/// Why a kernel could not be built.
#[derive(Debug, Error)]
pub enum KernelError {
    /// The working directory is missing or unreadable.
    #[error("working directory `{path}`: {source}")]
    Cwd {
        /// The directory as given.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// The kernel.
#[derive(Debug)]
pub struct CommandExecKernel {
    cwd: PathBuf,
    settings: KernelSettings,
}

/// A cancel handle: `Send + Sync`, cheap to clone; any thread may fire it.
#[derive(Debug, Clone, Default)]
pub struct CancelHandle {}

/// What one run did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExecResult {
    /// Exit code (124 on timeout, 128+n on signal n, 127 when the binary is missing).
    pub exit_code: i32,
    /// The signal that ended the leader, if any.
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
    /// The kept output (head + marker + tail), lossily decoded.
    pub output: String,
}

impl CommandExecKernel {
    /// Builds a kernel; the cwd must exist and be a readable directory.
    pub fn new(settings: KernelSettings) -> Result<Self, KernelError> {
        let cwd = settings
            .cwd
            .canonicalize()
            .map_err(|source| KernelError::Cwd {
                path: settings.cwd.clone(),
                source,
            })?;
        Ok(CommandExecKernel { cwd, settings })
    }

    /// The canonical working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The settings.
    pub fn settings(&self) -> &KernelSettings {
        &self.settings
    }

    /// Runs one argv.
    pub fn run(&self, argv: &[String]) -> ExecResult {
        let _ = argv;
        unimplemented!()
    }

    /// Runs one argv; `cancel` may end it from any thread.
    pub fn run_cancellable(&self, argv: &[String], cancel: &CancelHandle) -> ExecResult {
        let _ = (argv, cancel);
        unimplemented!()
    }
}

impl ExecResult {
    /// The result text of DESIGN §5: `exit: N`, notes, `output: ...`.
    pub fn text(&self) -> String {
        format!("exit: {}\noutput: {}", self.exit_code, self.output)
    }
}
