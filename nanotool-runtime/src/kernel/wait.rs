//! The wait loop: the pipe, the leader's pidfd and the cancel eventfd in one `ppoll`, and the
//! drain after the group is killed.
//!
//! A flood is read in large chunks: once a command has printed more than a default pipe's worth
//! and its pipe has grown, a wake-up that finds the pipe less than half full is followed by a
//! short pause in which the loop watches only the pidfd, the cancel eventfd and the clock (never
//! the pipe), so the command fills the pipe instead of waking the reader at every `write`.
//! Without it, a command at a lower priority than the agent (the default niceness 10) that
//! shares the agent's CPU group (autogroup off, or a CPU cgroup) is preempted by the reader
//! after each write: the same bytes cost about three times the CPU.

use super::cancel::CancelHandle;
use super::output::Capture;
use super::sys::{self, ReadOutcome};
use super::{BIG_PIPE, FALLBACK_TICK, READS_PER_WAKE};
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// How long the loop leaves the pipe alone after a wake-up that found a grown pipe less than
/// half full: about a third of what 1 MiB takes at a pipe's speed on a current CPU, so the
/// writer rarely blocks on a full pipe meanwhile. Exit, cancel and timeout are watched all
/// along, so a pause delays only the reading of output that is still being written.
const FLOOD_PAUSE: Duration = Duration::from_micros(100);
/// Smallest pipe worth pausing for: a smaller one fills before the pause ends.
const PAUSE_MIN_PIPE: usize = 512 * 1024;

/// When the wait loop next reads the pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pacing {
    /// The pipe's size once grown; `None` before (or if it could not grow enough).
    pipe: Option<usize>,
}

impl Pacing {
    /// The pacing of a new run: every wake-up reads, until the pipe has grown.
    pub(super) fn new() -> Self {
        Pacing { pipe: None }
    }

    /// The pipe grew to `size` bytes (`None`: it did not).
    pub(super) fn grown(&mut self, size: Option<usize>) {
        self.pipe = size.filter(|&n| n >= PAUSE_MIN_PIPE);
    }

    /// The pause before the next read of the pipe, after a wake-up that read `read` bytes and
    /// left the pipe `emptied` (a short read or `EAGAIN`) or not (the reads stopped at the
    /// per-wake bound with data left).
    pub(super) fn pause_after(&self, read: usize, emptied: bool) -> Option<Duration> {
        let pipe = self.pipe?;
        (emptied && read < pipe / 2).then_some(FLOOD_PAUSE)
    }
}

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
    let mut pacing = Pacing::new();
    // Set after a wake-up in a flood: the next wait leaves the pipe out, for that long at most.
    let mut pause: Option<Duration> = None;
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
        let watched_pipe = match pause.take() {
            Some(p) => {
                wait = Some(wait.map_or(p, |w| w.min(p)));
                None
            }
            None => pipe.as_ref(),
        };
        let mut fds = [pollfd(watched_pipe), pollfd(pidfd), pollfd(cancel_fd)];
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
            let mut emptied = false;
            let mut read = 0usize;
            for _ in 0..READS_PER_WAKE {
                match sys::read(fd, buf) {
                    ReadOutcome::Data(n) => {
                        capture.push(&buf[..n]);
                        read += n;
                        if n < buf.len() {
                            // The pipe is (almost surely) empty: poll rather than pay for an
                            // EAGAIN read.
                            emptied = true;
                            break;
                        }
                    }
                    ReadOutcome::WouldBlock => {
                        emptied = true;
                        break;
                    }
                    ReadOutcome::Eof => {
                        eof = true;
                        break;
                    }
                }
            }
            if eof {
                *pipe = None;
            } else {
                if !grown && capture.total() > 64 * 1024 {
                    pacing.grown(sys::grow_pipe(fd, BIG_PIPE));
                    grown = true;
                }
                pause = pacing.pause_after(read, emptied);
            }
        }
        if fds[1].revents != 0 {
            return Stop::Exited;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_pause_before_the_pipe_has_grown() {
        let pacing = Pacing::new();
        assert_eq!(pacing.pause_after(100, true), None);
        assert_eq!(pacing.pause_after(0, true), None);
    }

    #[test]
    fn a_pipe_that_could_not_grow_enough_is_read_at_every_wake() {
        let mut pacing = Pacing::new();
        pacing.grown(None);
        assert_eq!(pacing.pause_after(4096, true), None);
        pacing.grown(Some(64 * 1024));
        assert_eq!(pacing.pause_after(4096, true), None);
    }

    #[test]
    fn a_grown_pipe_found_less_than_half_full_is_left_alone_for_a_moment() {
        let mut pacing = Pacing::new();
        pacing.grown(Some(1 << 20));
        assert_eq!(pacing.pause_after(8192, true), Some(FLOOD_PAUSE));
        // Half full or more: the writer is ahead of the reader, read again at once.
        assert_eq!(pacing.pause_after(1 << 19, true), None);
        // The reads stopped with data left: read again at once.
        assert_eq!(pacing.pause_after(8192, false), None);
    }
}
