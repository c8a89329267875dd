//! Starting a confined command: the calling thread clones a child that shares its memory
//! (`CLONE_VM | CLONE_VFORK`, as `posix_spawn` does, so the cost does not grow with the
//! agent's memory), and that child confines *itself* before its `execve`. Its steps are one
//! function (`child`), each step a call into the module of its concern:
//!
//! 1. `signals`: every signal handler back to its default (the child runs on the agent's
//!    memory: no host handler may run in it), `SIGPIPE` and `SIGCHLD` included even where the
//!    host ignores them; then the parent-death signal (`SIGKILL` when the thread that started
//!    it ends, which the kernel's run keeps alive until the call ends), checked against a
//!    parent that died before it was set. `namespaces`: in the namespaces it was born in, the
//!    agent's ids mapped and the private loopback's `lo` up. `fds`: the host's limit on open
//!    files and the reaper's fds, held before the call's own limits replace the host's;
//! 2. `session`: `setsid()`, the call's own session and process group, made before the
//!    filter refuses it (a session of its own also gives the call its own CPU share under
//!    autogroup); then the call's limits (`limits`): `oom_score_adj`, niceness, resource
//!    limits;
//! 3. `view`: where the private temp dir is a tmpfs (`tmpfs`), the mount namespace that shows
//!    it (`setns`); `chdir` to the workspace. `privileges`: `no_new_privs`, capabilities down
//!    to those that read and own files;
//! 4. `landlock`: the profile's Landlock ruleset (`landlock_restrict_self`); then `filter`:
//!    the seccomp filter;
//! 5. `fds`: stdin `/dev/null`, stdout and stderr the pipe, every other fd closed (a host fd
//!    opened without `O_CLOEXEC` never reaches the command);
//! 6. `exec`: in a PID namespace the reaper, its pid 1, else the command; no signal blocked,
//!    then `execve`.
//!
//! The parent's side of a start is `launch`: everything the child reads, prepared in its
//! frame, and the step the child reports failed (`step`) turned into the start's error. The
//! child is born in `clone`: where the call has a cgroup of its own (`kernel::cgroup`), with
//! `clone3` and `CLONE_INTO_CGROUP` (Linux 5.7), so it is born in that cgroup, no process of
//! the call ever runs outside it and nothing is moved after the start. A kernel or a filter
//! that refuses `clone3` (`ENOSYS`, `E2BIG`, `EINVAL`, `EPERM`) gets the plain `clone` from
//! then on, and the call runs in the agent's cgroup. The namespaces a start is born in are
//! planned once per kernel, each in a module of its own: the PID namespace and its reaper in
//! `ns_plan`, the private loopback in `loopback`.
//!
//! The pidfd comes from the `clone` itself (`CLONE_PIDFD`, Linux 5.2; older kernels fall back
//! to `pidfd_open`): taken before the child can exit, it names this child even where the host
//! ignores `SIGCHLD` and the kernel reaps the child by itself. The unconfined route
//! ([`spawn_plain`]) starts commands the same way, without steps 3 (but `chdir`) and 4 and
//! without closing the host's fds.
//!
//! The agent itself is never confined, and it stays outside the commands' Landlock domain, so
//! Landlock's ptrace and signal rules keep the commands off it as well. Everything the child
//! needs (paths, argv, environment, the filter, the ruleset fd) is prepared by the parent: the
//! child makes raw system calls only, allocates nothing and takes no lock. A step that fails
//! writes its name and errno where the parent reads them, and the child exits.

mod child;
pub(super) mod clone;
mod exec;
mod fds;
mod filter;
mod landlock;
mod launch;
mod loopback;
mod namespaces;
mod ns_plan;
mod privileges;
mod session;
mod signals;
mod step;
mod view;

use super::rules::{self, Enforced, Profile};
use super::seccomp::{self, FilterSpec};
use super::start::Start;
pub(crate) use clone::clone_into_works;
pub(in crate::kernel) use clone::reap;
pub(crate) use exec::CStrings;
pub(crate) use fds::dev_null;
pub(crate) use launch::Spawned;
use launch::{Confine, Launch, Namespaces, launch};
pub(crate) use loopback::{LocalNet, local_network};
use ns_plan::namespaces;
pub(crate) use ns_plan::{NsPlan, pid_namespace};
use privileges::{CapData, capabilities_to_keep};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

/// What the probe of a profile found: how far Landlock takes, whether the filter installs.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    pub landlock: Result<Enforced, String>,
    pub seccomp: Result<(), String>,
}

/// One profile's confinement, prepared once and applied by every command of the profile.
pub(crate) struct Confinement {
    /// The Landlock ruleset (`None`: Landlock enforces nothing on this kernel).
    ruleset: Option<OwnedFd>,
    /// The seccomp filter (`None`: this build has no rules for the machine's architecture,
    /// so the command is confined by Landlock, its capabilities, fds and group alone).
    filter: Option<Vec<libc::sock_filter>>,
    /// The capability sets a command starts with, when the agent has any to drop.
    caps: Option<[CapData; 2]>,
    /// `/dev/null`, read-write, the commands' stdin.
    null: OwnedFd,
    /// A private loopback per command (`"network": "local"`), and how to make it.
    pub local_network: Option<std::sync::Arc<LocalNet>>,
    pub setup: Setup,
}

impl std::fmt::Debug for Confinement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Confinement")
            .field("setup", &self.setup)
            .finish()
    }
}

impl Confinement {
    /// Builds the profile's ruleset and filter, and tries them once on a short-lived thread
    /// (which is how Landlock tells how far a ruleset takes, and how a filter the kernel
    /// refuses shows up before any command depends on it).
    ///
    /// The filter leaves out what Landlock covers where Landlock holds (see `seccomp`), so it
    /// is built from what the trial found: `spec`'s Landlock fields are filled in here, from
    /// the trial and the kernel's Landlock `abi`.
    pub(crate) fn new(
        profile: &Profile,
        spec: FilterSpec,
        abi: u32,
        rules: bool,
    ) -> io::Result<Confinement> {
        let ruleset = rules::ruleset(profile);
        let trial = match &ruleset {
            Ok(r) => Some(r.try_clone()?),
            Err(_) => None,
        };
        // The program for what the trial is expected to find (Landlock holding wherever a
        // ruleset was built on a Landlock ABI), written here: the probe thread then allocates
        // nothing (no allocator arena of its own) unless Landlock surprises it.
        let expected = trial.is_some() && abi > 0;
        let program = move |enforced: bool| {
            if rules {
                seccomp::program(&FilterSpec {
                    landlock_abi: if enforced { abi } else { 0 },
                    ..spec
                })
            } else {
                Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    "no seccomp rules for this architecture",
                ))
            }
        };
        let first = program(expected);
        let (landlock, filter, seccomp) = std::thread::Builder::new()
            .name("nanotool-sandbox-probe".into())
            .spawn(move || {
                let landlock = trial.map(|t| {
                    t.restrict_self()
                        .map(|s| Enforced::from(s.ruleset))
                        .map_err(|e| format!("landlock: {e}"))
                });
                let enforced = matches!(landlock, Some(Ok(Enforced::Fully | Enforced::Partially)));
                let filter = if enforced == expected {
                    first
                } else {
                    program(enforced)
                };
                // As in the spawn child: `no_new_privs` first, which an agent without
                // `CAP_SYS_ADMIN` needs for a filter (Landlock's trial set it where it ran;
                // on a Linux without Landlock nothing else did).
                // SAFETY: prctl(PR_SET_NO_NEW_PRIVS) on this throwaway thread only.
                unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) };
                let seccomp = match &filter {
                    Ok(prog) => seccomp::install(prog).map_err(|e| format!("seccomp: {e}")),
                    Err(e) => Err(format!("seccomp: {e}")),
                };
                (landlock, filter, seccomp)
            })?
            .join()
            .map_err(|_| io::Error::other("the sandbox's probe thread panicked"))?;
        // Without rules for this architecture the command is confined without a filter (the
        // status says so); any other failure to write the program is an error.
        let filter = match filter {
            Ok(prog) => Some(prog),
            Err(e) if e.kind() == io::ErrorKind::Unsupported => None,
            Err(e) => return Err(e),
        };
        // No trial means the ruleset could not be built: that is the reason.
        let landlock = landlock.unwrap_or_else(|| match &ruleset {
            Err(e) => Err(e.clone()),
            Ok(_) => Err("landlock: the ruleset was not tried".to_owned()),
        });
        let ruleset = match (&landlock, ruleset) {
            (Ok(Enforced::Fully | Enforced::Partially), Ok(created)) => {
                Option::<OwnedFd>::from(created)
            }
            _ => None,
        };
        let null = dev_null()?;
        Ok(Confinement {
            ruleset,
            filter,
            caps: capabilities_to_keep(profile.writes),
            null,
            local_network: None,
            setup: Setup { landlock, seccomp },
        })
    }

    /// Starts `start` confined, in the namespaces of `namespace` (the kernel's PID namespace
    /// plan) and of the profile's private loopback.
    pub(crate) fn spawn(
        &self,
        start: &Start<'_>,
        namespace: Option<&NsPlan>,
    ) -> io::Result<Spawned> {
        let fprog = match &self.filter {
            Some(filter) => Some(libc::sock_fprog {
                len: u16::try_from(filter.len()).map_err(|_| {
                    io::Error::new(io::ErrorKind::InvalidInput, "seccomp filter too long")
                })?,
                filter: filter.as_ptr().cast_mut(),
            }),
            None => None,
        };
        launch(Launch {
            start,
            null: &self.null,
            namespaces: namespaces(namespace, self.local_network.as_deref()),
            confine: Some(Confine {
                ruleset: self.ruleset.as_ref().map_or(-1, AsRawFd::as_raw_fd),
                filter: fprog
                    .as_ref()
                    .map_or(std::ptr::null(), |f| f as *const libc::sock_fprog),
                caps: self.caps.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()),
            }),
        })
    }
}

/// Starts `start` unconfined, the way confined commands start (a clone child in its own
/// group, default signal handlers, the parent-death signal, stdin `null`; the host's fds
/// without close-on-exec stay open, as with std's spawn), so the host's `SIGCHLD` setup and
/// the agent's death treat both routes alike.
pub(crate) fn spawn_plain(start: &Start<'_>, null: &OwnedFd) -> io::Result<Spawned> {
    launch(Launch {
        start,
        null,
        namespaces: Namespaces::NONE,
        confine: None,
    })
}
