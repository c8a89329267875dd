//! A cgroup v2 child per call, where the host delegates one ([`CgroupMode`] turns it off,
//! [`CgroupStatus`] says what holds).
//!
//! Found once per kernel ([`Cgroups::new`]): the cgroup v2 mount (where systems mount it, else
//! `/proc/self/mountinfo`), the agent's own cgroup (`0::/path` in `/proc/self/cgroup`),
//! whether this process may create cgroups in it (a delegated cgroup: a `mkdir` that succeeds), and which of the `pids`,
//! `memory` and `cpu` controllers it can hand to them. The calls' cgroups live in a folder of
//! their own made inside the agent's cgroup, `nanotool-<pid>-<n>`: cgroup v2 lets a cgroup hand
//! controllers to its children only while it holds no process (the root cgroup excepted), and
//! that folder never holds one. The agent itself is never moved: a controller its own cgroup
//! cannot hand down (it holds the agent) is named in the status, not forced.
//!
//! Per call: an empty cgroup from a small pool (a new one when the pool is empty), its limit
//! files written where they differ from what it holds ([`call_files`]), the command started
//! straight into it (`sandbox::spawn`: `clone3` with `CLONE_INTO_CGROUP`, no move after the
//! start); at the end `cgroup.kill` when anything is still in it (a process that left the
//! call's group and session included), a bounded wait for `populated 0`, the limit events
//! read (`memory.events` `oom_kill`, `pids.events` `max`), and the cgroup back in the pool.
//! Everything is removed when the kernel drops, and by [`remove_cgroup_tree`] on the exit
//! paths that run no destructor. What does not live here: the `clone3` itself (`sandbox::spawn`);
//! the status and the probes of the host that find the mount, the agent's cgroup and what it
//! may hand down (`status`).

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

mod status;

pub use status::CgroupStatus;
use status::{
    WANTED, cgroup_folder, cgroup2_mount, lists_wanted, own_cgroup, usual_folder, usual_mount,
    writable,
};

/// Whether the kernel gives each call a cgroup v2 child of its own where the host delegates
/// one (CLI `--cgroup auto|on|off`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CgroupMode {
    /// A cgroup per call where the agent's cgroup v2 is delegated (this process may create
    /// cgroups in it) and the cgroup does something there: it has a controller to bound the
    /// call with (pids, memory, cpu), or the commands can leave their process group (the
    /// sandbox is off, or this build has no filter for the machine), which only `cgroup.kill`
    /// then reaches. Elsewhere none, and the status says why: a confined command cannot leave
    /// its group, so on a host that hands down no controller a cgroup would cost each call a
    /// little and bound nothing.
    #[default]
    Auto,
    /// A cgroup per call wherever the agent's cgroup v2 is delegated, even with no controller
    /// to set (`cgroup.kill` at the end of each call all the same).
    On,
    /// No cgroup per call: commands run in the agent's cgroup.
    Off,
}

impl std::str::FromStr for CgroupMode {
    type Err = String;
    /// `auto`, `on` or `off`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(CgroupMode::Auto),
            "on" => Ok(CgroupMode::On),
            "off" => Ok(CgroupMode::Off),
            _ => Err(format!(
                "unknown cgroup mode `{s}`; write `auto`, `on` or `off`"
            )),
        }
    }
}

/// How long the end of a call waits for its cgroup to empty after `cgroup.kill` (a process
/// stuck in the kernel may take longer; its cgroup is then removed later, not reused).
const EMPTY_WAIT: Duration = Duration::from_secs(2);

/// How long the end of a call lets the processes the group kill took leave the cgroup
/// before it kills what is left with `cgroup.kill`.
const LEAVE_WAIT: Duration = Duration::from_millis(5);

/// Empty cgroups kept for the next calls, at most (beyond, a finished call's is removed).
const POOL_MAX: usize = 8;

/// The controllers a call's cgroup has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Controllers {
    pub pids: bool,
    pub memory: bool,
    pub cpu: bool,
}

impl Controllers {
    fn set(&mut self, name: &str) {
        match name {
            "pids" => self.pids = true,
            "memory" => self.memory = true,
            "cpu" => self.cpu = true,
            _ => {}
        }
    }
}

/// What a call's cgroup is set from: the call's process and memory limits and its niceness
/// (from the kernel's limits: `Limits::for_cgroup`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CallLimits {
    /// `pids.max` (`None`: `max`).
    pub processes: Option<u64>,
    /// `memory.max`, bytes (`None`: `max`, and swap allowed).
    pub memory: Option<u64>,
    /// The commands' niceness, as `cpu.weight`.
    pub nice: i32,
}

/// The files of a call's cgroup and what each gets, for a call with `limits`, where the
/// cgroup has `controllers`: `pids.max` (the process limit), `memory.max` (the memory limit,
/// for the whole call), `memory.swap.max` 0 (the call cannot move its memory to swap and
/// thrash the host; `max` without a memory limit), `memory.oom.group` 1 (an OOM kill takes
/// the whole call), `cpu.weight` (the call's niceness in cgroup terms).
pub(crate) fn call_files(
    controllers: Controllers,
    limits: CallLimits,
) -> Vec<(&'static str, String)> {
    let or_max = |v: Option<u64>| v.map_or_else(|| "max".to_owned(), |n| n.to_string());
    let mut files = Vec::new();
    if controllers.pids {
        files.push(("pids.max", or_max(limits.processes)));
    }
    if controllers.memory {
        files.push(("memory.max", or_max(limits.memory)));
        let swap = if limits.memory.is_some() { "0" } else { "max" };
        files.push(("memory.swap.max", swap.to_owned()));
        files.push(("memory.oom.group", "1".to_owned()));
    }
    if controllers.cpu {
        files.push(("cpu.weight", cpu_weight(limits.nice).to_string()));
    }
    files
}

/// A niceness as a cgroup `cpu.weight` (1–10000, 100 for nice 0): the scheduler's weight of
/// that niceness (each step is 1.25 times the next), scaled so that nice 0 is 100.
pub(crate) fn cpu_weight(nice: i32) -> u32 {
    let w = (100.0 / 1.25f64.powi(nice.clamp(-20, 19))).round();
    w.clamp(1.0, 10_000.0) as u32
}

/// The number after `key` in a flat-keyed cgroup file (`oom_kill 2`); 0 when absent.
pub(crate) fn counter(text: &str, key: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0)
}

/// One call's cgroup; its files are open while a call uses it, and in the pool for one idle
/// cgroup only (the next call, in the usual one-at-a-time case, opens nothing; the pool
/// holds two fds however many calls ran at once).
#[derive(Debug)]
pub(crate) struct CallCgroup {
    path: PathBuf,
    files: Option<Files>,
    /// The limit files as last written.
    written: Vec<(&'static str, String)>,
    /// `oom_kill` and `max` when the cgroup last came back to the pool.
    oom_kills: u64,
    pids_refused: u64,
}

/// The open files of a call's cgroup.
#[derive(Debug)]
struct Files {
    /// The folder (`O_PATH`), for `CLONE_INTO_CGROUP`.
    dir: File,
    /// `cgroup.events`, read with `pread` and polled for the change to `populated 0`.
    events: File,
    /// `memory.events` and `pids.events`, where the controllers are on.
    memory_events: Option<File>,
    pids_events: Option<File>,
}

impl CallCgroup {
    /// The folder's fd, which the command is started into (`None`: not open).
    pub(crate) fn fd(&self) -> Option<BorrowedFd<'_>> {
        self.files.as_ref().map(|f| f.dir.as_fd())
    }

    /// Opens its files, for a call (`controllers`: which event files exist).
    fn open(&mut self, controllers: Controllers) -> io::Result<()> {
        if self.files.is_some() {
            return Ok(());
        }
        let path = &self.path;
        let open = |name: &str| File::open(path.join(name));
        self.files = Some(Files {
            dir: std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_PATH | libc::O_DIRECTORY)
                .open(path)?,
            events: open("cgroup.events")?,
            memory_events: controllers
                .memory
                .then(|| open("memory.events"))
                .transpose()?,
            pids_events: controllers.pids.then(|| open("pids.events")).transpose()?,
        });
        Ok(())
    }
}

/// What a call's cgroup recorded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Recorded {
    /// The OOM killer killed in it (its `memory.max` was reached).
    pub oom_killed: bool,
    /// A new process was refused (its `pids.max` was reached).
    pub pids_refused: bool,
}

/// The calls' cgroups of one kernel.
#[derive(Debug)]
pub(crate) struct Cgroups {
    parent: PathBuf,
    controllers: Controllers,
    pool: Mutex<Vec<CallCgroup>>,
    /// The next call cgroup's number.
    next: AtomicU64,
}

/// The kernels made by this process so far: each one's folder has its own number.
static KERNELS: AtomicU64 = AtomicU64::new(0);

impl Cgroups {
    /// Finds the agent's cgroup and makes the calls' folder in it (see the module's doc);
    /// `probe` tries to start a process into a cgroup (`None` and the status say why not).
    ///
    /// `group_holds`: the commands cannot leave their process group (the sandbox's filter
    /// refuses `setsid` and `setpgid`), so in [`CgroupMode::Auto`] a cgroup without a
    /// controller is not made.
    pub(crate) fn new(
        mode: CgroupMode,
        nice: i32,
        group_holds: bool,
        probe: impl Fn(BorrowedFd<'_>) -> io::Result<()>,
    ) -> (Option<Cgroups>, CgroupStatus) {
        let none = |note: String| {
            (
                None,
                CgroupStatus {
                    note: Some(note),
                    ..CgroupStatus::default()
                },
            )
        };
        if mode == CgroupMode::Off {
            return none(
                "turned off (`--cgroup off`, or `\"cgroup\": \"off\"` in the config file)"
                    .to_owned(),
            );
        }
        // Where none of the controllers is bound to cgroup v2 at all (a host that keeps them
        // in v1 hierarchies), no folder of it can have one: `auto` needs to look no further
        // (a folder's controllers are a subset of its parent's, up to the hierarchy's root,
        // the mount's).
        let mount = usual_mount();
        if mode == CgroupMode::Auto
            && group_holds
            && let Some(mount) = &mount
            && let Ok(available) = std::fs::read_to_string(mount.join("cgroup.controllers"))
            && !lists_wanted(&available)
        {
            return none(format!(
                "none of pids, memory, cpu is in this cgroup v2 hierarchy ({} has {}), and confined commands cannot leave their process group, which the group kill reaches whole; --cgroup on makes one per call all the same",
                mount.display(),
                match available.trim() {
                    "" => "no controller",
                    listed => listed,
                }
            ));
        }
        let proc_cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        let own = own_cgroup(&proc_cgroup);
        // Where systems mount the hierarchy first (no mount table to read), then the table.
        let usual = mount.and_then(|mount| {
            let agent = usual_folder(&mount, own?)?;
            Some((mount, agent))
        });
        let found = match usual {
            Some((mount, agent)) => Some((mount, Some(agent))),
            None => std::fs::read_to_string("/proc/self/mountinfo")
                .ok()
                .as_deref()
                .and_then(cgroup2_mount)
                .map(|(mount, root)| {
                    let agent = own.and_then(|p| cgroup_folder(&mount, &root, p));
                    (mount, agent)
                }),
        };
        let Some((mount, agent)) = found else {
            return none("no cgroup v2 hierarchy is mounted".to_owned());
        };
        let Some(agent) = agent else {
            return none(format!(
                "the agent's cgroup v2 is not under {}",
                mount.display()
            ));
        };
        if !writable(&agent) {
            return none(format!(
                "the agent's cgroup {} is not delegated to this user: it may not create cgroups there",
                agent.display()
            ));
        }
        if mode == CgroupMode::Auto && group_holds {
            let available =
                std::fs::read_to_string(agent.join("cgroup.controllers")).unwrap_or_default();
            if !lists_wanted(&available) {
                return none(format!(
                    "none of pids, memory, cpu is available in {}, and confined commands cannot leave their process group, which the group kill reaches whole; --cgroup on makes one per call all the same",
                    agent.display()
                ));
            }
        }
        // The calls' folders live in the agent's cgroup: only where no other user may write
        // there (a root agent started from a cgroup delegated to an ordinary user would
        // otherwise sweep, and make its calls' cgroups in, a folder that user controls).
        let own = match super::sandbox::own_dir::OwnDir::existing(&agent) {
            Ok(own) => own,
            Err(e) => return none(format!("the agent's cgroup is not this user's alone: {e}")),
        };
        sweep_stale(&own);
        let n = KERNELS.fetch_add(1, Ordering::Relaxed);
        let parent = agent.join(format!("nanotool-{}-{n}", std::process::id()));
        if let Err(e) = std::fs::create_dir(&parent) {
            return none(format!(
                "the agent's cgroup {} is not delegated to this user: {e}",
                agent.display()
            ));
        }
        let mut missing = Vec::new();
        let controllers = enable(&agent, &parent, &mut missing);
        // All the calls together weigh as one process of the commands' niceness beside the
        // agent's own threads; each call then gets its share of that.
        if controllers.cpu
            && let Err(e) = std::fs::write(parent.join("cpu.weight"), cpu_weight(nice).to_string())
        {
            missing.push((
                "cpu.weight".to_owned(),
                format!("cpu.weight cannot be set in {}: {e}", parent.display()),
            ));
        }
        let status = CgroupStatus {
            parent: Some(parent.clone()),
            controllers: WANTED
                .iter()
                .filter(|c| match **c {
                    "pids" => controllers.pids,
                    "memory" => controllers.memory,
                    _ => controllers.cpu,
                })
                .map(|c| (*c).to_owned())
                .collect(),
            missing,
            note: None,
            freezes: !parent.join("cgroup.kill").exists(),
        };
        let cgroups = Cgroups {
            parent,
            controllers,
            pool: Mutex::new(Vec::new()),
            next: AtomicU64::new(0),
        };
        // One trial start into a first cgroup, which then serves the first call.
        let tried = cgroups.make().and_then(|mut cg| {
            cg.open(cgroups.controllers)?;
            cg.fd().map_or(Ok(()), &probe).map(|()| cg)
        });
        match tried {
            Ok(cg) => {
                cgroups.lock().push(cg);
                (Some(cgroups), status)
            }
            Err(e) => {
                drop(cgroups);
                none(format!(
                    "clone3 with CLONE_INTO_CGROUP cannot start a command in a cgroup here: {e}"
                ))
            }
        }
    }

    /// A cgroup for a call with `limits`, its files written.
    pub(crate) fn acquire(&self, limits: CallLimits) -> io::Result<CallCgroup> {
        // The idle cgroup whose files are open, if it is there.
        let pooled = {
            let mut pool = self.lock();
            match pool.iter().position(|c| c.files.is_some()) {
                Some(i) => Some(pool.swap_remove(i)),
                None => pool.pop(),
            }
        };
        let mut cg = match pooled {
            Some(cg) => cg,
            None => self.make()?,
        };
        if let Err(e) = cg.open(self.controllers) {
            let e = io::Error::new(
                e.kind(),
                format!(
                    "the call's cgroup {} cannot be opened: {e}",
                    cg.path.display()
                ),
            );
            self.finish(cg);
            return Err(e);
        }
        for (file, value) in call_files(self.controllers, limits) {
            if cg.written.iter().any(|(f, v)| *f == file && *v == value) {
                continue;
            }
            match std::fs::write(cg.path.join(file), &value) {
                Ok(()) => {}
                // Without swap accounting there is no swap to bound.
                Err(e) if file == "memory.swap.max" && e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => {
                    let e = io::Error::new(
                        e.kind(),
                        format!(
                            "the call's cgroup cannot be set up ({} {value}): {e}",
                            cg.path.join(file).display()
                        ),
                    );
                    self.finish(cg);
                    return Err(e);
                }
            }
            cg.written.retain(|(f, _)| *f != file);
            cg.written.push((file, value));
        }
        Ok(cg)
    }

    /// Ends the call of `cg`: `cgroup.kill` if anything is left in it, a bounded wait for it
    /// to empty, then its limit events; the cgroup back in the pool (or removed).
    pub(crate) fn finish(&self, mut cg: CallCgroup) -> Recorded {
        // What the group kill took leaves within moments; only what escaped the group needs
        // `cgroup.kill`, after which the cgroup is not reused: Linux (6.18, measured) then
        // kills every process later started into it.
        let mut recorded = Recorded::default();
        let (emptied, killed) = match &cg.files {
            // Never opened: nothing was started in it.
            None => (true, false),
            Some(files) => {
                let ended = if wait_empty(&files.events, LEAVE_WAIT) {
                    (true, false)
                } else {
                    (empty(&cg.path, &files.events), true)
                };
                if let Some(f) = &files.memory_events {
                    let n = counter(&pread(f), "oom_kill");
                    recorded.oom_killed = n > cg.oom_kills;
                    cg.oom_kills = n;
                }
                if let Some(f) = &files.pids_events {
                    let n = counter(&pread(f), "max");
                    recorded.pids_refused = n > cg.pids_refused;
                    cg.pids_refused = n;
                }
                ended
            }
        };
        // A cgroup whose memory is still charged (pages the call left in a tmpfs: a TMPDIR
        // on one) would start the next call near its `memory.max`: removed instead (the
        // charges go with it), not reused.
        let charged = self.controllers.memory && still_charged(&cg.path);
        let mut pool = self.lock();
        if emptied && !killed && !charged && pool.len() < POOL_MAX {
            if pool.iter().any(|c| c.files.is_some()) {
                cg.files = None;
            }
            pool.push(cg);
        } else {
            drop(pool);
            // A cgroup that did not empty in time is removed with the folder, later.
            if emptied {
                let _ = std::fs::remove_dir(&cg.path);
            }
        }
        recorded
    }

    /// A new, empty cgroup for calls.
    fn make(&self) -> io::Result<CallCgroup> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let path = self.parent.join(format!("call-{n}"));
        std::fs::create_dir(&path).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot create the call's cgroup {}: {e}", path.display()),
            )
        })?;
        Ok(CallCgroup {
            path,
            files: None,
            written: Vec::new(),
            oom_kills: 0,
            pids_refused: 0,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<CallCgroup>> {
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Cgroups {
    /// Every call's cgroup emptied and removed, then the folder.
    fn drop(&mut self) {
        self.lock().clear();
        let _ = remove_cgroup_tree(&self.parent);
    }
}

/// Removes the calls' folders that agents no longer running left in `agent` (an agent killed
/// with `SIGKILL` runs no cleanup; its commands died with it, by their parent-death signal).
/// Only directories of this user named as the kernel names them are touched (looked at
/// without following or opening anything else: [`own_dir::open_own_entry`]), and the sweep
/// stops at [`own_dir::SweepBudget`].
///
/// [`own_dir::open_own_entry`]: super::sandbox::own_dir::open_own_entry
/// [`own_dir::SweepBudget`]: super::sandbox::own_dir::SweepBudget
fn sweep_stale(agent: &super::sandbox::own_dir::OwnDir) {
    use super::sandbox::own_dir;
    let mut budget = own_dir::SweepBudget::new();
    for name in own_dir::entry_names(agent.fd(), &mut budget) {
        let pid = name
            .to_str()
            .ok()
            .and_then(|n| n.strip_prefix("nanotool-"))
            .and_then(|n| n.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok());
        if let Some(pid) = pid
            && pid != std::process::id()
            && !Path::new(&format!("/proc/{pid}")).exists()
            && own_dir::open_own_entry(agent.fd(), &name).is_some()
        {
            use std::os::unix::ffi::OsStrExt;
            let path = agent
                .path()
                .join(std::ffi::OsStr::from_bytes(name.as_bytes()));
            let _ = remove_cgroup_tree(&path);
        }
    }
}

/// Turns on in `agent`'s children what it can of [`WANTED`], then in `parent`'s: what the
/// calls' cgroups get. Each controller that cannot be had is named in `missing`, with why.
fn enable(agent: &Path, parent: &Path, missing: &mut Vec<(String, String)>) -> Controllers {
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let available = read(&agent.join("cgroup.controllers"));
    let mut handed = read(&agent.join("cgroup.subtree_control"));
    let mut got = Controllers::default();
    for c in WANTED {
        if !available.split_whitespace().any(|a| a == c) {
            missing.push((
                c.to_owned(),
                format!("{c} is not available in {}", agent.display()),
            ));
            continue;
        }
        if !handed.split_whitespace().any(|a| a == c) {
            // Allowed in the root cgroup, in one without processes, and for the threaded
            // controllers (pids, cpu); refused (EBUSY) for memory in a cgroup that holds the
            // agent, which is then not moved.
            if let Err(e) = std::fs::write(agent.join("cgroup.subtree_control"), format!("+{c}")) {
                missing.push((
                    c.to_owned(),
                    format!(
                        "{c} cannot be handed down by {} ({e}; cgroup v2 refuses it to a cgroup that holds processes, and the agent is not moved: start it in a leaf cgroup whose parent enables {c})",
                        agent.display()
                    ),
                ));
                continue;
            }
            handed.push_str(&format!(" {c}"));
        }
        match std::fs::write(parent.join("cgroup.subtree_control"), format!("+{c}")) {
            Ok(()) => got.set(c),
            Err(e) => missing.push((
                c.to_owned(),
                format!("{c} cannot be enabled in {}: {e}", parent.display()),
            )),
        }
    }
    got
}

/// More memory than a call's cgroup may keep charged and still be reused (`memory.current`,
/// bytes): what an empty cgroup's kernel bookkeeping holds is far below it.
const REUSE_CHARGE: u64 = 1 << 20;

/// Whether the empty cgroup at `path` still has more than [`REUSE_CHARGE`] of memory charged
/// to it (or its `memory.current` cannot be read).
fn still_charged(path: &Path) -> bool {
    std::fs::read_to_string(path.join("memory.current"))
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok())
        .is_none_or(over_reuse_charge)
}

/// Whether `bytes` charged to an empty cgroup keep it from being reused.
fn over_reuse_charge(bytes: u64) -> bool {
    bytes > REUSE_CHARGE
}

/// The text of a small cgroup file read from its start.
fn pread(f: &File) -> String {
    let mut buf = [0u8; 512];
    let n = f.read_at(&mut buf, 0).unwrap_or(0);
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// Whether `events` (a `cgroup.events`) says the cgroup holds a process.
fn populated(events: &File) -> bool {
    counter(&pread(events), "populated") != 0
}

/// Kills what is left in the cgroup at `path` and waits, at most [`EMPTY_WAIT`], for it to
/// empty: whether it did. `cgroup.kill` (Linux 5.14) kills every process of it at once.
/// Before it, each pid of `cgroup.procs` (its own and its sub-cgroups') is killed, with the
/// cgroup frozen first (`cgroup.freeze`, Linux 5.2: once frozen a process cannot fork, and a
/// fatal signal still ends it) and the lists read again until the cgroup is empty, so that a
/// process forked while the others were being killed is killed too.
fn empty(path: &Path, events: &File) -> bool {
    empty_with(path, events, true)
}

/// [`empty`], with `cgroup.kill` tried or not (as before Linux 5.14).
fn empty_with(path: &Path, events: &File, kill_file: bool) -> bool {
    if !populated(events) {
        return true;
    }
    if kill_file && std::fs::write(path.join("cgroup.kill"), "1").is_ok() {
        return wait_empty(events, EMPTY_WAIT);
    }
    let frozen = std::fs::write(path.join("cgroup.freeze"), "1").is_ok();
    let until = Instant::now() + EMPTY_WAIT;
    let emptied = loop {
        for pid in procs_below(path) {
            // SAFETY: a signal to a process of the call's cgroup.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        let left = until.saturating_duration_since(Instant::now());
        if wait_empty(events, left.min(Duration::from_millis(20))) {
            break true;
        }
        if left.is_zero() {
            break false;
        }
    };
    if frozen {
        let _ = std::fs::write(path.join("cgroup.freeze"), "0");
    }
    emptied
}

/// The processes of the cgroup at `path` and of every cgroup below it (a command with the
/// agent's rights may have made some).
fn procs_below(path: &Path) -> Vec<libc::pid_t> {
    let mut pids = Vec::new();
    let mut todo = vec![path.to_path_buf()];
    while let Some(dir) = todo.pop() {
        pids.extend(
            std::fs::read_to_string(dir.join("cgroup.procs"))
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|p| p.parse::<libc::pid_t>().ok()),
        );
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push(entry.path());
            }
        }
    }
    pids
}

/// Waits, at most `wait`, for `events` (a `cgroup.events`) to say `populated 0`: whether it
/// did.
fn wait_empty(events: &File, wait: Duration) -> bool {
    let until = Instant::now() + wait;
    while populated(events) {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        // `cgroup.events` wakes a poller (POLLPRI) when it changes; the timeout bounds it.
        let mut pfd = libc::pollfd {
            fd: events.as_raw_fd(),
            events: libc::POLLPRI,
            revents: 0,
        };
        let ms = left.as_millis().clamp(1, 50) as libc::c_int;
        // SAFETY: one valid pollfd.
        unsafe { libc::poll(&mut pfd, 1, ms) };
    }
    true
}

/// Empties and removes the cgroup folder `dir` and every cgroup in it (each: `cgroup.kill`,
/// a bounded wait, `rmdir`): the calls' folder of a kernel ([`CgroupStatus::parent`]), for a
/// host that exits without dropping the kernel (the `serve` command on a signal). An error
/// names the cgroup left behind; a folder that is not a cgroup is refused.
pub fn remove_cgroup_tree(dir: &Path) -> io::Result<()> {
    let events = File::open(dir.join("cgroup.events")).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("{} is not a cgroup (no cgroup.events): {e}", dir.display()),
        )
    })?;
    // Every child is emptied and removed even when one cannot be (a process stuck in the
    // kernel): the first error is told at the end.
    let mut first_error = None;
    for entry in std::fs::read_dir(dir)?.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir())
            && let Err(e) = remove_cgroup_tree(&entry.path())
            // Gone meanwhile (removed by another): nothing left to do there.
            && entry.path().exists()
        {
            first_error.get_or_insert(e);
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    let emptied = empty(dir, &events);
    drop(events);
    std::fs::remove_dir(dir).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!(
                "the cgroup {} is left behind{}: {e}",
                dir.display(),
                if emptied {
                    ""
                } else {
                    " (a process in it did not die in time)"
                }
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the hierarchy's root lists none of the wanted controllers (they are bound to v1
    /// hierarchies), `auto` for confined calls says so without a folder or a trial start.
    #[test]
    fn auto_stops_at_a_hierarchy_without_the_controllers() {
        let Some(mount) = usual_mount() else {
            eprintln!("no cgroup v2 hierarchy where systems mount it");
            return;
        };
        let root = std::fs::read_to_string(mount.join("cgroup.controllers")).unwrap();
        if lists_wanted(&root) {
            eprintln!("this host binds some of {WANTED:?} to cgroup v2: {root}");
            return;
        }
        let tried = std::sync::atomic::AtomicBool::new(false);
        let (cgroups, status) = Cgroups::new(CgroupMode::Auto, 10, true, |_| {
            tried.store(true, Ordering::SeqCst);
            Ok(())
        });
        assert!(cgroups.is_none() && status.parent.is_none(), "{status:?}");
        let note = status.note.unwrap_or_default();
        assert!(
            note.contains("none of pids, memory, cpu is in this cgroup v2 hierarchy"),
            "{note}"
        );
        assert!(!tried.load(Ordering::SeqCst), "a start was tried");
    }

    /// A new cgroup under this process's own, where it may make one (root on a host with a
    /// cgroup v2 hierarchy), else `None`.
    fn scratch_cgroup(name: &str) -> Option<PathBuf> {
        let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
        let (mount, root) = cgroup2_mount(&info)?;
        let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        let agent = cgroup_folder(&mount, &root, own_cgroup(&own)?)?;
        let dir = agent.join(format!("{name}-{}", std::process::id()));
        std::fs::create_dir(&dir).ok()?;
        Some(dir)
    }

    /// Before Linux 5.14 (no `cgroup.kill`), the end of a call kills each process of its
    /// cgroup by pid: a shell forking as fast as it can, listed after 2,000 sleepers, must
    /// not leave one that it forked while the others were being killed.
    #[test]
    fn without_cgroup_kill_a_forking_call_is_emptied_whole() {
        let Some(dir) = scratch_cgroup("nanotool-unit-empty") else {
            eprintln!("no cgroup v2 to make a cgroup in here");
            return;
        };
        let procs = std::ffi::CString::new(dir.join("cgroup.procs").to_str().unwrap()).unwrap();
        let mut command = std::process::Command::new("sh");
        // 2,000 sleepers, then a shell that forks 3,000 more as fast as it can: the last in
        // `cgroup.procs`, it is killed last and forks all the while the others are. Each
        // sleeper ends by itself within 5 s, whatever becomes of this test.
        command.args([
            "-c",
            "for i in $(seq 2000); do sleep 5 & done; (for i in $(seq 3000); do sleep 5 & done) & wait",
        ]);
        // SAFETY: the child writes "0" (itself) to the cgroup's `cgroup.procs` with open,
        // write and close on a path prepared before the fork.
        unsafe {
            use std::os::unix::process::CommandExt;
            command.pre_exec(move || {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
                if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(io::Error::last_os_error());
                }
                libc::close(fd);
                Ok(())
            });
        }
        /// Removes the cgroup, with whatever is left in it, however the test ends.
        struct Guard(PathBuf);
        impl Drop for Guard {
            fn drop(&mut self) {
                let _ = remove_cgroup_tree(&self.0);
            }
        }
        let guard = Guard(dir.clone());
        let mut shell = command.spawn().unwrap();
        let events = File::open(dir.join("cgroup.events")).unwrap();
        let count = || {
            std::fs::read_to_string(dir.join("cgroup.procs"))
                .unwrap_or_default()
                .lines()
                .count()
        };
        // In the middle of its forks.
        let started = Instant::now();
        while count() < 2100 && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(1));
        }
        let emptied = empty_with(&dir, &events, false);
        let left = count();
        let _ = shell.kill();
        let _ = shell.wait();
        // What is left (if the test fails) dies with cgroup.kill where there is one.
        drop(guard);
        assert!(emptied && left == 0, "{left} processes left in the cgroup");
    }

    /// What another user (or anything but a cgroup) leaves named as the calls' folders in the
    /// agent's cgroup: a FIFO (whose open would wait), a link, a folder of uid 65534. The sweep
    /// returns, and leaves each where it was.
    #[test]
    fn the_sweep_opens_nothing_but_this_users_folders() {
        use std::os::unix::ffi::OsStrExt;
        let agent = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let gone = std::process::Command::new("true")
            .spawn()
            .and_then(|mut c| c.wait().map(|_| c.id()))
            .unwrap();
        let fifo = agent.path().join(format!("nanotool-{gone}-0"));
        let link = agent.path().join(format!("nanotool-{gone}-1"));
        let theirs = agent.path().join(format!("nanotool-{gone}-2"));
        let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: mkfifo of a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o666) }, 0);
        std::os::unix::fs::symlink(elsewhere.path(), &link).unwrap();
        std::fs::create_dir(&theirs).unwrap();
        // SAFETY: geteuid cannot fail.
        if unsafe { libc::geteuid() } == 0 {
            std::os::unix::fs::lchown(&theirs, Some(65534), Some(65534)).unwrap();
        }
        let own = super::super::sandbox::own_dir::OwnDir::existing(agent.path()).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            sweep_stale(&own);
            let _ = tx.send(());
        });
        rx.recv_timeout(Duration::from_secs(30))
            .expect("the sweep returns beside a FIFO");
        for p in [&fifo, &link, &theirs] {
            assert!(
                std::fs::symlink_metadata(p).is_ok(),
                "{} removed",
                p.display()
            );
        }
        assert!(elsewhere.path().exists());
    }

    #[test]
    fn a_cgroup_still_charged_is_not_reused() {
        assert!(!over_reuse_charge(0));
        assert!(!over_reuse_charge(200 << 10));
        assert!(over_reuse_charge(64 << 20));
        // No `memory.current` to read (here: a folder that is no cgroup): not reused.
        assert!(still_charged(Path::new("/nonexistent-cgroup")));
    }

    #[test]
    fn each_controller_gets_its_files() {
        let limits = CallLimits {
            processes: Some(4096),
            memory: Some(2 << 30),
            nice: 10,
        };
        let all = Controllers {
            pids: true,
            memory: true,
            cpu: true,
        };
        assert_eq!(
            call_files(all, limits),
            [
                ("pids.max", "4096".to_owned()),
                ("memory.max", (2u64 << 30).to_string()),
                ("memory.swap.max", "0".to_owned()),
                ("memory.oom.group", "1".to_owned()),
                ("cpu.weight", "11".to_owned()),
            ]
        );
        assert_eq!(call_files(Controllers::default(), limits), []);
        let only_pids = Controllers {
            pids: true,
            ..Controllers::default()
        };
        assert_eq!(
            call_files(only_pids, CallLimits::default()),
            [("pids.max", "max".to_owned())]
        );
        let memory = Controllers {
            memory: true,
            ..Controllers::default()
        };
        assert_eq!(
            call_files(memory, CallLimits::default()),
            [
                ("memory.max", "max".to_owned()),
                ("memory.swap.max", "max".to_owned()),
                ("memory.oom.group", "1".to_owned()),
            ]
        );
    }

    #[test]
    fn nice_levels_as_cpu_weights() {
        assert_eq!(cpu_weight(0), 100);
        assert_eq!(cpu_weight(10), 11);
        assert_eq!(cpu_weight(19), 1);
        assert_eq!(cpu_weight(-20), 8674);
        assert_eq!(cpu_weight(99), 1);
    }

    #[test]
    fn counters_of_the_event_files() {
        let memory = "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 1\n";
        assert_eq!(counter(memory, "oom_kill"), 1);
        assert_eq!(counter(memory, "max"), 12);
        assert_eq!(counter("populated 1\nfrozen 0\n", "populated"), 1);
        assert_eq!(counter("", "max"), 0);
    }
}
