//! How the spawn child reports the step that failed: the step's number and its errno, written
//! where the parent reads them once the child has exited ([`Failure`]), and each step's name for
//! the error the start returns.

use std::sync::atomic::{AtomicI32, Ordering};

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

/// Writes `step` and this thread's errno where the parent reads them, then exits the child
/// (status 127).
///
/// # Safety
/// The spawn child's only: `failure` is the parent's, alive until this child is gone.
pub(super) unsafe fn report(failure: *const Failure, step: Step) -> ! {
    // SAFETY: `failure` lives in the parent's frame (shared memory); errno is this
    // thread's (the parent's, which is suspended until we are gone).
    unsafe {
        let errno = *libc::__errno_location();
        (*failure).errno.store(errno, Ordering::Release);
        (*failure).step.store(step as i32, Ordering::Release);
        libc::syscall(libc::SYS_exit, 127);
    }
    #[allow(clippy::empty_loop)]
    loop {}
}
