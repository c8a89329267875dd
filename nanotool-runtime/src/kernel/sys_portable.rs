//! The portable backend's system calls (POSIX only), under the names the kernel's wait loop
//! uses on Linux (`sys`): a pipe whose read end is non-blocking, `poll`, `killpg`, `waitid`,
//! `waitpid`. What Linux alone has (pidfds, eventfds, `F_SETPIPE_SZ`, the child subreaper) is
//! absent: the pidfd and eventfd calls fail, and the wait loop then polls the child and the
//! cancel handle on its short tick, as it does on a Linux that lacks them.
//!
//! Without `pipe2`, the pipe's fds become close-on-exec just after they are made: a command
//! that another thread spawns in between may inherit one, which only delays the end of its
//! output until that command exits (the wait loop ends on the child's exit anyway).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

pub(super) use super::sys_posix::{
    ReadOutcome, has_exited, kill_group, read, reap_group, still_ours,
};
use super::sys_posix::{check, polled};

/// The error of a Linux-only call on this backend.
fn unsupported<T>() -> io::Result<T> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "not available on this OS",
    ))
}

/// A pipe: `(read end, write end)`, both close-on-exec, the read end non-blocking.
pub(super) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [-1 as RawFd; 2];
    // SAFETY: `fds` is a valid array of two ints for the system to fill.
    check(unsafe { libc::pipe(fds.as_mut_ptr()) })?;
    // SAFETY: pipe succeeded, so both fds are open and owned by nobody else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    for fd in [&read, &write] {
        // SAFETY: F_SETFD on an fd we own.
        check(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) })?;
    }
    // SAFETY: F_GETFL/F_SETFL on an fd we own.
    let flags = check(unsafe { libc::fcntl(read.as_raw_fd(), libc::F_GETFL) })?;
    check(unsafe { libc::fcntl(read.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) })?;
    Ok((read, write))
}

/// A pipe's size is the system's here.
pub(super) fn grow_pipe(_fd: &OwnedFd, _bytes: usize) {}

/// The reading thread's scheduling policy during a flood: left as it is on this backend
/// (`SCHED_BATCH` is Linux's), so there is never a guard.
pub(super) struct BatchGuard(());

impl BatchGuard {
    /// Never switches here.
    pub(super) fn enter() -> Option<BatchGuard> {
        None
    }
}

/// No pidfds on this backend.
pub(super) fn pidfd_open(_pid: libc::pid_t) -> io::Result<OwnedFd> {
    unsupported()
}

/// No pidfds on this backend: the kernel kills the group by number.
pub(super) fn pidfd_kill_group(_pidfd: &OwnedFd) -> io::Result<()> {
    unsupported()
}

/// No pidfds on this backend.
pub(super) fn pidfd_exit_status(_pidfd: &OwnedFd) -> Option<libc::c_int> {
    None
}

/// No eventfds on this backend: a cancel handle is polled on the wait loop's tick.
pub(super) fn eventfd() -> io::Result<OwnedFd> {
    unsupported()
}

/// Never called: no eventfd exists here.
pub(super) fn eventfd_fire(_fd: &OwnedFd) {}

/// Waits until one of `fds` is ready or `timeout` passes (`None` = no limit), with `poll`
/// (the timeout rounded up to a millisecond). Returns the number of ready fds (0 on timeout);
/// `EINTR` counts as 0 ready, the caller loops anyway.
pub(super) fn ppoll(fds: &mut [libc::pollfd], timeout: Option<Duration>) -> io::Result<usize> {
    let ms = match timeout {
        Some(t) => {
            libc::c_int::try_from(t.as_nanos().div_ceil(1_000_000)).unwrap_or(libc::c_int::MAX)
        }
        None => -1,
    };
    // SAFETY: `fds` is a valid slice of pollfd.
    let ret = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
    polled(ret)
}

/// Whether orphans come back to this process: only as pid 1 here.
pub(super) fn reaps_orphans() -> bool {
    // SAFETY: getpid cannot fail.
    unsafe { libc::getpid() == 1 }
}

/// Whether the calling process may read and search the directory `path`.
pub(super) fn can_enter(path: &std::path::Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))?;
    // SAFETY: `c` is a valid NUL-terminated path.
    check(unsafe { libc::access(c.as_ptr(), libc::R_OK | libc::X_OK) }).map(|_| ())
}
