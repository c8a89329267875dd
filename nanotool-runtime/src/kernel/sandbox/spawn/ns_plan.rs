//! The namespaces of a confined command's start: how it gets its private PID namespace
//! ([`NsPlan`]), decided once per kernel by a trial of the clone and of the reaper, its pid 1
//! ([`pid_namespace`]); and the namespaces a start is born in, that plan joined with the
//! private loopback's (`loopback`), as the child reads them ([`namespaces`]).

use super::super::super::lifecycle::PidNamespace;
use super::super::super::sys;
use super::super::reaper::{self, Reaper};
use super::super::start::Start;
use super::clone::{reap, try_namespace};
use super::exec::{CStrings, REAPER_ERRNO};
use super::fds::dev_null;
use super::launch::{Confine, Launch, Namespaces, launch};
use super::loopback::LocalNet;
use super::namespaces::IdMaps;
use std::ffi::c_int;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::Ordering;

/// How a confined command gets its private PID namespace, decided once per kernel
/// ([`pid_namespace`]).
#[derive(Debug)]
pub(crate) struct NsPlan {
    /// `CLONE_NEWPID`, with `CLONE_NEWUSER` for an ordinary user.
    flags: c_int,
    /// With a user namespace: the lines the child writes to its `uid_map` and `gid_map`
    /// (the agent's ids mapped to themselves).
    maps: Option<(Vec<u8>, Vec<u8>)>,
    /// A pidfd of the agent, with its pid: inside its namespace the child's `getppid()` is
    /// 0, so it asks this pidfd whether the agent is still alive instead.
    agent: Option<(libc::pid_t, OwnedFd)>,
    /// The namespace's pid 1 ([`Reaper`]), or why the command itself is pid 1.
    reaper: Result<Reaper, String>,
}

impl NsPlan {
    /// Whether its commands start in a user namespace of their own.
    pub(crate) fn through_user(&self) -> bool {
        self.flags & libc::CLONE_NEWUSER != 0
    }

    /// Whether a reaper is the namespace's pid 1, or why the command is.
    pub(crate) fn reaper(&self) -> Result<(), &str> {
        self.reaper.as_ref().map(|_| ()).map_err(String::as_str)
    }
}

/// Tries the private PID namespace the way commands would get it (directly, then through
/// a user namespace), with a child that does only that and exits; returns what holds.
pub(crate) fn pid_namespace() -> (PidNamespace, Option<NsPlan>) {
    // SAFETY: getuid/getgid/getpid cannot fail.
    let (uid, gid, pid) = unsafe { (libc::getuid(), libc::getgid(), libc::getpid()) };
    let agent = sys::pidfd_open(pid).ok().map(|fd| (pid, fd));
    let direct = NsPlan {
        flags: libc::CLONE_NEWPID,
        maps: None,
        agent: None,
        reaper: Err(String::new()),
    };
    let direct_error = match try_namespace(direct.flags) {
        Ok(()) => {
            let reaper = try_reaper(&direct);
            return (
                PidNamespace::Private,
                Some(NsPlan {
                    agent,
                    reaper,
                    ..direct
                }),
            );
        }
        Err(e) => e,
    };
    let through_user = NsPlan {
        flags: libc::CLONE_NEWPID | libc::CLONE_NEWUSER,
        maps: Some((
            format!("{uid} {uid} 1\n").into_bytes(),
            format!("{gid} {gid} 1\n").into_bytes(),
        )),
        agent: None,
        reaper: Err(String::new()),
    };
    match try_namespace(through_user.flags) {
        Ok(()) => {
            let reaper = try_reaper(&through_user);
            (
                PidNamespace::ThroughUserNamespace,
                Some(NsPlan {
                    agent,
                    reaper,
                    ..through_user
                }),
            )
        }
        Err(user_error) => (
            PidNamespace::Unavailable(format!(
                "a new PID namespace: {direct_error}; through a user namespace: {user_error}"
            )),
            None,
        ),
    }
}

/// Makes the reaper and tries it the way a command starts in `plan`'s namespaces: a start of
/// `/` (which `execve` refuses) must come back from the reaper as a record of that refusal.
/// `Err` says why the command will be pid 1 instead.
fn try_reaper(plan: &NsPlan) -> Result<Reaper, String> {
    let reaper = Reaper::new().map_err(|e| format!("its image cannot be made: {e}"))?;
    let trial = NsPlan {
        flags: plan.flags,
        maps: plan.maps.clone(),
        agent: None,
        reaper: Ok(reaper),
    };
    let fail = |e: io::Error| format!("its trial could not start: {e}");
    let argv = CStrings::new(["/"]).map_err(fail)?;
    let env = CStrings::new(Vec::<Vec<u8>>::new()).map_err(fail)?;
    let (_read, write) = sys::pipe().map_err(fail)?;
    let null = dev_null().map_err(fail)?;
    let started = launch(Launch {
        start: &Start {
            program: Path::new("/"),
            argv: &argv,
            env: &env,
            cwd: c"/",
            output: &write,
            limits: None,
            cgroup: None,
            mount_ns: None,
        },
        null: &null,
        namespaces: namespaces(Some(&trial), None),
        confine: Some(Confine {
            ruleset: -1,
            filter: std::ptr::null(),
            caps: std::ptr::null(),
        }),
    });
    let refused = |errno: i32| {
        format!(
            "the kernel refused to run it from a memfd ({})",
            io::Error::from_raw_os_error(errno)
        )
    };
    match started {
        Ok(spawned) => {
            let _ = reap(spawned.pid);
            match spawned.records.as_ref().and_then(reaper::read_record) {
                Some(reaper::Record::NotStarted(libc::EACCES)) => trial.reaper,
                other => Err(format!("its trial reported {other:?}")),
            }
        }
        // The child ran `/` itself: the reaper's `execveat` was refused.
        Err(_) => Err(refused(REAPER_ERRNO.load(Ordering::Relaxed))),
    }
}

/// The id map lines of `plan` as (pointer, length) pairs, null without a user namespace.
fn map_ptrs(plan: &NsPlan) -> ((*const u8, usize), (*const u8, usize)) {
    match &plan.maps {
        Some((uid, gid)) => ((uid.as_ptr(), uid.len()), (gid.as_ptr(), gid.len())),
        None => ((std::ptr::null(), 0), (std::ptr::null(), 0)),
    }
}

/// The clone flags and id maps of a command that also has `flags` and `maps` (its PID
/// namespace's): one user namespace serves both.
fn join(net: &LocalNet, flags: c_int, maps: IdMaps) -> (c_int, IdMaps) {
    let maps = match (&net.maps, maps.0.0.is_null()) {
        (Some((uid, gid)), true) => ((uid.as_ptr(), uid.len()), (gid.as_ptr(), gid.len())),
        _ => maps,
    };
    (flags | net.flags, maps)
}

/// The namespaces a start in `plan`'s PID namespace, with the private loopback `net`, is born
/// in: one user namespace serves both.
pub(super) fn namespaces<'a>(plan: Option<&'a NsPlan>, net: Option<&LocalNet>) -> Namespaces<'a> {
    let ((mut uid_map, mut gid_map), mut flags) = match plan {
        Some(plan) => (map_ptrs(plan), plan.flags),
        None => (((std::ptr::null(), 0), (std::ptr::null(), 0)), 0),
    };
    if let Some(net) = net {
        (flags, (uid_map, gid_map)) = join(net, flags, (uid_map, gid_map));
    }
    Namespaces {
        flags,
        maps: (uid_map, gid_map),
        agent: plan
            .and_then(|n| n.agent.as_ref())
            .map(|(pid, fd)| (*pid, fd.as_raw_fd())),
        reaper: plan
            .filter(|n| n.flags & libc::CLONE_NEWPID != 0)
            .and_then(|n| n.reaper.as_ref().ok()),
        loopback: net.is_some(),
    }
}
