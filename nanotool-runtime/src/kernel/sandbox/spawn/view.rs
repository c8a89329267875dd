//! The child's view of the file system, the first half of its step 3: the mount namespace of
//! the private temp dir's tmpfs where there is one (`tmpfs`; entering it puts the root and the
//! working directory at its own), then the workspace as its working directory.

use super::step::Step;
use std::ffi::c_char;
use std::os::fd::RawFd;

/// Enters the temp dir's mount namespace `mount_ns` (-1: none), then `chdir`s to `cwd`.
///
/// # Safety
/// The spawn child's only: raw system calls; `cwd` is a NUL-terminated path.
pub(super) unsafe fn enter(mount_ns: RawFd, cwd: *const c_char) -> Result<(), Step> {
    // SAFETY (each call): raw system calls on this child's own state, with a path the parent
    // prepared and keeps alive.
    unsafe {
        if mount_ns >= 0 && libc::syscall(libc::SYS_setns, mount_ns, libc::CLONE_NEWNS) != 0 {
            return Err(Step::MountNamespace);
        }
        if libc::syscall(libc::SYS_chdir, cwd) != 0 {
            return Err(Step::Chdir);
        }
    }
    Ok(())
}
