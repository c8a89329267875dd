//! How commands live and die beside their host: what the host's own `SIGCHLD` setup is, and
//! what the kernel does about it ([`SpawnStatus`], from
//! [`CommandExecKernel::spawn_status`](crate::CommandExecKernel::spawn_status)).
//!
//! What does not live here: starting a command (`sandbox::spawn`), waiting for it (`wait`).

use std::fmt;

/// What the host process does with `SIGCHLD`, as the kernel found it.
///
/// Commands are started as children that send no `SIGCHLD` and that only a `__WALL` wait
/// reaps, so every disposition keeps exit statuses and the group kill; the value is reported
/// because a host that ignores `SIGCHLD` loses the statuses of its *own* children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostSigchld {
    /// The default disposition.
    Default,
    /// A handler of the host's.
    Handled,
    /// `SIG_IGN`: the kernel reaps the host's ordinary children by itself.
    Ignored,
    /// `SA_NOCLDWAIT`: likewise.
    NoChildWait,
}

impl HostSigchld {
    /// Whether the kernel reaps the host's children by itself (`SIG_IGN`, `SA_NOCLDWAIT`).
    pub fn auto_reaps(self) -> bool {
        matches!(self, HostSigchld::Ignored | HostSigchld::NoChildWait)
    }

    /// The calling process's disposition now.
    pub fn current() -> HostSigchld {
        // SAFETY: sigaction with a null new action only reads the disposition into `old`.
        let old = unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGCHLD, std::ptr::null(), &mut old) != 0 {
                return HostSigchld::Default;
            }
            old
        };
        if old.sa_sigaction == libc::SIG_IGN {
            HostSigchld::Ignored
        } else if old.sa_flags & libc::SA_NOCLDWAIT != 0 {
            HostSigchld::NoChildWait
        } else if old.sa_sigaction == libc::SIG_DFL {
            HostSigchld::Default
        } else {
            HostSigchld::Handled
        }
    }
}

/// Whether confined commands run in a private PID namespace of their own, per call
/// ([`KernelSettings::pid_namespace`](crate::KernelSettings::pid_namespace); CLI
/// `--pid-namespace auto|on|off`, config key `pid_namespace`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PidNamespaceMode {
    /// Where Landlock cannot keep commands from signalling outside their domain (its signal
    /// scope, ABI 6, Linux 6.12, is missing: every kernel before it, or no Landlock at all),
    /// a PID namespace per call wherever the host lets the agent make one; none elsewhere,
    /// where Landlock already confines signals and a namespace would only cost.
    #[default]
    Auto,
    /// A PID namespace per call wherever the host allows one, whatever Landlock confines.
    On,
    /// Never: on a kernel without Landlock's signal scope, commands may then signal the
    /// agent's other processes and threads (the status says so).
    Off,
}

impl PidNamespaceMode {
    /// Whether confined commands get a PID namespace in this mode, where the running
    /// Landlock's ABI is `landlock_abi` (`None`: no Landlock). `auto`: where Landlock cannot
    /// keep signals inside the call's domain (ABI 6).
    pub(super) fn wanted(self, landlock_abi: Option<u32>) -> bool {
        match self {
            PidNamespaceMode::Off => false,
            PidNamespaceMode::On => true,
            PidNamespaceMode::Auto => landlock_abi.is_none_or(|abi| abi < 6),
        }
    }

    /// The mode's name as the command line and the config file write it.
    pub fn as_str(self) -> &'static str {
        match self {
            PidNamespaceMode::Auto => "auto",
            PidNamespaceMode::On => "on",
            PidNamespaceMode::Off => "off",
        }
    }
}

impl std::str::FromStr for PidNamespaceMode {
    type Err = String;
    /// `auto`, `on` or `off`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(PidNamespaceMode::Auto),
            "on" => Ok(PidNamespaceMode::On),
            "off" => Ok(PidNamespaceMode::Off),
            _ => Err(format!(
                "unknown PID namespace mode `{s}`; write `auto`, `on` or `off`"
            )),
        }
    }
}

impl fmt::Display for PidNamespaceMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether confined commands run in a private PID namespace, decided once per kernel by
/// trying it ([`PidNamespaceMode`]).
///
/// In its namespace a command can see, signal or reprioritize no process outside its call,
/// and when it exits every process it left behind dies. The namespace's pid 1 is a reaper
/// (see [`SpawnStatus::reaper`]) that starts the command as pid 2, forwards it every signal
/// and reaps orphans: the command keeps ordinary signal semantics (a `SIGPIPE`, `SIGTERM` or
/// its own `kill $$` ends it as it would outside).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PidNamespace {
    /// None: not needed here (`auto` on a kernel whose Landlock confines signals), not asked
    /// for (`off`), or the sandbox is off.
    Off,
    /// A new PID namespace per call, made directly (the agent holds `CAP_SYS_ADMIN`).
    Private,
    /// A new PID namespace per call inside a new user namespace (an ordinary user), which
    /// maps the agent's own user and group to themselves: files keep the agent's ids.
    ThroughUserNamespace,
    /// Wanted, but this host refuses new namespaces (a container's filter, Ubuntu's
    /// restriction of unprivileged user namespaces, `user.max_user_namespaces` 0): commands
    /// run without one. Says what was refused.
    Unavailable(String),
}

/// What a host does to let an ordinary user's agent make PID namespaces (through a user
/// namespace), as the status says it where none can be had.
pub const HOW_TO_ALLOW_NAMESPACES: &str = "run the agent as root, or allow user namespaces: sysctl user.max_user_namespaces above 0 (and kernel.unprivileged_userns_clone=1 where it exists); on Ubuntu 23.10 and later an AppArmor profile that grants `userns` to the nanotool binary (docs/guide/sandbox.md, \"User namespaces and AppArmor\"); a container needs a seccomp profile that allows clone with CLONE_NEWUSER";

/// How commands are started and ended on this host, beside the sandbox's status: one line
/// with `Display`, for `nanotool list` and the `serve` start-up log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnStatus {
    /// The host's `SIGCHLD` disposition when the status was taken.
    pub host_sigchld: HostSigchld,
    /// Whether the agent reaps the orphans of a call (it is pid 1 or a child subreaper: the
    /// kernel then waits for what is left of a call's group after killing it).
    pub reaps_orphans: bool,
    /// Whether commands get a private PID namespace.
    pub pid_namespace: PidNamespace,
    /// In a PID namespace: `Ok` when the reaper is its pid 1 and the command pid 2, or why
    /// the command itself is pid 1 (an architecture without the reaper, a host that refuses
    /// to run it from a memfd, such as `vm.memfd_noexec` 2); then the command ignores the
    /// signals it has no handler for, as any pid 1 does. `Ok` without a namespace.
    pub reaper: Result<(), String>,
}

impl fmt::Display for SpawnStatus {
    /// `spawn: exit statuses by pidfd, commands die with the agent`, plus what the host's
    /// setup changes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "spawn: exit statuses by pidfd, commands die with the agent"
        )?;
        match self.host_sigchld {
            HostSigchld::Default | HostSigchld::Handled => {}
            HostSigchld::Ignored => write!(
                f,
                "; host SIGCHLD ignored (commands' statuses are kept: they are not SIGCHLD children)"
            )?,
            HostSigchld::NoChildWait => write!(
                f,
                "; host SIGCHLD SA_NOCLDWAIT (commands' statuses are kept: they are not SIGCHLD children)"
            )?,
        }
        match &self.pid_namespace {
            PidNamespace::Off => {}
            PidNamespace::Private => write!(f, "; PID namespace: private per call")?,
            PidNamespace::ThroughUserNamespace => write!(
                f,
                "; PID namespace: private per call, through a user namespace"
            )?,
            PidNamespace::Unavailable(why) => write!(
                f,
                "; PID namespace: not available ({why}): a command's own children die with the agent only by the group kill; to allow it: {HOW_TO_ALLOW_NAMESPACES}"
            )?,
        }
        if matches!(
            self.pid_namespace,
            PidNamespace::Private | PidNamespace::ThroughUserNamespace
        ) {
            match &self.reaper {
                Ok(()) => write!(f, ", a reaper as its pid 1")?,
                Err(why) => write!(
                    f,
                    ", the command as its pid 1 (no reaper: {why}), which ignores the signals it has no handler for"
                )?,
            }
        }
        if self.reaps_orphans {
            write!(
                f,
                "; the agent reaps orphans (pid 1 or subreaper): a call's are reaped when it ends"
            )?;
        }
        Ok(())
    }
}
