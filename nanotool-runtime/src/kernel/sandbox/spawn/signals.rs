//! Signals around a start: the parent blocks every signal while the child shares its memory
//! ([`block_all`], [`restore`]); the child puts every handler back to its default
//! ([`to_defaults`]), takes the parent-death signal and checks that its parent is still there
//! ([`die_with_parent`]), and unblocks every signal just before its `execve` ([`unblock_all`]).

use super::step::Step;
use std::os::fd::RawFd;

/// Blocks every signal on this thread; returns the mask it had.
pub(super) fn block_all() -> u64 {
    let all: u64 = !0;
    let mut old: u64 = 0;
    // SAFETY: rt_sigprocmask on this thread with 8-byte kernel signal sets.
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK,
            &all as *const u64,
            &mut old as *mut u64,
            8usize,
        )
    };
    old
}

/// Puts back the mask [`block_all`] returned.
pub(super) fn restore(old: u64) {
    // SAFETY: rt_sigprocmask on this thread with 8-byte kernel signal sets.
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK,
            &old as *const u64,
            std::ptr::null_mut::<u64>(),
            8usize,
        )
    };
}

/// The kernel's `struct sigaction` (x86_64 and aarch64 share this layout).
#[repr(C)]
struct KernelSigaction {
    handler: usize,
    flags: libc::c_ulong,
    restorer: usize,
    mask: u64,
}

impl KernelSigaction {
    /// A disposition with no flags and an empty mask: `SIG_DFL`, or a buffer to read into.
    const fn plain(handler: usize) -> Self {
        Self {
            handler,
            flags: 0,
            restorer: 0,
            mask: 0,
        }
    }
}

/// Default handlers: a host handler must never run on this shared memory, and a command
/// starts with SIGPIPE at its default, as std's spawn gives it, and with SIGCHLD at its
/// default (an ignored SIGCHLD makes every `wait` of the command fail).
///
/// # Safety
/// The spawn child's only: raw system calls on its own state.
pub(super) unsafe fn to_defaults() -> Result<(), Step> {
    // SAFETY (each call): rt_sigaction of this child's own dispositions, with 8-byte kernel
    // signal sets and buffers on this stack.
    unsafe {
        for sig in 1..=64 {
            if sig == libc::SIGKILL || sig == libc::SIGSTOP {
                continue;
            }
            let mut old = KernelSigaction::plain(0);
            if libc::syscall(
                libc::SYS_rt_sigaction,
                sig,
                std::ptr::null::<KernelSigaction>(),
                &mut old as *mut KernelSigaction,
                8usize,
            ) != 0
            {
                continue;
            }
            let ignored = old.handler == libc::SIG_IGN;
            let reset_ignored = sig == libc::SIGPIPE || sig == libc::SIGCHLD;
            if (old.handler == libc::SIG_DFL
                && old.flags & libc::SA_NOCLDWAIT as libc::c_ulong == 0)
                || (ignored && !reset_ignored)
            {
                continue;
            }
            let default = KernelSigaction::plain(libc::SIG_DFL);
            if libc::syscall(
                libc::SYS_rt_sigaction,
                sig,
                &default as *const KernelSigaction,
                std::ptr::null_mut::<KernelSigaction>(),
                8usize,
            ) != 0
            {
                return Err(Step::Signals);
            }
        }
    }
    Ok(())
}

/// Killed when the thread that started it ends; a parent already gone (the agent killed
/// before this line) means nobody waits for the command: do not start it. `parent` is the
/// agent's pid; in a PID namespace (where the parent is outside and `getppid()` is 0) the
/// agent's pidfd `agent_pidfd` (-1: none) answers instead.
///
/// # Safety
/// The spawn child's only: raw system calls on its own state.
pub(super) unsafe fn die_with_parent(parent: libc::pid_t, agent_pidfd: RawFd) -> Result<(), Step> {
    // SAFETY (each call): raw system calls on this child's own state, with buffers on this
    // stack.
    unsafe {
        if libc::syscall(
            libc::SYS_prctl,
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL,
            0,
            0,
            0,
        ) != 0
        {
            return Err(Step::ParentDeath);
        }
        let ppid = libc::syscall(libc::SYS_getppid) as libc::pid_t;
        if ppid == 0 {
            // In a PID namespace the parent is outside: ask the agent's pidfd.
            let mut agent = libc::pollfd {
                fd: agent_pidfd,
                events: libc::POLLIN,
                revents: 0,
            };
            let now = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            if agent_pidfd >= 0
                && libc::syscall(
                    libc::SYS_ppoll,
                    &mut agent as *mut libc::pollfd,
                    1,
                    &now as *const libc::timespec,
                    std::ptr::null::<u64>(),
                    8usize,
                ) > 0
            {
                return Err(Step::ParentGone);
            }
        } else if ppid != parent {
            return Err(Step::ParentGone);
        }
    }
    Ok(())
}

/// No signal blocked, as a command starts: the last step before `execve`.
///
/// # Safety
/// The spawn child's only: a raw system call on its own mask.
pub(super) unsafe fn unblock_all() {
    let none: u64 = 0;
    // SAFETY: rt_sigprocmask on this child with 8-byte kernel signal sets.
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK,
            &none as *const u64,
            std::ptr::null_mut::<u64>(),
            8usize,
        );
    }
}
