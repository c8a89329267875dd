//! [`CommandExecKernel`]: runs one argv without a shell, in a locked cwd, in its
//! own process group, with a timeout that kills the group and bounded output.
//!
//! How a run goes:
//!
//! 1. the binary is resolved once to an absolute path (a bare name through the child's `PATH`,
//!    a path form like `./x` against the kernel's cwd); argv\[0\] is passed as written
//!    (`resolve`);
//! 2. a child cloned the way `posix_spawn` clones (`CLONE_VM | CLONE_VFORK`, so the cost does
//!    not grow with the memory of the host process) makes its own process group, takes the
//!    allowlisted environment (`env`), stdin from `/dev/null`, and stdout and stderr both on the
//!    write end of one pipe, closes every other fd, and `execve`s. With the sandbox on (the
//!    default) it first confines itself (its profile's Landlock ruleset and seccomp filter)
//!    (`sandbox`). It sends no `SIGCHLD` and only this kernel reaps it, so a host that ignores
//!    `SIGCHLD` keeps exit statuses; it gets `SIGKILL` if the thread that started it ends, and
//!    that thread waits for the call (`lifecycle`);
//! 3. one loop (`wait`) `ppoll`s the pipe, a pidfd of the leader and the cancel eventfd. On exit,
//!    timeout or cancel the whole group gets `SIGKILL` *before* the leader is reaped (so its
//!    pgid cannot be reused under us), then the leader is reaped, then what is left in the pipe
//!    is drained within a short grace, so a grandchild that keeps the pipe open (even one that
//!    escaped the group with `setsid`) never hangs the call. An agent that is pid 1 or a child
//!    subreaper also reaps the group's orphans, its own children by then. Where the host
//!    delegates a cgroup v2, the command was born in a cgroup of its call (`cgroup`), and
//!    `cgroup.kill` takes whatever of the call is left, an escaped process included, before
//!    the drain;
//! 4. the output is kept as head and tail within the cap (`output`, [`ExecResult::output`]);
//!    [`CancelHandle`] (`cancel`) may end a run from any thread.
//!
//! What does not live here: which argv may run (the `policy` module, the tools).

mod cancel;
#[allow(unsafe_code)] // poll of `cgroup.events`, and kill where `cgroup.kill` is missing.
mod cgroup;
mod env;
mod explain;
#[allow(unsafe_code)] // pidfds, waitid and the group kill: system calls.
mod lifecycle;
#[allow(unsafe_code)] // getrlimit of the host's own limits: a system call.
mod limits;
mod output;
mod progress;
mod resolve;
mod result;
mod run_settings;
#[allow(unsafe_code)] // Landlock, seccomp and the spawn without std: system calls.
mod sandbox;
mod settings;
// The Linux backend's calls; elsewhere (and under `--cfg nanotool_portable`) POSIX's.
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
#[allow(unsafe_code)] // the thin wrappers over libc the kernel runs on.
mod sys;
#[cfg(not(all(target_os = "linux", not(nanotool_portable))))]
#[allow(unsafe_code)] // the thin wrappers over libc the kernel runs on.
#[path = "kernel/sys_portable.rs"]
mod sys;
// What both backends' calls share.
#[allow(unsafe_code)] // the thin wrappers over libc the kernel runs on.
mod sys_posix;
#[allow(unsafe_code)] // openat, unlinkat and readdir: system calls.
mod tree;
mod wait;

pub use cancel::CancelHandle;
pub use cgroup::{CgroupMode, CgroupStatus, remove_cgroup_tree};
pub use lifecycle::{
    HOW_TO_ALLOW_NAMESPACES, HostSigchld, PidNamespace, PidNamespaceMode, SpawnStatus,
};
pub use limits::{LimitHit, Limits, LimitsStatus, TempDirStatus};
pub use progress::{PROGRESS_LINE_BYTES, Progress};
pub use result::{
    EXIT_CANCELLED, EXIT_CANNOT_EXECUTE, EXIT_NOT_FOUND, EXIT_TIMEOUT, ExecResult, UnreadableBinary,
};
pub use run_settings::{
    MAX_ENV_VALUE_BYTES, MAX_PROCESSES, MIN_PROCESSES, PROTECTED_ENV, PROTECTED_ENV_PREFIXES,
    RunSettings, check_env, check_limit, check_max_output, check_sandbox_read, check_timeout_secs,
    env_name_problem, expand_home, parse_size,
};
pub use settings::{
    DEFAULT_MAX_OUTPUT, DEFAULT_PATH, DEFAULT_TEMP_SIZE, DEFAULT_TIMEOUT, KernelError,
    KernelSettings, MAX_ENV_VARS, MAX_OUTPUT_LIMIT, MAX_TIMEOUT_SECS, RunSettingsError,
};
pub use tree::remove_tree;

pub use env::{GitConfigError, user_git_cache};
pub use sandbox::Access;
pub use sandbox::status::{Promise, SandboxMode, SandboxStatus};

use std::ffi::{CString, OsString};
use std::io;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use env::{ChildEnv, EnvKind};
use limits::ChildLimits;
use output::Capture;
use resolve::{SearchPath, pipe_error, spawn_error};
use result::Ended;
use sandbox::spawn::{self as spawner, CStrings, Spawned};
use sandbox::start::Start;
use sandbox::{ProfileSlot, Route, Sandbox};
use wait::{drain, wait_loop};

/// How long the pipe is still drained after the group was killed and the leader reaped.
/// Only a process outside the group (one that escaped with `setsid`) can keep the pipe open
/// longer; the call returns anyway.
const DRAIN_GRACE: Duration = Duration::from_millis(50);
/// Size of the read buffer (one per thread, reused across runs).
const READ_BUF: usize = 256 * 1024;

/// Runs one argv at a time per call, many calls at once: argv without a shell, a locked cwd,
/// an allowlisted environment, its own process group, a timeout, bounded output.
///
/// `Send + Sync`: share one kernel between threads (`Arc` or a reference) and call
/// [`run`](Self::run) concurrently.
///
/// ```
/// use nanotool_runtime::{CommandExecKernel, KernelSettings};
///
/// let kernel = CommandExecKernel::new(KernelSettings::default()).unwrap();
/// let argv = ["sh", "-c", "echo out; echo err >&2; exit 3"].map(String::from);
/// let result = kernel.run(&argv);
/// assert_eq!(result.exit_code, 3);
/// assert_eq!(result.output, "out\nerr\n");
/// assert_eq!(result.text(), "exit: 3\noutput: out\nerr\n");
///
/// let missing = kernel.run(&["no-such-binary-here".to_string()]);
/// assert_eq!(missing.exit_code, 127);
/// assert!(missing.start_error.is_some());
/// ```
#[derive(Debug)]
pub struct CommandExecKernel {
    cwd: PathBuf,
    settings: KernelSettings,
    /// The child's whole environment, in order, as it was when the kernel was built.
    env: Vec<(OsString, OsString)>,
    /// The environment of each call, kept in step with the repository's configuration.
    child_env: ChildEnv,
    /// The `PATH` binaries resolve in.
    path: SearchPath,
    /// Whether to wait on a pidfd (always, but tests turn it off to cover kernels without).
    use_pidfd: bool,
    /// The sandbox: profiles, their confinements, private temp dir.
    sandbox: Sandbox,
    /// `/dev/null`, the unconfined commands' stdin.
    null: OwnedFd,
    /// Whether confined commands get a private PID namespace, and how.
    pid_namespace: PidNamespace,
    ns_plan: Option<spawner::NsPlan>,
    /// [`Self::cwd`] for the confined child's `chdir`.
    cwd_c: CString,
    /// The working directory's device and inode when the kernel was built: Landlock's rules
    /// hold that folder, so one recreated at the same path is told apart (and named).
    cwd_id: (u64, u64),
    /// The call's limits as the spawn child applies them.
    child_limits: ChildLimits,
    /// The limits as they hold (clamped to the host's), for the status and the results.
    limits_status: LimitsStatus,
    /// The calls' cgroups, where the host delegates a cgroup v2 (`None`: no cgroup per call).
    cgroups: Option<cgroup::Cgroups>,
}

thread_local! {
    /// The read buffer of this thread, reused by every run on it.
    static READ_BUFFER: std::cell::Cell<Option<Box<[u8]>>> = const { std::cell::Cell::new(None) };
}

impl CommandExecKernel {
    /// Builds a kernel; the cwd must exist and be a directory this process can read and enter,
    /// and every [`KernelSettings::env`] entry must be passable to a process.
    pub fn new(settings: KernelSettings) -> Result<Self, KernelError> {
        let cwd_error = |source| KernelError::Cwd {
            path: settings.cwd.clone(),
            source,
        };
        let cwd = settings.cwd.canonicalize().map_err(cwd_error)?;
        let meta = std::fs::metadata(&cwd).map_err(cwd_error)?;
        if !meta.is_dir() {
            return Err(cwd_error(io::Error::from_raw_os_error(libc::ENOTDIR)));
        }
        sys::can_enter(&cwd).map_err(cwd_error)?;

        let canonical_paths = |paths: &[PathBuf]| {
            paths
                .iter()
                .map(|p| {
                    p.canonicalize().map_err(|source| KernelError::SandboxPath {
                        path: p.clone(),
                        source,
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        };
        run_settings::check_kernel_limits(settings.temp_size, &settings.limits)
            .map_err(KernelError::Setting)?;
        let read = canonical_paths(&settings.sandbox_read)?;
        let write = canonical_paths(&settings.sandbox_write)?;
        let mut sandbox = Sandbox::new(
            settings.sandbox,
            &cwd,
            read,
            write,
            settings.landlock_abi_limit,
            !settings.without_filter_rules,
            settings.temp_size,
        )
        .map_err(KernelError::Sandbox)?;
        // Decided once per kernel, before any profile's filter is built.
        let landlock_abi = sandbox.status.landlock_abi.as_ref().ok().copied();
        let wanted =
            settings.sandbox != SandboxMode::Off && settings.pid_namespace.wanted(landlock_abi);
        let (pid_namespace, ns_plan) = if wanted {
            spawner::pid_namespace()
        } else {
            (PidNamespace::Off, None)
        };
        sandbox.pid_namespace = ns_plan.is_some();
        if ns_plan.as_ref().is_some_and(|p| p.through_user()) {
            sandbox
                .give_up_tempfs(
                    "commands start in a user namespace of their own (for their PID namespace), which cannot enter the tmpfs's mount namespace",
                )
                .map_err(KernelError::Sandbox)?;
        }
        sandbox.status.pid_namespace = ns_plan.is_some();
        let null = spawner::dev_null().map_err(KernelError::Sandbox)?;
        let added = sandbox.added();
        let private = env::Private {
            tmpdir: sandbox.tmpdir(),
            home: sandbox.home(),
            added: &added,
            git_cache: settings.git_cache.as_deref(),
        };
        let child_env = ChildEnv::new(std::env::vars_os(), &settings.env, &cwd, private)?;
        let env = child_env
            .current()
            .map_err(KernelError::Sandbox)?
            .env
            .clone();
        // The `PATH` commands get (its absolute entries only) is the one binaries resolve in.
        let path = SearchPath::of(&env);
        let cwd_c = CString::new(cwd.as_os_str().as_bytes())
            .map_err(|e| KernelError::Sandbox(io::Error::new(io::ErrorKind::InvalidInput, e)))?;
        let (child_limits, applied) = ChildLimits::new(&settings.limits);
        // Confined commands cannot leave their group where the filter holds (it refuses
        // `setsid` and `setpgid`).
        let group_holds = sandbox.status.mode != SandboxMode::Off && sandbox.status.seccomp;
        let (cgroups, cgroup_status) = cgroup::Cgroups::new(
            settings.cgroup,
            applied.nice,
            group_holds,
            spawner::clone_into_works,
        );
        // Anonymous shared memory only where something counts it against the memory limit.
        sandbox.shared_memory = cgroup_status.has("memory") || applied.memory.is_none();
        let shared_memory_refused = group_holds && !sandbox.shared_memory;
        let limits_status = LimitsStatus {
            limits: applied,
            autogroup: limits::autogroup_applies(),
            cgroup: cgroup_status,
            temp_dir: match (settings.sandbox, sandbox.tempfs()) {
                (SandboxMode::Off, _) => TempDirStatus::Host,
                (_, Ok(fs)) => TempDirStatus::Tmpfs {
                    size: fs.size,
                    files: fs.files,
                },
                (_, Err(why)) => TempDirStatus::Disk(why.to_owned()),
            },
            shared_memory_refused,
        };
        let cwd_id = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        Ok(CommandExecKernel {
            cgroups,
            cwd_id,
            child_limits,
            limits_status,
            cwd_c,
            cwd,
            settings,
            env,
            child_env,
            path,
            use_pidfd: true,
            sandbox,
            null,
            pid_namespace,
            ns_plan,
        })
    }

    /// The canonical working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The settings.
    pub fn settings(&self) -> &KernelSettings {
        &self.settings
    }

    /// The environment every command gets, in full: the allowlisted host variables (`PATH`,
    /// `HOME`, `LANG`, `LC_*`, `TZ`, as the host had them when the kernel was built), then
    /// `TERM=dumb`, `NO_COLOR=1`, `PAGER=cat`, then [`KernelSettings::env`]; a later entry
    /// wins. `PATH` keeps its absolute entries only, and is [`DEFAULT_PATH`] when nobody sets
    /// it (or none is left). This is the environment as the kernel was built; the git
    /// overrides of a call follow the repository's configuration as it is then.
    pub fn child_env(&self) -> &[(OsString, OsString)] {
        &self.env
    }

    /// Which limits hold for this kernel's commands (one line with `Display`, printed after
    /// the sandbox's and the spawn's status lines).
    ///
    /// ```
    /// use nanotool_runtime::{CommandExecKernel, KernelSettings};
    ///
    /// let kernel = CommandExecKernel::new(KernelSettings::default()).unwrap();
    /// assert!(kernel.limits_status().to_string().starts_with("limits: memory 4 GiB"));
    /// ```
    pub fn limits_status(&self) -> LimitsStatus {
        self.limits_status.clone()
    }

    /// How commands start and end beside this host (one line with `Display`): the host's
    /// `SIGCHLD` disposition as it is now, and whether the agent reaps orphans.
    ///
    /// ```
    /// use nanotool_runtime::{CommandExecKernel, KernelSettings};
    ///
    /// let kernel = CommandExecKernel::new(KernelSettings::default()).unwrap();
    /// assert!(kernel.spawn_status().to_string().starts_with("spawn: "));
    /// ```
    pub fn spawn_status(&self) -> SpawnStatus {
        SpawnStatus {
            host_sigchld: HostSigchld::current(),
            reaps_orphans: sys::reaps_orphans(),
            pid_namespace: self.pid_namespace.clone(),
            reaper: match &self.ns_plan {
                Some(plan) => plan.reaper().map_err(str::to_owned),
                None => Ok(()),
            },
        }
    }

    /// What the sandbox enforces here (one line with `Display`).
    pub fn sandbox_status(&self) -> &SandboxStatus {
        &self.sandbox.status
    }

    /// The private temp dir confined commands get as `TMPDIR` (`None` with the sandbox off).
    /// Where it is a tmpfs ([`KernelSettings::temp_size`]), its content is seen by commands
    /// only: the agent sees the empty folder it covers.
    pub fn sandbox_tmpdir(&self) -> Option<&Path> {
        self.sandbox.tmpdir()
    }

    /// The private home confined commands get as `HOME` and the XDG folders (`None` with the
    /// sandbox off): `home` inside [`Self::sandbox_tmpdir`], so in its tmpfs where there is
    /// one (bounded by the same size, seen by commands only: the agent finds no such folder),
    /// and removed with the kernel.
    pub fn sandbox_home(&self) -> Option<&Path> {
        self.sandbox.home()
    }

    /// When the binary `name` resolves to a file that confined commands cannot read (a
    /// toolchain under `$HOME`, such as a pyenv shim), says so and names the paths to add
    /// ([`KernelSettings::sandbox_read`], `--sandbox-read`); `None` when it is readable, not
    /// found, or the sandbox is not enforced.
    ///
    /// ```
    /// use nanotool_runtime::{CommandExecKernel, KernelSettings};
    ///
    /// let kernel = CommandExecKernel::new(KernelSettings::default()).unwrap();
    /// assert_eq!(kernel.unreadable_binary("sh"), None);
    /// ```
    pub fn unreadable_binary(&self, name: &str) -> Option<UnreadableBinary> {
        if self.settings.sandbox == SandboxMode::Off || !self.sandbox.status.enforced() {
            return None;
        }
        let program = self.path.resolve(name, &self.cwd).ok()?;
        self.outside_sandbox(name, &program, &[])
    }

    /// [`unreadable_binary`](Self::unreadable_binary) for a tool with its own readable paths
    /// ([`RunSettings::sandbox_read`]).
    pub fn unreadable_binary_for(
        &self,
        name: &str,
        settings: &RunSettings,
    ) -> Option<UnreadableBinary> {
        if self.settings.sandbox == SandboxMode::Off || !self.sandbox.status.enforced() {
            return None;
        }
        let program = self.path.resolve(name, &self.cwd).ok()?;
        self.outside_sandbox(
            name,
            &program,
            &resolve::canonical_all(&settings.sandbox_read),
        )
    }

    fn outside_sandbox(
        &self,
        name: &str,
        program: &Path,
        extra: &[PathBuf],
    ) -> Option<UnreadableBinary> {
        let real = self.sandbox.real_path(program)?;
        if self.sandbox.can_read(&real, extra) {
            return None;
        }
        // The commands' `HOME` (the host may have set it), else the agent's.
        let home = self
            .env
            .iter()
            .find(|(k, _)| k == "HOME")
            .map(|(_, v)| PathBuf::from(v))
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from));
        Some(UnreadableBinary::new(name, real, home.as_deref()))
    }

    /// Runs one argv with the default profile (read-only workspace, no network).
    pub fn run(&self, argv: &[String]) -> ExecResult {
        self.run_inner(argv, Access::READ_ONLY, &RunSettings::default(), None)
    }

    /// Runs one argv with the default profile; `cancel` may end it from any thread (a handle
    /// fired before the call ends it at once, without starting anything).
    pub fn run_cancellable(&self, argv: &[String], cancel: &CancelHandle) -> ExecResult {
        self.run_inner(
            argv,
            Access::READ_ONLY,
            &RunSettings::default(),
            Some(cancel),
        )
    }

    /// Runs one argv with the profile `access` (what the tool declared: `writes`,
    /// `network`), cancellable when `cancel` is given.
    ///
    /// ```
    /// use nanotool_runtime::{Access, CommandExecKernel, KernelSettings};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let kernel = CommandExecKernel::new(KernelSettings {
    ///     cwd: dir.path().to_path_buf(),
    ///     ..KernelSettings::default()
    /// })
    /// .unwrap();
    /// let touch = ["touch", "made"].map(String::from);
    /// let writes = Access { writes: true, network: false, ..Access::READ_ONLY };
    /// assert_eq!(kernel.run_as(&touch, writes, None).exit_code, 0);
    /// assert!(dir.path().join("made").exists());
    /// ```
    pub fn run_as(
        &self,
        argv: &[String],
        access: Access,
        cancel: Option<&CancelHandle>,
    ) -> ExecResult {
        self.run_inner(argv, access, &RunSettings::default(), cancel)
    }

    /// [`run_as`](Self::run_as) with the tool's own settings for this call: its timeout and
    /// output cap instead of the kernel's, its variables after the kernel's environment. The
    /// settings are checked ([`RunSettings::check`]); a value that fails starts nothing.
    ///
    /// ```
    /// use nanotool_runtime::kernel::RunSettings;
    /// use nanotool_runtime::{Access, CommandExecKernel, KernelSettings};
    /// use std::time::Duration;
    ///
    /// let kernel = CommandExecKernel::new(KernelSettings::default()).unwrap();
    /// let argv = ["sh", "-c", "echo $GREETING; sleep 5"].map(String::from);
    /// let settings = RunSettings::new()
    ///     .with_env("GREETING", "hello")
    ///     .with_timeout(Duration::from_millis(300));
    /// let result = kernel.run_with(&argv, Access::READ_ONLY, &settings, None);
    /// assert!(result.timed_out);
    /// assert_eq!(result.output, "hello\n");
    /// ```
    pub fn run_with(
        &self,
        argv: &[String],
        access: Access,
        settings: &RunSettings,
        cancel: Option<&CancelHandle>,
    ) -> ExecResult {
        self.run_inner(argv, access, settings, cancel)
    }

    /// Starts the command: confined by its profile, or directly when the sandbox is off (or
    /// best-effort could set nothing up). Returns the child, the read end of its output pipe,
    /// whether it runs confined, and whether it entered the temp dir's tmpfs.
    #[allow(clippy::too_many_arguments)]
    fn start(
        &self,
        name: &str,
        program: &Path,
        argv: &[String],
        access: Access,
        extra: &[PathBuf],
        limits: &ChildLimits,
        cgroup: Option<BorrowedFd<'_>>,
        env: CallEnvRef<'_>,
    ) -> Result<(Spawned, OwnedFd, bool, bool), (i32, String)> {
        let (confinement, confined) = match self.sandbox.route(access, extra) {
            Route::Refuse(why) => return Err((EXIT_CANNOT_EXECUTE, why)),
            Route::Direct => (None, false),
            Route::Confined(confinement, confined) => {
                if confined && let Some(hint) = self.outside_sandbox(name, program, extra) {
                    return Err((EXIT_CANNOT_EXECUTE, hint.to_string()));
                }
                (Some(confinement), confined)
            }
        };
        let (read_end, write_end) = sys::pipe().map_err(|e| pipe_error(name, e))?;
        let argv = CStrings::new(argv.iter().map(String::as_bytes))
            .map_err(|e| spawn_error(name, program, &e))?;
        let mut start = Start {
            program,
            argv: &argv,
            env: env.plain,
            cwd: &self.cwd_c,
            output: &write_end,
            limits: Some(limits),
            cgroup,
            // Unconfined, its environment names no private temp dir: nothing to enter.
            mount_ns: None,
        };
        let spawned = match confinement {
            None => spawner::spawn_plain(&start, &self.null),
            Some(confinement) => {
                start.env = env.confined;
                start.mount_ns = self.sandbox.mount_ns(access);
                confinement.spawn(&start, self.ns_plan.as_ref())
            }
        };
        match spawned {
            Ok(spawned) => Ok((spawned, read_end, confined, start.mount_ns.is_some())),
            Err(e) => Err(spawn_error(name, program, &e)),
        }
    }

    fn run_inner(
        &self,
        argv: &[String],
        access: Access,
        run: &RunSettings,
        cancel: Option<&CancelHandle>,
    ) -> ExecResult {
        let started = Instant::now();
        if cancel.is_some_and(CancelHandle::is_cancelled) {
            return ExecResult {
                exit_code: EXIT_CANCELLED,
                cancelled: true,
                duration: started.elapsed(),
                ..ExecResult::default()
            };
        }
        let name = match resolve::binary_name(argv) {
            Ok(name) => name,
            Err((code, message)) => return ExecResult::start_failed(code, message, started),
        };
        if let Err(e) = run.check() {
            let message = format!("`{name}`: the tool's settings cannot be used: {e}");
            return ExecResult::start_failed(EXIT_CANNOT_EXECUTE, message, started);
        }
        // The working directory replaced since the kernel was built: nothing runs confined
        // (with the sandbox off, commands simply run in the new folder).
        if self.settings.sandbox != SandboxMode::Off
            && let Some(message) = resolve::cwd_replaced(&self.cwd, self.cwd_id)
        {
            return ExecResult::start_failed(EXIT_CANNOT_EXECUTE, message, started);
        }
        let program = match self.path.resolve(name, &self.cwd) {
            Ok(p) => p,
            Err((code, message)) => return ExecResult::start_failed(code, message, started),
        };

        // The environment of this kind of program (the git and Python overrides only for
        // programs that run programs), and for those the repository's configuration as it is
        // now (read again if anything changed).
        let kind = EnvKind::of(&program, argv, access);
        let env = match self.child_env.current_for(kind) {
            Ok(env) => env,
            Err(e) => {
                let message = format!("`{name}`: the environment cannot be built: {e}");
                return ExecResult::start_failed(EXIT_CANNOT_EXECUTE, message, started);
            }
        };
        if let Some(refused) = &env.refused
            && env::is_git(&program)
        {
            return ExecResult::start_failed(EXIT_CANNOT_EXECUTE, refused.to_string(), started);
        }
        // The tool's own variables are set after every other: a block of its own for this
        // call.
        // The tool's own readable paths (a toolchain one tool needs), and the variables that
        // name the toolchain homes among them, set before the tool's own.
        let extra = resolve::canonical_all(&run.sandbox_read);
        let mut tool_vars = if self.settings.sandbox == SandboxMode::Off {
            Vec::new()
        } else {
            self.child_env.toolchain_vars(&extra)
        };
        tool_vars.extend(run.env.iter().cloned());
        // This profile's private folders: its own TMPDIR and home, so what a call leaves there
        // reaches only calls with the same rights.
        let slot = self.sandbox.profile_slot(access, &extra);
        let dirs = self.sandbox.private_dirs(slot);
        let private = dirs.as_ref().map(|(tmpdir, home)| env::PrivateDirs {
            tmpdir: tmpdir.as_ref(),
            home: home.as_ref(),
        });
        // A plain profile's blocks are kept per kind; a tool with variables or readable paths
        // of its own gets blocks for this call.
        let (per_call, cached) = match (slot, private) {
            (ProfileSlot::Plain(i), Some(dirs)) => (false, Some((i, dirs))),
            (ProfileSlot::Extended(_), Some(_)) => (true, None),
            (_, None) => (false, None),
        };
        let tool_env = if tool_vars.is_empty() && !per_call {
            None
        } else {
            match self
                .child_env
                .with_tool_env(&env, kind, &tool_vars, private)
            {
                Ok(blocks) => Some(blocks),
                Err(e) => {
                    let message = format!("`{name}`: the environment cannot be built: {e}");
                    return ExecResult::start_failed(EXIT_CANNOT_EXECUTE, message, started);
                }
            }
        };
        let env_ref = match &tool_env {
            Some((confined, plain)) => CallEnvRef { confined, plain },
            None => match (env.for_call(kind, cached), env.for_call(kind, None)) {
                (Ok(confined), Ok(plain)) => CallEnvRef { confined, plain },
                (Err(e), _) | (_, Err(e)) => {
                    let message = format!("`{name}`: the environment cannot be built: {e}");
                    return ExecResult::start_failed(EXIT_CANNOT_EXECUTE, message, started);
                }
            },
        };
        // The tool's own resource limits over the kernel's, for this call only.
        let own_limits = run
            .sets_limits()
            .then(|| ChildLimits::new(&run.limits_over(&self.settings.limits)));
        let (call_limits, applied_limits) = match &own_limits {
            Some((child, applied)) => (child, applied),
            None => (&self.child_limits, &self.limits_status.limits),
        };
        // The call's own cgroup, where the host delegates one; its limits written.
        let call_cgroup = match self
            .cgroups
            .as_ref()
            .map(|c| c.acquire(applied_limits.for_cgroup()))
        {
            None => None,
            Some(Ok(cg)) => Some(cg),
            Some(Err(e)) => {
                let message = format!("`{name}` was not started: {e}");
                return ExecResult::start_failed(EXIT_CANNOT_EXECUTE, message, started);
            }
        };
        let (child, read_end, confined, entered_tmpfs) = match self.start(
            name,
            &program,
            argv,
            access,
            &extra,
            call_limits,
            call_cgroup.as_ref().and_then(|cg| cg.fd()),
            env_ref,
        ) {
            Ok(started) => started,
            Err((code, message)) => {
                if let (Some(cgroups), Some(cg)) = (&self.cgroups, call_cgroup) {
                    cgroups.finish(cg);
                }
                let message = resolve::start_failure(&self.cwd, message);
                return ExecResult::start_failed(code, message, started);
            }
        };
        let pid = child.pid;
        let records = child.records;
        // The pidfd the clone gave; else (Linux before 5.2) one opened now, which names our
        // child unless the host's auto-reap already freed its pid.
        let pidfd = if self.use_pidfd {
            child.pidfd.or_else(|| sys::pidfd_open(pid).ok())
        } else {
            None
        };

        let mut buf = READ_BUFFER
            .take()
            .unwrap_or_else(|| vec![0u8; READ_BUF].into_boxed_slice());
        let mut capture = Capture::new(run.max_output.unwrap_or(self.settings.max_output));
        capture.progress = cancel.and_then(CancelHandle::progress).cloned();
        let mut pipe = Some(read_end);
        // A timeout too large to add to the clock means no timeout.
        let deadline = started.checked_add(run.timeout.unwrap_or(self.settings.timeout));
        let stop = wait_loop(
            pid,
            pidfd.as_ref(),
            cancel,
            &mut pipe,
            &mut capture,
            &mut buf,
            deadline,
        );

        // Kill the whole group, then reap the leader, then drain what is left. Through the
        // pidfd where the kernel can (6.9): that reaches the group even if the system reaped
        // its leader already (a host that ignores SIGCHLD), and never another group.
        let killed = pidfd
            .as_ref()
            .is_some_and(|fd| sys::pidfd_kill_group(fd).is_ok());
        // Else by number, while the leader is unreaped (so its pgid stays ours), or once the
        // kernel reaped it for a host that ignores SIGCHLD: the group's number stays taken
        // while it has members, and only an empty group's number could be reused meanwhile.
        if !killed && (sys::still_ours(pid) || HostSigchld::current().auto_reaps()) {
            sys::kill_group(pid);
        }
        // The command's exit status, and the errno of an `execve` that failed in a PID namespace.
        let (status, not_started) = wait::reap(pid, pidfd.as_ref(), records.as_ref());
        // A pid-1 or subreaper agent is the parent of the group's orphans: reap them too.
        if sys::reaps_orphans() {
            sys::reap_group(pid);
        }
        // Every process of the call, even one that left its group and session, killed with
        // its cgroup (before the drain, so none keeps the pipe open); the cgroup emptied.
        let recorded = match (&self.cgroups, call_cgroup) {
            (Some(cgroups), Some(cg)) => cgroups.finish(cg),
            _ => Default::default(),
        };
        if let Some(fd) = &pipe {
            drain(fd, &mut capture, &mut buf, Instant::now() + DRAIN_GRACE);
        }
        drop(pipe);
        READ_BUFFER.set(Some(buf));
        if let Some(errno) = not_started {
            let (code, message) = spawn_error(name, &program, &io::Error::from_raw_os_error(errno));
            return ExecResult::start_failed(code, message, started);
        }

        ExecResult::ended(Ended {
            name,
            status,
            stop,
            capture: &mut capture,
            access,
            confined,
            limits: applied_limits,
            recorded,
            // The temp dir's tmpfs, where this call's commands see it.
            tmpfs: entered_tmpfs.then(|| self.sandbox.tempfs().ok()).flatten(),
            started,
        })
    }
}

/// The environment blocks of one call, ready for `execve`.
#[derive(Clone, Copy)]
struct CallEnvRef<'a> {
    /// For a confined command (with the sandbox's `TMPDIR`).
    confined: &'a CStrings,
    /// For a command started unconfined.
    plain: &'a CStrings,
}

#[cfg(test)]
mod tests {
    use super::cancel::CancelInner;
    use super::limits::seconds;
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    fn sh(script: &str) -> Vec<String> {
        ["sh", "-c", script].iter().map(|s| s.to_string()).collect()
    }

    fn kernel(timeout: Duration, use_pidfd: bool) -> CommandExecKernel {
        let mut k = CommandExecKernel::new(KernelSettings {
            timeout,
            ..KernelSettings::default()
        })
        .unwrap();
        k.use_pidfd = use_pidfd;
        k
    }

    #[test]
    fn without_a_pidfd_exit_and_output_still_come_back() {
        let k = kernel(Duration::from_secs(30), false);
        let r = k.run(&sh("echo a; sleep 0.05; echo b >&2; exit 4"));
        assert_eq!((r.exit_code, r.output.as_str()), (4, "a\nb\n"));
        // A background grandchild holding the pipe does not keep the call.
        let r = k.run(&sh("sleep 100 & echo started"));
        assert_eq!((r.exit_code, r.output.as_str()), (0, "started\n"));
    }

    #[test]
    fn without_a_pidfd_the_timeout_still_fires() {
        let r = kernel(Duration::from_millis(100), false).run(&sh("sleep 100"));
        assert!(r.timed_out);
        assert_eq!(r.exit_code, EXIT_TIMEOUT);
    }

    #[test]
    fn a_handle_without_an_eventfd_still_cancels() {
        let handle = CancelHandle {
            inner: Arc::new(CancelInner {
                fired: AtomicBool::new(false),
                event: std::sync::OnceLock::from(None),
                progress: None,
            }),
        };
        let firing = handle.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            firing.cancel();
        });
        let r = kernel(Duration::from_secs(30), true).run_cancellable(&sh("sleep 100"), &handle);
        t.join().unwrap();
        assert!(r.cancelled);
        assert_eq!(r.exit_code, EXIT_CANCELLED);
    }

    #[test]
    fn seconds_read_as_people_write_them() {
        assert_eq!(seconds(Duration::from_secs(30)), "30");
        assert_eq!(seconds(Duration::from_millis(200)), "0.2");
        assert_eq!(seconds(Duration::from_millis(1540)), "1.5");
    }
}
