//! The child's Landlock step (4): the profile's ruleset, built once by the parent (`rules`),
//! restricts this child and everything it runs (`landlock_restrict_self`).

use super::step::Step;
use std::os::fd::RawFd;

/// Restricts this child by `ruleset` (-1: Landlock enforces nothing on this kernel).
///
/// # Safety
/// The spawn child's only: a raw system call on its own state.
pub(super) unsafe fn restrict(ruleset: RawFd) -> Result<(), Step> {
    // SAFETY: landlock_restrict_self of this child, with a ruleset fd the parent keeps open.
    if ruleset >= 0
        && unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) } != 0
    {
        return Err(Step::Landlock);
    }
    Ok(())
}
