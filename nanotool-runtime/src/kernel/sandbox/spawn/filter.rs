//! The child's seccomp step (4, after Landlock): the profile's filter, written once by the
//! parent (`seccomp`), installed on this child and inherited by everything it runs.

use super::super::seccomp;
use super::step::Step;
use std::sync::atomic::Ordering;

/// The flags the child installs the filter with: `SECCOMP_FILTER_FLAG_SPEC_ALLOW` until a
/// kernel refuses it (the child clears it, in the memory it shares with the agent).
static SPEC_ALLOW_FLAG: std::sync::atomic::AtomicU32 =
    std::sync::atomic::AtomicU32::new(seccomp::FILTER_FLAG_SPEC_ALLOW);

/// Installs `filter` on the confined route (`confine`; null: this build has no rules for the
/// machine's architecture, and the command is confined without a filter).
///
/// # Safety
/// The spawn child's only: a raw system call; `filter` is null or a valid program.
pub(super) unsafe fn install(confine: bool, filter: *const libc::sock_fprog) -> Result<(), Step> {
    if confine && !filter.is_null() {
        // SAFETY (each call): seccomp of this child, with a program the parent keeps alive.
        unsafe {
            // SPEC_ALLOW: the filter does not also turn on the speculative store bypass
            // mitigation, which slows every command on CPUs that have it (Spectre v4 is a
            // same-address-space attack; a command attacks no one through it that the
            // sandbox protects). A kernel without the flag (before 4.17) says EINVAL.
            let mut flags = SPEC_ALLOW_FLAG.load(Ordering::Relaxed);
            let mut ret = libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                flags,
                filter,
            );
            if ret != 0 && flags != 0 && *libc::__errno_location() == libc::EINVAL {
                flags = 0;
                SPEC_ALLOW_FLAG.store(0, Ordering::Relaxed);
                ret = libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    flags,
                    filter,
                );
            }
            if ret != 0 {
                return Err(Step::Seccomp);
            }
        }
    }
    Ok(())
}
