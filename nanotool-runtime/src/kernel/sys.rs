//! Thin, safe wrappers over the Linux calls the kernel's wait loop needs: a pipe whose read end
//! is non-blocking, a pidfd, an eventfd, `ppoll`, `killpg`. Every fd is close-on-exec from birth,
//! so a command spawned concurrently by another thread never inherits one.
//!
//! Nothing here knows about commands or output; the policy lives in the parent module.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

pub(super) use super::sys_posix::{
    ReadOutcome, has_exited, kill_group, read, reap_group, still_ours,
};
use super::sys_posix::{check, polled};

/// A pipe: `(read end, write end)`, both close-on-exec, the read end non-blocking (the write
/// end stays blocking: it is the command's stdout and stderr).
pub(super) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [-1 as RawFd; 2];
    // SAFETY: `fds` is a valid array of two ints for the kernel to fill.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: pipe2 succeeded, so both fds are open and owned by nobody else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: F_GETFL/F_SETFL on an fd we own.
    let flags = check(unsafe { libc::fcntl(read.as_raw_fd(), libc::F_GETFL) })?;
    check(unsafe { libc::fcntl(read.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) })?;
    Ok((read, write))
}

/// Grows a pipe's buffer (best effort: the per-user pipe limit may refuse it, which only costs
/// throughput). Returns the size the pipe has now, `None` if it stayed as it was.
pub(super) fn grow_pipe(fd: &OwnedFd, bytes: usize) -> Option<usize> {
    let bytes = libc::c_int::try_from(bytes).unwrap_or(libc::c_int::MAX);
    // SAFETY: F_SETPIPE_SZ on a pipe fd we own; failure is harmless.
    let ret = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETPIPE_SZ, bytes) };
    usize::try_from(ret).ok()
}

/// The calling thread under `SCHED_BATCH` while held, `SCHED_OTHER` again when dropped: a
/// batch thread's wake-ups do not preempt the task running on its CPU. Only a thread under
/// `SCHED_OTHER` is switched (a host's real-time, idle or batch thread is left as it is); the
/// switch keeps the thread's niceness and needs no privilege either way.
pub(super) struct BatchGuard(());

impl BatchGuard {
    /// Switches the calling thread to `SCHED_BATCH`; `None` if it was not under `SCHED_OTHER`
    /// or the switch was refused (it then stays as it was).
    pub(super) fn enter() -> Option<BatchGuard> {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: pid 0 is the calling thread; `param` is a valid sched_param.
        unsafe {
            if libc::sched_getscheduler(0) != libc::SCHED_OTHER {
                return None;
            }
            (libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) == 0).then_some(BatchGuard(()))
        }
    }
}

impl Drop for BatchGuard {
    fn drop(&mut self) {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: as in `enter`; back to the policy the thread had.
        unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &param) };
    }
}

/// A pidfd for a child we have not reaped yet (so its pid cannot have been reused).
pub(super) fn pidfd_open(pid: libc::pid_t) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags, returns a new close-on-exec fd or -1.
    let ret = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0 as libc::c_uint) };
    if ret < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the call returned a fresh fd that nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(ret as RawFd) })
}

/// `pidfd_send_signal`'s flag that signals the process group the pidfd's process leads
/// (Linux 6.9).
const PIDFD_SIGNAL_PROCESS_GROUP: libc::c_uint = 1 << 2;

/// `SIGKILL` to the process group led by the process of `pidfd`, through the pidfd: it reaches
/// that group even after its leader was reaped, and never another group that reused the
/// number. `Ok` when the group is empty (`ESRCH`); an error on kernels before 6.9 (`EINVAL`).
pub(super) fn pidfd_kill_group(pidfd: &OwnedFd) -> io::Result<()> {
    // SAFETY: pidfd_send_signal on a pidfd we own, no siginfo.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd.as_raw_fd(),
            libc::SIGKILL,
            std::ptr::null::<libc::siginfo_t>(),
            PIDFD_SIGNAL_PROCESS_GROUP,
        )
    };
    if ret == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::ESRCH) {
        return Ok(());
    }
    Err(e)
}

/// `struct pidfd_info` as first published (`PIDFD_INFO_SIZE_VER0`, 64 bytes).
#[repr(C)]
#[derive(Default)]
struct PidfdInfo {
    mask: u64,
    cgroupid: u64,
    ids: [u32; 11],
    exit_code: i32,
    coredump_mask: u32,
    spare: u32,
}

/// `PIDFD_GET_INFO`: `_IOWR(0xFF, 11, struct pidfd_info)` with the 64-byte struct.
const PIDFD_GET_INFO: libc::c_ulong = (3 << 30) | (64 << 16) | (0xFF << 8) | 11;
/// Ask for (and be told of) the exit status (Linux 6.15).
const PIDFD_INFO_EXIT: u64 = 1 << 3;

/// The wait status of the process of `pidfd` once the kernel has reaped it (a host that
/// ignores `SIGCHLD`), read from the pidfd (Linux 6.15); `None` on older kernels. The kernel
/// records the status right after it wakes the pidfd's pollers, so this waits briefly for it.
pub(super) fn pidfd_exit_status(pidfd: &OwnedFd) -> Option<libc::c_int> {
    let until = std::time::Instant::now() + std::time::Duration::from_millis(500);
    loop {
        let mut info = PidfdInfo {
            mask: PIDFD_INFO_EXIT,
            ..PidfdInfo::default()
        };
        // SAFETY: PIDFD_GET_INFO fills at most 64 bytes of `info`, which is 64 bytes.
        let ret = unsafe {
            libc::ioctl(
                pidfd.as_raw_fd(),
                PIDFD_GET_INFO as _,
                &mut info as *mut PidfdInfo,
            )
        };
        if ret == 0 && info.mask & PIDFD_INFO_EXIT != 0 {
            return Some(info.exit_code);
        }
        // ENOTTY/EINVAL: a kernel without the ioctl or the field.
        let retry = ret == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if !retry || std::time::Instant::now() >= until {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// A non-blocking, close-on-exec eventfd starting at zero.
pub(super) fn eventfd() -> io::Result<OwnedFd> {
    // SAFETY: eventfd takes an initial value and flags, returns a new fd or -1.
    let fd = check(unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) })?;
    // SAFETY: a fresh fd that nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Makes an eventfd readable (for good: nobody reads it back).
pub(super) fn eventfd_fire(fd: &OwnedFd) {
    let one: u64 = 1;
    // SAFETY: writes 8 bytes from a valid u64 to an eventfd we own. EAGAIN (counter
    // saturated) still leaves it readable, which is all that matters.
    unsafe { libc::write(fd.as_raw_fd(), (&one as *const u64).cast(), 8) };
}

/// Waits until one of `fds` is ready or `timeout` passes (`None` = no limit). Returns the
/// number of ready fds (0 on timeout); `EINTR` counts as 0 ready, the caller loops anyway.
pub(super) fn ppoll(fds: &mut [libc::pollfd], timeout: Option<Duration>) -> io::Result<usize> {
    let ts;
    let ts_ptr = match timeout {
        Some(t) => {
            ts = libc::timespec {
                tv_sec: t.as_secs().min(i32::MAX as u64) as libc::time_t,
                tv_nsec: t.subsec_nanos() as libc::c_long,
            };
            &ts as *const libc::timespec
        }
        None => std::ptr::null(),
    };
    // SAFETY: `fds` is a valid slice of pollfd; `ts_ptr` is null or points at `ts`, alive here.
    let ret = unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            ts_ptr,
            std::ptr::null(),
        )
    };
    polled(ret)
}

/// Whether orphans come back to this process: it is pid 1 (of its namespace) or a child
/// subreaper. Then the processes of a call's group that outlived their parent are its
/// children, and become its zombies when the group is killed.
pub(super) fn reaps_orphans() -> bool {
    let mut flag: libc::c_int = 0;
    // SAFETY: getpid cannot fail; PR_GET_CHILD_SUBREAPER writes one int to `flag`.
    unsafe {
        libc::getpid() == 1
            || (libc::prctl(libc::PR_GET_CHILD_SUBREAPER, &mut flag as *mut libc::c_int) == 0
                && flag != 0)
    }
}

/// Whether the calling process may read and search the directory `path` (effective ids).
pub(super) fn can_enter(path: &std::path::Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))?;
    // SAFETY: `c` is a valid NUL-terminated path.
    check(unsafe {
        libc::faccessat(
            libc::AT_FDCWD,
            c.as_ptr(),
            libc::R_OK | libc::X_OK,
            libc::AT_EACCESS,
        )
    })
    .map(|_| ())
}

/// `fd`, moved above 0, 1 and 2 if it sits there (a host that closed its stdio), so the
/// child's `dup3` onto stdio never overwrites it.
pub(crate) fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    // SAFETY: F_DUPFD_CLOEXEC on an fd we own returns a fresh fd >= 3 or -1.
    let moved = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
    if moved < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh fd that nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(moved) })
}

#[cfg(test)]
mod tests {
    use super::BatchGuard;

    #[test]
    fn a_batch_guard_leaves_the_thread_as_it_found_it() {
        // On a thread of its own: the policy is per thread.
        std::thread::spawn(|| {
            // SAFETY: sched_getscheduler(0) reads the calling thread's policy.
            let policy = || unsafe { libc::sched_getscheduler(0) };
            assert_eq!(policy(), libc::SCHED_OTHER);
            let guard = BatchGuard::enter().expect("SCHED_OTHER to SCHED_BATCH needs no privilege");
            assert_eq!(policy(), libc::SCHED_BATCH);
            // A thread already under batch is not switched again (nor restored by a second
            // guard's drop).
            assert!(BatchGuard::enter().is_none());
            drop(guard);
            assert_eq!(policy(), libc::SCHED_OTHER);
        })
        .join()
        .unwrap();
    }
}
