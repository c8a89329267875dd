//! The system calls both backends make the same way (POSIX): a non-blocking read of the
//! output pipe, whether a child has exited (without reaping it), reaping a child, the group
//! kill and the bounded reap of a killed group, and `errno` as an error. `sys` (Linux) and
//! its portable twin re-export them beside what differs between them.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// Converts a `-1` return into the thread's `errno`.
pub(super) fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// The result of `poll`/`ppoll`: how many fds are ready; an interrupted wait counts as none.
pub(super) fn polled(ret: libc::c_int) -> io::Result<usize> {
    match check(ret) {
        Ok(n) => Ok(n as usize),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(0),
        Err(e) => Err(e),
    }
}

/// Result of one non-blocking read.
pub(super) enum ReadOutcome {
    /// This many bytes were read.
    Data(usize),
    /// Every write end is closed and the pipe is empty.
    Eof,
    /// Nothing to read right now.
    WouldBlock,
}

/// One `read(2)` into `buf`.
pub(super) fn read(fd: &OwnedFd, buf: &mut [u8]) -> ReadOutcome {
    loop {
        // SAFETY: reads at most `buf.len()` bytes into a valid, writable buffer.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n > 0 {
            return ReadOutcome::Data(n as usize);
        }
        if n == 0 {
            return ReadOutcome::Eof;
        }
        match io::Error::last_os_error().kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock => return ReadOutcome::WouldBlock,
            // Any other error on our own pipe (EIO, ...) means nothing more will come.
            _ => return ReadOutcome::Eof,
        }
    }
}

/// `SIGKILL` to a whole process group. Errors (`ESRCH`: the group is already empty) are
/// ignored: the point is that nothing of the group survives.
pub(super) fn kill_group(pgid: libc::pid_t) {
    if pgid > 1 {
        // SAFETY: killpg with a positive pgid; it cannot touch anything outside that group.
        unsafe { libc::killpg(pgid, libc::SIGKILL) };
    }
}

/// Whether the child `pid` has exited or not, without reaping it (`WNOWAIT`): `Some(true)`
/// exited, `Some(false)` running, `None` not our unreaped child.
fn peek(pid: libc::pid_t) -> Option<bool> {
    // SAFETY: `info` is zeroed plain data the system fills; WNOWAIT leaves the child reapable.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let ret = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        // With WNOHANG and no change, the struct stays zeroed (POSIX: `si_signo` and `si_pid`
        // 0); a child that has exited fills it (`SIGCHLD`).
        (ret == 0).then_some(info.si_signo != 0)
    }
}

/// Whether `pid` is still a child of ours that nobody has reaped (running or a zombie), so its
/// pid, and the pgid it leads, cannot belong to anyone else. False if someone else reaped it
/// (the kernel itself, for a host that ignores `SIGCHLD`; a host's `waitpid(-1)`).
pub(super) fn still_ours(pid: libc::pid_t) -> bool {
    peek(pid).is_some()
}

/// Whether the child `pid` has exited (or is gone: `ECHILD`, someone else reaped it), without
/// reaping it, for kernels without pidfds and for a child that was gone before its pidfd
/// could be opened.
pub(super) fn has_exited(pid: libc::pid_t) -> bool {
    peek(pid).unwrap_or(true)
}

/// Reaps the child `pid`, returning its wait status (`ECHILD`: the kernel reaped it already,
/// for a host that ignores `SIGCHLD`).
pub(super) fn reap(pid: libc::pid_t) -> io::Result<libc::c_int> {
    loop {
        let mut status = 0;
        // SAFETY: waits for our own child; `status` is a valid int.
        if unsafe { libc::waitpid(pid, &mut status, 0) } >= 0 {
            return Ok(status);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// How long [`reap_group`] waits for the killed members of a group to die.
const REAP_PATIENCE: Duration = Duration::from_millis(500);

/// Reaps this process's children in group `pgid` (killed just before), so a subreaper or
/// pid-1 agent keeps no zombie of a call. Bounded: a member stuck in an uninterruptible
/// sleep is left to a later wait.
pub(super) fn reap_group(pgid: libc::pid_t) {
    if pgid <= 1 {
        return;
    }
    let until = Instant::now() + REAP_PATIENCE;
    loop {
        let mut status = 0;
        // SAFETY: waits only for our own children in group `pgid`.
        let ret = unsafe { libc::waitpid(-pgid, &mut status, libc::WNOHANG) };
        if ret > 0 {
            continue;
        }
        if ret < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
            continue;
        }
        // ECHILD: none left. 0: some still dying of their SIGKILL.
        if ret < 0 || Instant::now() >= until {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}
