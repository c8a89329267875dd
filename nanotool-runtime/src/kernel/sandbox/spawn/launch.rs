//! The parent's side of a start: everything the child reads, prepared in this frame
//! ([`ChildArgs`]: the program, its argv and environment, the fds, the confinement, the
//! namespaces, the limits, the reaper and its record pipe); the child born (`clone`); and a
//! step the child reports failed (`step`) turned into the start's error.

use super::super::super::sys::{self, above_stdio};
use super::super::reaper::Reaper;
use super::super::start::Start;
use super::child::ChildArgs;
use super::clone::{self, reap};
use super::exec::REAPER_WORKS;
use super::namespaces::IdMaps;
use super::privileges::CapData;
use super::session::ChildLimitArgs;
use super::step::{Failure, Step};
use std::ffi::{CString, c_char, c_int};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::Ordering;

/// A started command: its pid (it leads its own group) and, where the kernel gives one with
/// the `clone`, its pidfd. In a PID namespace with a reaper, the pid is the reaper's and
/// `records` the read end of its record pipe: the command's own status
/// ([`super::super::reaper::read_record`]).
#[derive(Debug)]
pub(crate) struct Spawned {
    pub pid: libc::pid_t,
    pub pidfd: Option<OwnedFd>,
    pub records: Option<OwnedFd>,
}

/// What one start needs: the command, and how this route starts it.
pub(super) struct Launch<'a> {
    pub(super) start: &'a Start<'a>,
    pub(super) null: &'a OwnedFd,
    /// The namespaces the child is born in.
    pub(super) namespaces: Namespaces<'a>,
    pub(super) confine: Option<Confine>,
}

/// The namespaces a start's child is born in: its PID namespace's plan joined with its
/// private loopback's (`ns_plan::namespaces`), as the child reads them.
#[derive(Clone, Copy)]
pub(super) struct Namespaces<'a> {
    /// The clone flags: `CLONE_NEWPID`, `CLONE_NEWNET`, `CLONE_NEWUSER` (0: none).
    pub(super) flags: c_int,
    /// In a user namespace: the `uid_map` and `gid_map` lines (null otherwise).
    pub(super) maps: IdMaps,
    /// A pidfd of the agent, with its pid: inside a PID namespace the child's `getppid()` is
    /// 0, so it asks this pidfd whether the agent is still alive instead.
    pub(super) agent: Option<(libc::pid_t, RawFd)>,
    /// In a PID namespace: the reaper to run as its pid 1, where the plan has one.
    pub(super) reaper: Option<&'a Reaper>,
    /// In a network namespace of its own: bring its `lo` up.
    pub(super) loopback: bool,
}

impl Namespaces<'_> {
    /// The agent's own namespaces: nothing new.
    pub(super) const NONE: Namespaces<'static> = Namespaces {
        flags: 0,
        maps: ((std::ptr::null(), 0), (std::ptr::null(), 0)),
        agent: None,
        reaper: None,
        loopback: false,
    };
}

/// What the confined route applies in the child.
pub(super) struct Confine {
    /// The Landlock ruleset (-1: none).
    pub(super) ruleset: RawFd,
    /// The filter program, or null where this build has no rules for the architecture.
    pub(super) filter: *const libc::sock_fprog,
    /// The capability sets to keep (null: nothing to drop).
    pub(super) caps: *const CapData,
}

/// Starts `l.start` as `l` says: prepares everything the child reads in this frame
/// ([`ChildArgs`]), has the child born ([`clone::birth`]), and turns a step the child reports
/// failed into the start's error.
pub(super) fn launch(l: Launch<'_>) -> io::Result<Spawned> {
    let start = l.start;
    let program = CString::new(start.program.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "the program path holds a NUL"))?;
    let moved;
    let output = if start.output.as_raw_fd() > 2 {
        start.output
    } else {
        moved = above_stdio(start.output.try_clone()?)?;
        &moved
    };
    let failure = Failure::default();
    let ns = l.namespaces;
    let (ruleset, filter, caps) = match &l.confine {
        Some(c) => (c.ruleset, c.filter, c.caps),
        None => (-1, std::ptr::null(), std::ptr::null()),
    };
    // In a PID namespace, the reaper as its pid 1 (confined routes only: namespaces are
    // theirs): its record pipe, and its argv (the command's path, then the command's argv).
    let reaper = ns
        .reaper
        .filter(|_| l.confine.is_some())
        .filter(|_| REAPER_WORKS.load(Ordering::Relaxed));
    let records = match reaper {
        Some(_) => {
            let (read, write) = sys::pipe()?;
            Some((read, above_stdio(write)?))
        }
        None => None,
    };
    let reaper_argv: Vec<*const c_char> = match reaper {
        Some(_) => std::iter::once(program.as_ptr())
            .chain(start.argv.ptrs.iter().copied())
            .collect(),
        None => Vec::new(),
    };
    let args = ChildArgs {
        program: program.as_ptr(),
        argv: start.argv.as_ptr(),
        envp: start.env.as_ptr(),
        cwd: start.cwd.as_ptr(),
        null: l.null.as_raw_fd(),
        output: output.as_raw_fd(),
        confine: l.confine.is_some(),
        ruleset,
        filter,
        caps,
        // SAFETY: getpid cannot fail.
        parent: unsafe { libc::getpid() },
        agent_pidfd: ns
            .agent
            // SAFETY: getpid cannot fail. A forked host's pidfd names its parent: not ours.
            .filter(|(pid, _)| *pid == unsafe { libc::getpid() })
            .map_or(-1, |(_, fd)| fd),
        uid_map: ns.maps.0,
        gid_map: ns.maps.1,
        loopback: ns.loopback,
        mount_ns: start.mount_ns.map_or(-1, |fd| fd.as_raw_fd()),
        limits: ChildLimitArgs::new(start.limits),
        reaper: reaper.map_or(-1, Reaper::fd),
        records: records.as_ref().map_or(-1, |(_, w)| w.as_raw_fd()),
        reaper_argv: reaper_argv.as_ptr(),
        failure: &failure,
    };
    let (pid, pidfd) = clone::birth(&args, start.cgroup, ns.flags)?;
    let step = failure.step.load(Ordering::Acquire);
    if step == 0 {
        return Ok(Spawned {
            pid,
            pidfd,
            records: records.map(|(read, _)| read),
        });
    }
    // The child failed before its `execve` and has exited: reap it.
    let _ = reap(pid);
    let errno = io::Error::from_raw_os_error(failure.errno.load(Ordering::Acquire));
    Err(match Step::from(step) {
        Step::Exec => errno,
        Step::Chdir => io::Error::other(format!("cannot enter the working directory: {errno}")),
        Step::ParentGone => io::Error::other("the agent was exiting: the command was not started"),
        other => io::Error::other(format!(
            "the sandbox could not be applied ({}): {errno}",
            other.name()
        )),
    })
}
