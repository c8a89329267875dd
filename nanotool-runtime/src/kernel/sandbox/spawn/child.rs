//! The spawn child: born of the clone (`clone`) on the agent's memory, it confines itself and
//! runs the command, each step one call into the module of its concern ([`steps`]). It runs
//! after the clone of a multi-threaded process and shares the agent's memory until its
//! `execve`: raw system calls only, no allocation, no lock, nothing of std that keeps state.

use super::exec::{self, REAPER_WORKS};
use super::privileges::{self, CapData};
use super::session::{self, ChildLimitArgs};
use super::step::{self, Failure, Step};
use super::{fds, filter, landlock, namespaces, signals, view};
use std::convert::Infallible;
use std::ffi::{c_char, c_int, c_void};
use std::os::fd::RawFd;
use std::sync::atomic::Ordering;

/// Everything the child reads, prepared by the parent.
pub(super) struct ChildArgs {
    pub(super) program: *const c_char,
    pub(super) argv: *const *const c_char,
    pub(super) envp: *const *const c_char,
    pub(super) cwd: *const c_char,
    pub(super) null: RawFd,
    pub(super) output: RawFd,
    /// Whether to apply steps 3 (but `chdir`) and 4: the confined route.
    pub(super) confine: bool,
    pub(super) ruleset: RawFd,
    pub(super) filter: *const libc::sock_fprog,
    pub(super) caps: *const CapData,
    /// The agent's pid: the child's parent, unless the agent died before the child's
    /// parent-death signal was set.
    pub(super) parent: libc::pid_t,
    /// In a PID namespace (where `getppid()` is 0): a pidfd of the agent, readable once it
    /// died; -1 when there is none.
    pub(super) agent_pidfd: RawFd,
    /// In a user namespace: the `uid_map` and `gid_map` lines (null otherwise).
    pub(super) uid_map: (*const u8, usize),
    pub(super) gid_map: (*const u8, usize),
    /// In a network namespace of its own: bring its `lo` up.
    pub(super) loopback: bool,
    /// The private temp dir's mount namespace, to enter before `chdir` (-1: none).
    pub(super) mount_ns: RawFd,
    /// The call's limits (`rlimits` null: none).
    pub(super) limits: ChildLimitArgs,
    /// The reaper's memfd, to run as the PID namespace's pid 1 (-1: the command runs itself).
    pub(super) reaper: RawFd,
    /// The write end of the reaper's record pipe (-1 without a reaper).
    pub(super) records: RawFd,
    /// The reaper's argv: the command's path, then its argv, NULL-terminated.
    pub(super) reaper_argv: *const *const c_char,
    /// Where the child reports the step that failed ([`step::report`]).
    pub(super) failure: *const Failure,
}

/// The cloned child: confines itself, then `execve`s ([`steps`]). A step that fails is
/// reported where the parent reads it ([`step::report`]), and the child exits.
pub(super) extern "C" fn child(arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the parent's `ChildArgs`, alive until this child execs or exits.
    let a = unsafe { &*(arg as *const ChildArgs) };
    // SAFETY: this is the spawn child, and `a` what the parent prepared for it.
    let Err(failed) = unsafe { steps(a) };
    // SAFETY: `failure` lives in the parent's frame (shared memory) until this child is gone.
    unsafe { step::report(a.failure, failed) }
}

/// The child's steps, in order, each one call: the step that failed, where one does (an
/// `execve` that returns has failed too).
///
/// # Safety
/// The spawn child's only: raw system calls on its own state, with the arguments of `a`,
/// which the parent prepared and keeps alive.
unsafe fn steps(a: &ChildArgs) -> Result<Infallible, Step> {
    // SAFETY (each call): this child's own steps, with arguments the parent prepared and
    // keeps alive.
    unsafe {
        // 1. Default signal handlers, the parent-death signal, a parent still there.
        signals::to_defaults()?;
        signals::die_with_parent(a.parent, a.agent_pidfd)?;
        // The namespaces it was born in: the agent's ids mapped, the private loopback up.
        namespaces::settle((a.uid_map, a.gid_map), a.loopback)?;
        // Under the host's limit on open files: that limit, and the reaper's fds above 4.
        let reaper = a.confine && a.reaper >= 0 && REAPER_WORKS.load(Ordering::Relaxed);
        let held = fds::hold(reaper.then_some((a.reaper, a.records)))?;
        // 2. The call's own session and group, then its limits.
        session::enter(&a.limits)?;
        // 3. The temp dir's mount namespace and the workspace; no new privileges, capabilities.
        view::enter(a.mount_ns, a.cwd)?;
        privileges::lower(a.confine, a.caps)?;
        // 4. Landlock, then seccomp.
        landlock::restrict(a.ruleset)?;
        filter::install(a.confine, a.filter)?;
        // 5. stdio, every other fd closed.
        fds::settle(a.null, a.output, a.confine, &held)?;
        // 6. The reaper or the command, nothing blocked: back only if its `execve` failed.
        Err(exec::run(reaper, a.program, a.argv, a.envp, a.reaper_argv))
    }
}
