//! The kernel's settings and the types its modules share: [`KernelSettings`] and its defaults,
//! why a kernel cannot be built ([`KernelError`]), and why a setting is refused
//! ([`RunSettingsError`], with the bounds its messages name).
//!
//! Every module of the kernel reads its settings from here, and this module reads nothing of
//! theirs but the types a setting is made of (the modes, [`Limits`]): a leaf below
//! `kernel.rs`, never importing it. What does not live here: how a setting is applied (the
//! kernel and its modules), a tool's own settings and their checks (`run_settings`).

use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

use super::cgroup::CgroupMode;
use super::lifecycle::PidNamespaceMode;
use super::limits::Limits;
use super::sandbox::status::SandboxMode;

/// `PATH` searched (and given to the command) when neither the host nor the settings set one.
pub const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The output cap when neither the tool nor the host sets one, in bytes, kept as head + tail:
/// about what a coding agent's own shell tool gives a model (Claude Code's truncates at
/// 30,000 characters; see DECISIONS.md).
pub const DEFAULT_MAX_OUTPUT: usize = 30_000;

/// The timeout when neither the tool nor the host sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Settings of a kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelSettings {
    /// Working directory every command runs in (canonicalised at construction).
    pub cwd: PathBuf,
    /// Time after which the whole process group is killed (default [`DEFAULT_TIMEOUT`], 30 s);
    /// a tool's own [`RunSettings::timeout`](crate::kernel::RunSettings::timeout) wins.
    pub timeout: Duration,
    /// Output cap in bytes, kept as head + tail (default [`DEFAULT_MAX_OUTPUT`], 30,000); a
    /// tool's own [`RunSettings::max_output`](crate::kernel::RunSettings::max_output) wins.
    pub max_output: usize,
    /// Extra environment variables the host passes to every command (they win over the
    /// allowlisted host values: a `PATH` here is the `PATH` binaries are looked up in).
    pub env: Vec<(String, String)>,
    /// How strictly commands are confined (default best-effort; see [`SandboxMode`]).
    pub sandbox: SandboxMode,
    /// Extra paths every confined command may read (and execute): a toolchain under
    /// `$HOME`, a config directory a tool needs. Each must exist.
    pub sandbox_read: Vec<PathBuf>,
    /// Extra paths every confined command may read and write. Each must exist.
    pub sandbox_write: Vec<PathBuf>,
    /// Confine as Landlock ABI `n` would at most (0: as a Linux without Landlock), whatever
    /// the running Linux supports: how the tests play older kernels on a newer one. It can
    /// only lower what is enforced, never raise it; the status says what then holds.
    #[doc(hidden)]
    pub landlock_abi_limit: Option<u32>,
    /// Confine as a build without seccomp rules for this machine's architecture would (Landlock,
    /// capabilities, fds and the group, no filter): how the tests play such a machine.
    #[doc(hidden)]
    pub without_filter_rules: bool,
    /// Whether each confined command runs in a private PID namespace (default
    /// [`PidNamespaceMode::Auto`]: wherever Landlock's signal scope, Linux 6.12, is missing):
    /// it then cannot see or signal any process outside its call, and everything it started
    /// dies with it, even after `kill -9` of the agent. A reaper is the namespace's pid 1, so
    /// the command keeps ordinary signal semantics (see
    /// [`PidNamespace`](crate::kernel::PidNamespace)); where the host refuses namespaces,
    /// commands run without one and
    /// [`CommandExecKernel::spawn_status`](crate::kernel::CommandExecKernel::spawn_status)
    /// says why and how to allow them.
    pub pid_namespace: PidNamespaceMode,
    /// What one call may consume: memory, file size, open files, CPU time, its priority
    /// and OOM score (see [`Limits`]; default [`Limits::default`]).
    pub limits: Limits,
    /// Whether each call gets a cgroup v2 child of its own where the host delegates one
    /// (default [`CgroupMode::Auto`]: where it bounds something or reaches what the group
    /// kill cannot): processes and memory bounded per call, and every process of the call
    /// killed at its end (`cgroup.kill`), even one that left its group.
    pub cgroup: CgroupMode,
    /// Size of the commands' private temp dir (`TMPDIR`, with the private home inside it),
    /// in bytes (default [`DEFAULT_TEMP_SIZE`], 1 GiB; `None`: on disk, unbounded). Where the
    /// agent may mount (root with `CAP_SYS_ADMIN`) it is a tmpfs of this size, seen only by the commands (in
    /// a mount namespace of its own), holding one file or folder per 8 KiB of it; a write
    /// past it fails with "No space left on device" and the result names the limit
    /// ([`LimitHit::TempDir`](crate::kernel::LimitHit::TempDir)). Elsewhere the temp dir is a
    /// folder on disk and
    /// [`CommandExecKernel::limits_status`](crate::kernel::CommandExecKernel::limits_status)
    /// says why. At least 1 MiB.
    pub temp_size: Option<u64>,
    /// A folder where the reading of the workspace's git configuration is kept between
    /// processes, so a short-lived process (the CLI) does not read a large index again while
    /// nothing changed (default `None`: kept in memory, for the kernel's life). Used only if
    /// it is a folder of the agent's user, mode `0700` (made so when missing), out of the
    /// reach of commands (not inside the working directory nor a sandbox path); the CLI
    /// gives [`user_git_cache`](crate::kernel::user_git_cache).
    pub git_cache: Option<PathBuf>,
}

impl Default for KernelSettings {
    fn default() -> Self {
        KernelSettings {
            cwd: PathBuf::from("."),
            timeout: DEFAULT_TIMEOUT,
            max_output: DEFAULT_MAX_OUTPUT,
            env: Vec::new(),
            sandbox: SandboxMode::default(),
            sandbox_read: Vec::new(),
            sandbox_write: Vec::new(),
            landlock_abi_limit: None,
            without_filter_rules: false,
            pid_namespace: PidNamespaceMode::Auto,
            limits: Limits::default(),
            cgroup: CgroupMode::default(),
            temp_size: Some(DEFAULT_TEMP_SIZE),
            git_cache: None,
        }
    }
}

/// The default size of the commands' private temp dir, where it is a tmpfs (1 GiB).
pub const DEFAULT_TEMP_SIZE: u64 = 1 << 30;

/// Why a kernel could not be built.
#[derive(Debug, Error)]
pub enum KernelError {
    /// The working directory is missing, not a directory, or unreadable.
    #[error(
        "working directory `{}` cannot be used: {source}; give an existing directory this process can read and enter",
        path.display()
    )]
    Cwd {
        /// The directory as given.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// An entry of [`KernelSettings::env`] cannot be passed to a process.
    #[error(
        "environment variable {name:?} cannot be passed to a command: {reason}; give a non-empty name without `=` or NUL, and a value without NUL"
    )]
    Env {
        /// The variable's name as given.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A path given to the sandbox ([`KernelSettings::sandbox_read`] or
    /// [`KernelSettings::sandbox_write`]) cannot be used.
    #[error(
        "sandbox path `{}` cannot be used: {source}; give an existing path (the sandbox opens it when the kernel is built)",
        path.display()
    )]
    SandboxPath {
        /// The path as given.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The sandbox's private temp dir could not be created.
    #[error(
        "the sandbox cannot be set up: {0}; check that the system temp dir ($TMPDIR or /tmp) is writable, or run with the sandbox off"
    )]
    Sandbox(std::io::Error),
    /// A setting is out of its range: [`KernelSettings::temp_size`], or one of
    /// [`KernelSettings::limits`] (the ranges of [`check_limit`](crate::kernel::check_limit)),
    /// named.
    #[error("{0}")]
    Setting(RunSettingsError),
}

/// The longest timeout a tool may ask for: one day, in seconds.
pub const MAX_TIMEOUT_SECS: u64 = 24 * 60 * 60;

/// The largest output cap a tool may ask for: 16 MiB (the output is held in memory and sent
/// to a model whole).
pub const MAX_OUTPUT_LIMIT: usize = 16 << 20;

/// The most environment variables one tool may set.
pub const MAX_ENV_VARS: usize = 64;

/// Why a [`RunSettings`](crate::kernel::RunSettings) value cannot be used.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RunSettingsError {
    /// `timeout` is zero or above [`MAX_TIMEOUT_SECS`].
    #[error(
        "timeout of {secs} s is out of range: give a whole number of seconds from 1 to {MAX_TIMEOUT_SECS} (one day)"
    )]
    Timeout {
        /// The timeout as given, in seconds (fractions shown as given).
        secs: f64,
    },
    /// `max_output` is zero or above [`MAX_OUTPUT_LIMIT`].
    #[error(
        "max_output of {bytes} bytes is out of range: give a number of bytes from 1 to {MAX_OUTPUT_LIMIT} (16 MiB)"
    )]
    MaxOutput {
        /// The cap as given (`u64::MAX` for anything larger).
        bytes: u64,
    },
    /// An environment variable's name may not be set by a tool.
    #[error("environment variable `{name}`: {reason}")]
    EnvName {
        /// The name as given.
        name: String,
        /// Why, and what to do instead.
        reason: String,
    },
    /// An environment variable's value cannot be passed.
    #[error("environment variable `{name}`: {reason}")]
    EnvValue {
        /// The name.
        name: String,
        /// Why, and what to do instead.
        reason: String,
    },
    /// Too many variables.
    #[error("{count} environment variables: a tool may set at most {MAX_ENV_VARS}")]
    TooManyEnv {
        /// How many were given.
        count: usize,
    },
    /// A resource limit is out of range.
    #[error("{field} of {value} is out of range: give {range}")]
    Limit {
        /// The setting: `memory`, `file_size`, `open_files`, `cpu_time` or `processes`.
        field: &'static str,
        /// The value as given (bytes, files or seconds).
        value: u64,
        /// The range, in words.
        range: &'static str,
    },
    /// A `sandbox_read` path is relative, missing, or everything.
    #[error("sandbox_read path `{}`: {reason}", path.display())]
    SandboxRead {
        /// The path as given.
        path: PathBuf,
        /// Why, and what to do instead.
        reason: String,
    },
}

impl RunSettingsError {
    /// The setting at fault, as the descriptor field and the macro argument name it:
    /// `timeout`, `max_output` or `env`.
    pub fn field(&self) -> &'static str {
        match self {
            RunSettingsError::Timeout { .. } => "timeout",
            RunSettingsError::MaxOutput { .. } => "max_output",
            RunSettingsError::EnvName { .. }
            | RunSettingsError::EnvValue { .. }
            | RunSettingsError::TooManyEnv { .. } => "env",
            RunSettingsError::SandboxRead { .. } => "sandbox_read",
            RunSettingsError::Limit { field, .. } => field,
        }
    }
}
