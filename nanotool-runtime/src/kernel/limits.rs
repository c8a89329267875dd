//! What one call may consume ([`Limits`], in [`KernelSettings`](super::KernelSettings)), the
//! limit a command hit ([`LimitHit`], in its result), and which limits hold on this host
//! ([`LimitsStatus`]).
//!
//! The limits are applied by the spawn child to itself before it confines itself and
//! `execve`s (`sandbox::spawn`): resource limits (`RLIMIT_DATA`, `RLIMIT_FSIZE`,
//! `RLIMIT_NOFILE`, `RLIMIT_CORE` 0, `RLIMIT_CPU`), soft and hard alike so the command
//! cannot raise them back; `oom_score_adj` 1000, so the OOM killer picks a command before
//! the agent; a lower CPU priority; and a session of its own, which gives every call its
//! own CPU share where the scheduler groups by session (Linux's autogroup). Where the host
//! delegates a cgroup v2, each call also gets a cgroup of its own (`cgroup`): processes,
//! memory for the whole call, a CPU weight, and `cgroup.kill` at its end. What does not
//! live here: the child's steps (`sandbox::spawn`), the cgroups (`cgroup`).

use super::cgroup::{CallLimits, CgroupStatus};
use std::fmt;
use std::time::Duration;

/// What one call may consume. Each `None` leaves the host's own limit in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Memory a command's process may allocate (`RLIMIT_DATA`: heap and private writable
    /// mappings; default 4 GiB). An allocation beyond it fails inside the command (Python's
    /// `MemoryError`, a Rust abort, `malloc` returning NULL). `RLIMIT_AS` is not used: it
    /// counts reserved address space, and Java reserves far more than it touches. Where the
    /// call has a cgroup with the memory controller, the same figure also bounds the whole
    /// call (`memory.max`, no swap): reaching it kills every process of the call, and the
    /// result says so.
    pub memory: Option<u64>,
    /// Processes (and threads) one call may have at once (`pids.max` of the call's cgroup,
    /// default 4096). It holds only where the call has a cgroup with the pids controller
    /// (a delegated cgroup v2): `RLIMIT_NPROC` counts every process of the user, the agent's
    /// threads included, so it cannot bound one call. A `fork` beyond it fails (`EAGAIN`).
    pub processes: Option<u64>,
    /// Largest file a command may write (`RLIMIT_FSIZE`, default 1 GiB): a write past it
    /// fails and the writer gets `SIGXFSZ`, which ends it unless it handles the signal.
    pub file_size: Option<u64>,
    /// Files a command's process may hold open at once (`RLIMIT_NOFILE`, default 1024).
    pub open_files: Option<u64>,
    /// CPU time each process of a command may use (`RLIMIT_CPU`, default none: the call's
    /// timeout bounds its wall time). Past it the process gets `SIGXCPU`, a second later
    /// `SIGKILL`.
    pub cpu_time: Option<Duration>,
    /// Niceness commands run at (default 10; 0 leaves the agent's): under contention the
    /// agent's own threads come first. A value below the agent's own needs privileges and
    /// is then ignored.
    pub nice: i32,
    /// Set the commands' `oom_score_adj` to 1000 (default true), so that when memory runs
    /// out the kernel kills a command, not the agent.
    pub oom_first: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory: Some(4 << 30),
            processes: Some(4096),
            file_size: Some(1 << 30),
            open_files: Some(1024),
            cpu_time: None,
            nice: 10,
            oom_first: true,
        }
    }
}

impl Limits {
    /// No limit of this module: the host's own resource limits, priority and OOM score.
    pub fn none() -> Self {
        Limits {
            memory: None,
            processes: None,
            file_size: None,
            open_files: None,
            cpu_time: None,
            nice: 0,
            oom_first: false,
        }
    }
}

/// The limit that ended a command (the signal its leader died of tells).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitHit {
    /// It wrote past [`Limits::file_size`] (bytes) and got `SIGXFSZ`.
    FileSize(u64),
    /// It used [`Limits::cpu_time`] and got `SIGXCPU` (or the `SIGKILL` that follows).
    CpuTime(Duration),
    /// The call reached its cgroup's `memory.max` ([`Limits::memory`], bytes) and the OOM
    /// killer ended it.
    Memory(u64),
    /// The call reached its cgroup's `pids.max` ([`Limits::processes`]): a new process was
    /// refused.
    Processes(u64),
    /// The call failed with the private temp dir full: its tmpfs's size or file count
    /// ([`KernelSettings::temp_size`](super::KernelSettings::temp_size), bytes) is reached at
    /// the call's end, and the output says "No space left on device" (`ENOSPC`).
    TempDir(u64),
}

impl fmt::Display for LimitHit {
    /// `killed: file size limit 1 GiB reached`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitHit::FileSize(n) => write!(f, "killed: file size limit {} reached", Size(*n)),
            LimitHit::CpuTime(d) => write!(f, "killed: CPU time limit {} s reached", seconds(*d)),
            LimitHit::Memory(n) => write!(f, "killed: memory limit {} reached", Size(*n)),
            LimitHit::Processes(n) => {
                write!(f, "process limit {n} reached: a new process was refused")
            }
            LimitHit::TempDir(n) => write!(
                f,
                "temp dir limit {} reached: the private temp dir is full (no space left there, for TMPDIR and the private home inside it)",
                Size(*n)
            ),
        }
    }
}

impl LimitHit {
    /// The limit that a leader ended by `signal` hit, under `limits`.
    pub(super) fn from_signal(signal: i32, limits: &Limits) -> Option<LimitHit> {
        match signal {
            libc::SIGXFSZ => limits.file_size.map(LimitHit::FileSize),
            libc::SIGXCPU => limits.cpu_time.map(LimitHit::CpuTime),
            _ => None,
        }
    }

    /// The limit that the call's cgroup recorded, under `limits`: an OOM kill first (it ended
    /// the call), then a refused process.
    pub(super) fn from_cgroup(
        recorded: super::cgroup::Recorded,
        limits: &Limits,
    ) -> Option<LimitHit> {
        if recorded.oom_killed
            && let Some(n) = limits.memory
        {
            return Some(LimitHit::Memory(n));
        }
        if recorded.pids_refused {
            return limits.processes.map(LimitHit::Processes);
        }
        None
    }
}

/// A byte count as people write it: `1 GiB`, `256 MiB`, `1.5 KiB`, `100 bytes`.
pub(super) struct Size(pub u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
            if self.0 >= 1 << shift {
                let v = self.0 as f64 / (1u64 << shift) as f64;
                let s = format!("{v:.1}");
                let s = s.strip_suffix(".0").unwrap_or(&s);
                return write!(f, "{s} {unit}");
            }
        }
        write!(f, "{} bytes", self.0)
    }
}

/// Which limits hold for this kernel's commands: one line with `Display`, for `nanotool
/// list` and the `serve` start-up log, printed after the sandbox and spawn lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitsStatus {
    /// The limits as applied (each clamped to the host's own hard limit).
    pub limits: Limits,
    /// The scheduler gives each session its own CPU share (Linux's autogroup is on, and the
    /// agent sits in the root CPU cgroup where it applies).
    pub autogroup: bool,
    /// The calls' cgroups: where, with which controllers, or why there are none.
    pub cgroup: CgroupStatus,
    /// Where the commands' private temp dir lives, and what bounds it.
    pub temp_dir: TempDirStatus,
    /// Commands cannot make anonymous shared memory (`memfd_create`, `mmap` with
    /// `MAP_SHARED | MAP_ANONYMOUS`): a memory limit is set, no memory cgroup bounds the
    /// call, and the seccomp filter holds. No limit would count that memory otherwise
    /// (`RLIMIT_DATA` counts private mappings only).
    pub shared_memory_refused: bool,
}

/// Where the commands' private temp dir (`TMPDIR`) lives, and what bounds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TempDirStatus {
    /// A tmpfs of its own, seen only by the commands: at most `size` bytes and `files` files
    /// and folders, in memory (or swap), gone with the kernel and its last command, whatever
    /// ends them.
    Tmpfs {
        /// Its size in bytes.
        size: u64,
        /// How many files and folders it may hold.
        files: u64,
    },
    /// A folder on the host's disk, bounded per file only (the file size limit), removed
    /// when the kernel drops; why there is no tmpfs.
    Disk(String),
    /// None: the sandbox is off, and commands use the host's temp dir.
    Host,
}

impl fmt::Display for TempDirStatus {
    /// `temp dir: a tmpfs of 1 GiB, 131072 files`, or where it is and why.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TempDirStatus::Tmpfs { size, files } => write!(
                f,
                "temp dir: a tmpfs of {}, {files} files (in memory, seen only by commands, gone with the kernel)",
                Size(*size)
            ),
            TempDirStatus::Disk(why) => {
                write!(f, "temp dir: on disk, not bounded in size ({why})")
            }
            TempDirStatus::Host => write!(f, "temp dir: the host's (the sandbox is off)"),
        }
    }
}

impl fmt::Display for LimitsStatus {
    /// `limits: memory 4 GiB, file size 1 GiB, open files 1024, no core dumps, ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = &self.limits;
        let or_host = |v: Option<String>| v.unwrap_or_else(|| "the host's".to_owned());
        write!(
            f,
            "limits: memory {}, file size {}, open files {}, no core dumps, CPU time {}",
            or_host(l.memory.map(|n| Size(n).to_string())),
            or_host(l.file_size.map(|n| Size(n).to_string())),
            or_host(l.open_files.map(|n| n.to_string())),
            l.cpu_time.map_or_else(
                || "by the timeout only".to_owned(),
                |d| format!("{} s", seconds(d))
            ),
        )?;
        if l.oom_first {
            write!(f, "; oom_score_adj 1000 (commands die before the agent)")?;
        }
        if l.nice > 0 {
            write!(f, "; nice {}", l.nice)?;
        }
        if self.autogroup {
            write!(f, "; a session each, a CPU share each (autogroup)")?;
        } else {
            write!(
                f,
                "; a session each, CPU shared by thread (autogroup off or a CPU cgroup)"
            )?;
        }
        write!(
            f,
            "; {}; {}; {}; {}",
            self.cgroup.processes(l.processes),
            self.cgroup.memory(l.memory, self.shared_memory_refused),
            self.temp_dir,
            self.cgroup
        )
    }
}

/// The parts of the `limits:` line about the calls' cgroups (here, beside the limits and the
/// sizes they are told in).
impl CgroupStatus {
    /// `processes: bounded per call by cgroup (pids.max 4096)`, or why not.
    pub(super) fn processes(&self, max: Option<u64>) -> String {
        match (self.has("pids"), max) {
            (true, Some(n)) => format!("processes: bounded per call by cgroup (pids.max {n})"),
            (true, None) => "processes: not bounded per call (no process limit is set)".to_owned(),
            (false, _) => format!(
                "processes: not bounded per call (no delegated cgroup v2 with the pids controller{})",
                self.why("pids")
            ),
        }
    }

    /// `memory per call: 4 GiB (memory.max, no swap)`, or why only per process, and whether
    /// anonymous shared memory, which no per-process limit counts, is `refused`.
    pub(super) fn memory(&self, max: Option<u64>, refused: bool) -> String {
        match (self.has("memory"), max) {
            (true, Some(n)) => format!(
                "memory per call: {} (cgroup memory.max, no swap, the whole call killed when reached)",
                Size(n)
            ),
            (_, None) => "memory per call: not bounded (no memory limit is set)".to_owned(),
            (false, Some(_)) => format!(
                "memory per call: not bounded, per process only{} (no delegated cgroup v2 with the memory controller{})",
                if refused {
                    ", shared anonymous memory and memfds refused"
                } else {
                    ", shared anonymous memory and memfds not counted (no seccomp filter)"
                },
                self.why("memory")
            ),
        }
    }
}

impl Limits {
    /// What a call's cgroup is set from, under these limits.
    pub(crate) fn for_cgroup(&self) -> CallLimits {
        CallLimits {
            processes: self.processes,
            memory: self.memory,
            nice: self.nice,
        }
    }
}

/// Whether the scheduler groups tasks by session here: autogroup enabled, and this process
/// in the root CPU cgroup (autogroup applies only there).
pub(super) fn autogroup_applies() -> bool {
    let enabled = std::fs::read_to_string("/proc/sys/kernel/sched_autogroup_enabled")
        .is_ok_and(|s| s.trim() == "1");
    let root_cpu = std::fs::read_to_string("/proc/self/cgroup").is_ok_and(|s| {
        s.lines().all(|line| {
            let mut parts = line.splitn(3, ':');
            let (_, controllers, path) = (parts.next(), parts.next(), parts.next());
            // v1 `N:cpu,cpuacct:/path`, v2 `0::/path` (the cpu controller, if enabled,
            // follows the unified path).
            let cpu = controllers.is_some_and(|c| c.is_empty() || c.split(',').any(|c| c == "cpu"));
            !cpu || path == Some("/")
        })
    });
    enabled && root_cpu
}

/// The limits in the form the spawn child applies them: prepared once per kernel.
#[derive(Debug, Clone)]
pub(crate) struct ChildLimits {
    /// `(resource, limit)` pairs, soft and hard alike, each clamped to the host's hard
    /// limit (an ordinary process cannot raise it).
    pub rlimits: Vec<(libc::c_int, libc::rlimit)>,
    /// Write `1000` to `/proc/self/oom_score_adj` (Linux's; the portable backend has none).
    #[cfg_attr(
        not(all(target_os = "linux", not(nanotool_portable))),
        allow(dead_code)
    )]
    pub oom_first: bool,
    /// `setpriority` to this niceness (0: leave it).
    pub nice: i32,
}

impl ChildLimits {
    /// From the settings, clamped to what this process may set; also the limits as they
    /// will hold.
    pub(crate) fn new(limits: &Limits) -> (ChildLimits, Limits) {
        let mut applied = limits.clone();
        let mut rlimits = Vec::new();
        // The resource's type is the platform's (glibc's `__rlimit_resource_t`, a `c_int`
        // elsewhere): taken from `getrlimit`.
        let mut add = |resource, value: u64, grace: u64| -> u64 {
            let mut host = libc::rlimit {
                rlim_cur: libc::RLIM_INFINITY,
                rlim_max: libc::RLIM_INFINITY,
            };
            // SAFETY: getrlimit fills `host`.
            unsafe { libc::getrlimit(resource, &mut host) };
            let v = value.min(host.rlim_max);
            rlimits.push((
                resource as libc::c_int,
                libc::rlimit {
                    rlim_cur: v,
                    rlim_max: v.saturating_add(grace).min(host.rlim_max),
                },
            ));
            v
        };
        if let Some(n) = limits.memory {
            applied.memory = Some(add(libc::RLIMIT_DATA, n, 0));
        }
        if let Some(n) = limits.file_size {
            applied.file_size = Some(add(libc::RLIMIT_FSIZE, n, 0));
        }
        if let Some(n) = limits.open_files {
            applied.open_files = Some(add(libc::RLIMIT_NOFILE, n, 0));
        }
        add(libc::RLIMIT_CORE, 0, 0);
        if let Some(d) = limits.cpu_time {
            // Whole seconds, at least one; the hard limit a second later (SIGKILL for a
            // process that handles SIGXCPU).
            let secs = d.as_secs().max(1);
            applied.cpu_time = Some(Duration::from_secs(secs));
            add(libc::RLIMIT_CPU, secs, 1);
        }
        (
            ChildLimits {
                rlimits,
                oom_first: limits.oom_first,
                nice: limits.nice,
            },
            applied,
        )
    }
}

/// Seconds as people write them: `30`, `0.2`, `1.5`.
pub(super) fn seconds(d: Duration) -> String {
    let s = format!("{:.1}", d.as_secs_f64());
    s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(Size(1 << 30).to_string(), "1 GiB");
        assert_eq!(Size(256 << 20).to_string(), "256 MiB");
        assert_eq!(Size(1536).to_string(), "1.5 KiB");
        assert_eq!(Size(100).to_string(), "100 bytes");
    }

    #[test]
    fn the_words_of_a_hit() {
        assert_eq!(
            LimitHit::FileSize(2 << 30).to_string(),
            "killed: file size limit 2 GiB reached"
        );
        assert_eq!(
            LimitHit::CpuTime(Duration::from_secs(3)).to_string(),
            "killed: CPU time limit 3 s reached"
        );
        assert_eq!(
            LimitHit::Memory(2 << 30).to_string(),
            "killed: memory limit 2 GiB reached"
        );
        assert_eq!(
            LimitHit::Processes(4096).to_string(),
            "process limit 4096 reached: a new process was refused"
        );
    }

    #[test]
    fn the_cgroup_tells_which_limit_was_hit() {
        use super::super::cgroup::Recorded;
        let limits = Limits::default();
        let oom = Recorded {
            oom_killed: true,
            pids_refused: true,
        };
        assert_eq!(
            LimitHit::from_cgroup(oom, &limits),
            Some(LimitHit::Memory(4 << 30))
        );
        let pids = Recorded {
            pids_refused: true,
            ..Recorded::default()
        };
        assert_eq!(
            LimitHit::from_cgroup(pids, &limits),
            Some(LimitHit::Processes(4096))
        );
        assert_eq!(LimitHit::from_cgroup(Recorded::default(), &limits), None);
        assert_eq!(LimitHit::from_cgroup(oom, &Limits::none()), None);
    }
}
