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

/// Whether confined commands run in a private PID namespace
/// ([`KernelSettings::pid_namespace`](crate::KernelSettings::pid_namespace)), decided once per
/// kernel by trying it.
///
/// In its namespace a command is pid 1: it cannot see, signal or reprioritize any process
/// outside it, and when it exits every process it left behind dies. Being pid 1 also means
/// the signals it has no handler for are ignored when they come from inside the namespace
/// (its own `kill $$`, a `SIGPIPE`, `SIGALRM`); the kernel's `SIGKILL` still ends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PidNamespace {
    /// Not asked for (the default), or the sandbox is off.
    Off,
    /// A new PID namespace per call, made directly (the agent holds `CAP_SYS_ADMIN`).
    Private,
    /// A new PID namespace per call inside a new user namespace (an ordinary user), which
    /// maps the agent's own user and group to themselves: files keep the agent's ids.
    ThroughUserNamespace,
    /// Asked for, but this host refuses new namespaces (a container's filter, Ubuntu's
    /// restriction of unprivileged user namespaces, `user.max_user_namespaces` 0): commands
    /// run without one. Says what was refused.
    Unavailable(String),
}

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
                "; PID namespace: not available ({why}): a command's own children die with the agent only by the group kill"
            )?,
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
