//! How the spawn child reports the step that failed: the step's number and its errno, written
//! where the parent reads them once the child has exited ([`Failure`]), and each step's name for
//! the error the start returns.

use std::sync::atomic::AtomicI32;

/// Where the child reports the step that failed (0: none) and its errno.
#[derive(Default)]
pub(super) struct Failure {
    pub(super) step: AtomicI32,
    pub(super) errno: AtomicI32,
}

/// The steps of the child, for its failure report.
#[derive(Clone, Copy)]
pub(super) enum Step {
    Signals = 1,
    ParentDeath,
    ParentGone,
    IdMaps,
    Group,
    Limits,
    Chdir,
    NoNewPrivs,
    Capabilities,
    Landlock,
    Seccomp,
    Stdio,
    CloseFds,
    Loopback,
    MountNamespace,
    Exec,
}

impl From<i32> for Step {
    fn from(n: i32) -> Step {
        [
            Step::Signals,
            Step::ParentDeath,
            Step::ParentGone,
            Step::IdMaps,
            Step::Group,
            Step::Limits,
            Step::Chdir,
            Step::NoNewPrivs,
            Step::Capabilities,
            Step::Landlock,
            Step::Seccomp,
            Step::Stdio,
            Step::CloseFds,
            Step::Loopback,
            Step::MountNamespace,
        ]
        .into_iter()
        .find(|s| *s as i32 == n)
        .unwrap_or(Step::Exec)
    }
}

impl Step {
    /// What the step does, in the error of a start that failed at it.
    pub(super) fn name(self) -> &'static str {
        match self {
            Step::Signals => "resetting signal handlers",
            Step::ParentDeath => "setting the parent-death signal",
            Step::ParentGone => "the agent exited",
            Step::IdMaps => "writing the user namespace's id maps",
            Step::Group => "setsid",
            Step::Limits => "setting the call's resource limits",
            Step::Chdir => "chdir",
            Step::NoNewPrivs => "no_new_privs",
            Step::Capabilities => "dropping capabilities",
            Step::Landlock => "landlock_restrict_self",
            Step::Seccomp => "installing the seccomp filter",
            Step::Stdio => "setting up stdio",
            Step::CloseFds => "closing inherited fds",
            Step::Loopback => "bringing up the private loopback",
            Step::MountNamespace => "entering the mount namespace of the private temp dir",
            Step::Exec => "execve",
        }
    }
}
