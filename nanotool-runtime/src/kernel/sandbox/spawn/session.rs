//! The call's own session and its limits, the child's step 2: `setsid()` (the call's own
//! session and process group, made before the filter refuses it; a session of its own also
//! gives the call its own CPU share under autogroup), then `oom_score_adj`, niceness and
//! resource limits.

use super::super::super::limits::ChildLimits;
use super::step::Step;
use std::ffi::c_int;

/// The call's own session and group, then its limits ([`apply_limits`]).
///
/// # Safety
/// The spawn child's only: raw system calls; `limits`' pointer is valid for its count.
pub(super) unsafe fn enter(limits: &ChildLimitArgs) -> Result<(), Step> {
    // SAFETY: setsid of this child.
    if unsafe { libc::syscall(libc::SYS_setsid) } < 0 {
        return Err(Step::Group);
    }
    // SAFETY: as this function's contract.
    unsafe { apply_limits(limits) }
}

/// [`ChildLimits`] as the child reads them.
pub(super) struct ChildLimitArgs {
    rlimits: *const (c_int, libc::rlimit),
    count: usize,
    oom_first: bool,
    nice: i32,
}

impl ChildLimitArgs {
    /// `limits` for the child (none: nothing to apply).
    pub(super) fn new(limits: Option<&ChildLimits>) -> Self {
        match limits {
            Some(l) => ChildLimitArgs {
                rlimits: l.rlimits.as_ptr(),
                count: l.rlimits.len(),
                oom_first: l.oom_first,
                nice: l.nice,
            },
            None => ChildLimitArgs {
                rlimits: std::ptr::null(),
                count: 0,
                oom_first: false,
                nice: 0,
            },
        }
    }
}

/// The call's limits, applied by the child to itself: `oom_score_adj` first (it opens a
/// file, which a low limit on open files could refuse), then the niceness, then the resource
/// limits. A vfork child's `oom_score_adj` is its own (Linux leaves the processes sharing its
/// memory alone for a vfork child); raising it and the niceness needs no privilege, and a
/// host that refuses either (no `/proc`, a niceness already higher) keeps its own. A
/// resource limit that cannot be set fails the start: the command must not run unbounded.
///
/// # Safety
/// Raw system calls only; `l`'s pointer is valid for `count` entries.
unsafe fn apply_limits(l: &ChildLimitArgs) -> Result<(), Step> {
    // SAFETY (each call): raw system calls on this child's own state.
    unsafe {
        if l.oom_first {
            let fd = libc::syscall(
                libc::SYS_openat,
                libc::AT_FDCWD,
                c"/proc/self/oom_score_adj".as_ptr(),
                libc::O_WRONLY | libc::O_CLOEXEC,
            );
            if fd >= 0 {
                let v = b"1000";
                libc::syscall(libc::SYS_write, fd, v.as_ptr(), v.len());
                libc::syscall(libc::SYS_close, fd);
            }
        }
        if l.nice != 0 {
            libc::syscall(libc::SYS_setpriority, libc::PRIO_PROCESS, 0, l.nice);
        }
        for i in 0..l.count {
            let (resource, limit) = &*l.rlimits.add(i);
            if libc::syscall(
                libc::SYS_prlimit64,
                0,
                *resource,
                limit as *const libc::rlimit,
                std::ptr::null_mut::<libc::rlimit>(),
            ) != 0
            {
                return Err(Step::Limits);
            }
        }
    }
    Ok(())
}
