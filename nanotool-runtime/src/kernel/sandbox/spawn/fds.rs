//! File descriptors around the child's confinement: `/dev/null`, the commands' stdin, opened
//! once by the parent ([`dev_null`]); in the child, before the call's limits replace the
//! host's, the host's limit on open files read and the reaper's fds copied above 4
//! ([`hold`]); then its step 5: stdin `/dev/null`, stdout and stderr the pipe, the reaper's
//! fds at 3 and 4, every other fd closed on the confined route ([`settle`]), so a host fd
//! opened without `O_CLOEXEC` never reaches the command.

use super::super::super::sys::above_stdio;
use super::step::Step;
use std::io;
use std::os::fd::{OwnedFd, RawFd};

/// `/dev/null`, opened once for the unconfined route's stdin.
pub(crate) fn dev_null() -> io::Result<OwnedFd> {
    above_stdio(
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")?
            .into(),
    )
}

/// What the child holds for [`settle`], taken before the call's limits replace the host's.
pub(super) struct Held {
    /// The host's limit on open files (closing the inherited fds may need it).
    host_files: libc::rlimit,
    /// With a reaper: the copies above 4 of its image and of its record pipe.
    reaper: Option<(libc::c_long, libc::c_long)>,
}

/// The host's limit on open files, before the call's own replaces it (closing the inherited
/// fds below may need it). With a reaper (`reaper`: its image and the write end of its record
/// pipe): both copied above 4 now, under the host's limit on open files (the call's own may
/// be lower than the host's fds), for step 5.
///
/// # Safety
/// The spawn child's only: raw system calls on its own state.
pub(super) unsafe fn hold(reaper: Option<(RawFd, RawFd)>) -> Result<Held, Step> {
    let mut host_files = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY (each call): raw system calls on this child's own state, with a buffer on this
    // stack.
    unsafe {
        if libc::syscall(
            libc::SYS_prlimit64,
            0,
            libc::RLIMIT_NOFILE,
            std::ptr::null::<libc::rlimit>(),
            &mut host_files as *mut libc::rlimit,
        ) != 0
        {
            return Err(Step::CloseFds);
        }
        let mut copies = None;
        if let Some((image, records)) = reaper {
            let image = libc::syscall(libc::SYS_fcntl, image, libc::F_DUPFD_CLOEXEC, 5);
            let records = libc::syscall(libc::SYS_fcntl, records, libc::F_DUPFD_CLOEXEC, 5);
            if image < 0 || records < 0 {
                return Err(Step::Stdio);
            }
            copies = Some((image, records));
        }
        Ok(Held {
            host_files,
            reaper: copies,
        })
    }
}

/// Step 5: stdin `null`, stdout and stderr `output` (both fds are above 2, so no dup3
/// clobbers the other); with a reaper, its record pipe at 3 and its image at 4; on the
/// confined route (`confine`) every other fd closed.
///
/// # Safety
/// The spawn child's only: raw system calls on its own fd table.
pub(super) unsafe fn settle(
    null: RawFd,
    output: RawFd,
    confine: bool,
    held: &Held,
) -> Result<(), Step> {
    // SAFETY (each call): raw system calls on this child's own fd table.
    unsafe {
        for (from, to) in [(null, 0), (output, 1), (output, 2)] {
            if libc::syscall(libc::SYS_dup3, from, to, 0) < 0 {
                return Err(Step::Stdio);
            }
        }
        // With a reaper: its record pipe at 3, its image at 4 (close-on-exec), from the copies
        // above 4 made before the limits (so that neither overwrites the other).
        let mut first_closed: u32 = 3;
        if let Some((image, records)) = held.reaper {
            if libc::syscall(libc::SYS_dup3, records, 3, 0) < 0
                || libc::syscall(libc::SYS_dup3, image, 4, libc::O_CLOEXEC) < 0
            {
                return Err(Step::Stdio);
            }
            first_closed = 5;
        }
        // (The unconfined route leaves them, as std's spawn does: with the sandbox off a
        // command has every right of the agent.)
        if confine && libc::syscall(libc::SYS_close_range, first_closed, u32::MAX, 0u32) != 0 {
            // Before Linux 5.9 (ENOSYS), or a container's own filter refusing the call
            // (EPERM): close each fd up to the limit on open files (an fd above it cannot
            // exist unless the limit was lowered after it was opened: the host's is taken
            // before the call's own), at most the first 65,536, which bounds the cost where
            // the limit is a million.
            let top = held.host_files.rlim_cur.min(1 << 16) as libc::c_long;
            for fd in libc::c_long::from(first_closed)..top {
                libc::syscall(libc::SYS_close, fd);
            }
        }
    }
    Ok(())
}
