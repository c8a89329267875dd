//! The wait loop: the pipe, the leader's pidfd and the cancel eventfd in one `ppoll`; once the
//! group is killed, the leader's reaping (its exit status) and the drain.
//!
//! Once a command floods (more than a default pipe's worth of output), the reading thread runs
//! under `SCHED_BATCH` until the loop ends ([`sys::BatchGuard`]): its wake-ups then no longer
//! preempt the command. Without it, a command at a lower priority than the agent (the default
//! niceness 10) that shares the agent's CPU group (autogroup off, or a CPU cgroup) and its CPU
//! was preempted by the reader after every `write`: the same bytes cost three times the CPU.

use super::cancel::CancelHandle;
use super::output::Capture;
use super::sandbox::{self, spawn};
use super::sys::{self, ReadOutcome};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// Once a command has printed more than a default pipe's worth, its pipe grows to this, so a
/// flood costs fewer wake-ups.
const BIG_PIPE: usize = 1024 * 1024;
/// Reads per wake-up before the loop looks at the clock, the pidfd and the cancel handle again.
const READS_PER_WAKE: usize = 8;
/// Poll period when the kernel has no pidfd (Linux < 5.3) or the handle has no eventfd.
const FALLBACK_TICK: Duration = Duration::from_millis(5);

/// Why the wait loop stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    Exited,
    TimedOut,
    Cancelled,
}

/// Waits for the leader to exit, the deadline to pass or the cancel to fire, reading the pipe
/// meanwhile. `pipe` becomes `None` at EOF.
pub(super) fn wait_loop(
    pid: libc::pid_t,
    pidfd: Option<&OwnedFd>,
    cancel: Option<&CancelHandle>,
    pipe: &mut Option<OwnedFd>,
    capture: &mut Capture,
    buf: &mut [u8],
    deadline: Option<Instant>,
) -> Stop {
    let cancel_fd = cancel.and_then(CancelHandle::event);
    let needs_tick = pidfd.is_none() || (cancel.is_some() && cancel_fd.is_none());
    let mut grown = false;
    // Held from the flood's start to the loop's end (dropped on every return).
    let mut _batch: Option<sys::BatchGuard> = None;
    loop {
        if cancel.is_some_and(CancelHandle::is_cancelled) {
            return Stop::Cancelled;
        }
        if pidfd.is_none() && sys::has_exited(pid) {
            return Stop::Exited;
        }
        let mut wait = None;
        if let Some(deadline) = deadline {
            let now = Instant::now();
            if now >= deadline {
                return Stop::TimedOut;
            }
            wait = Some(deadline - now);
        }
        if needs_tick {
            wait = Some(wait.map_or(FALLBACK_TICK, |w| w.min(FALLBACK_TICK)));
        }
        let mut fds = [pollfd(pipe.as_ref()), pollfd(pidfd), pollfd(cancel_fd)];
        match sys::ppoll(&mut fds, wait) {
            Ok(0) => continue,
            Ok(_) => {}
            Err(_) => {
                // poll itself failing (ENOMEM) must not spin: wait one tick by sleeping.
                std::thread::sleep(FALLBACK_TICK);
                continue;
            }
        }
        if fds[2].revents != 0 {
            return Stop::Cancelled;
        }
        if fds[0].revents != 0
            && let Some(fd) = pipe.as_ref()
        {
            let mut eof = false;
            for _ in 0..READS_PER_WAKE {
                match sys::read(fd, buf) {
                    ReadOutcome::Data(n) => {
                        capture.push(&buf[..n]);
                        if n < buf.len() {
                            // The pipe is (almost surely) empty: poll rather than pay for an
                            // EAGAIN read.
                            break;
                        }
                    }
                    ReadOutcome::WouldBlock => break,
                    ReadOutcome::Eof => {
                        eof = true;
                        break;
                    }
                }
            }
            if eof {
                *pipe = None;
            } else if !grown && capture.total() > 64 * 1024 {
                sys::grow_pipe(fd, BIG_PIPE);
                _batch = sys::BatchGuard::enter();
                grown = true;
            }
        }
        if fds[1].revents != 0 {
            return Stop::Exited;
        }
    }
}

/// Reaps the leader `pid` (its group killed): its exit status, or why it is lost, and the
/// errno of an `execve` that failed, when its PID namespace's reaper recorded one in
/// `records`.
pub(super) fn reap(
    pid: libc::pid_t,
    pidfd: Option<&OwnedFd>,
    records: Option<&OwnedFd>,
) -> (io::Result<ExitStatus>, Option<i32>) {
    // Reaped by the kernel (a host that ignores SIGCHLD): the pidfd still tells (6.15).
    let status = match spawn::reap(pid) {
        Err(e) if e.raw_os_error() == Some(libc::ECHILD) => {
            pidfd.and_then(sys::pidfd_exit_status).ok_or(e)
        }
        other => other,
    }
    .map(ExitStatus::from_raw);
    // In a PID namespace the leader is its reaper: the command's own status, or its
    // `execve`'s failure, is what the reaper recorded (nothing when the call was killed).
    match records.and_then(sandbox::read_record) {
        Some(sandbox::Record::Ended(raw)) => (Ok(ExitStatus::from_raw(raw)), None),
        Some(sandbox::Record::NotStarted(errno)) => (status, Some(errno)),
        None => (status, None),
    }
}

/// Reads the pipe until EOF or `until`, whichever comes first.
pub(super) fn drain(fd: &OwnedFd, capture: &mut Capture, buf: &mut [u8], until: Instant) {
    loop {
        match sys::read(fd, buf) {
            ReadOutcome::Data(n) => {
                capture.push(&buf[..n]);
                continue;
            }
            ReadOutcome::Eof => return,
            ReadOutcome::WouldBlock => {}
        }
        let now = Instant::now();
        if now >= until {
            return;
        }
        let mut fds = [pollfd(Some(fd))];
        if sys::ppoll(&mut fds, Some(until - now)).is_err() {
            return;
        }
    }
}

fn pollfd(fd: Option<&OwnedFd>) -> libc::pollfd {
    libc::pollfd {
        // A negative fd is skipped by poll.
        fd: fd.map_or(-1, AsRawFd::as_raw_fd),
        events: libc::POLLIN,
        revents: 0,
    }
}
