//! The sandbox: what a command may touch, enforced by the kernel that runs it.
//!
//! Reading argv cannot be complete (a script a tool runs, `git` obeying a planted config, an
//! option nobody listed), so every command is confined as well, and the argv rules are the
//! second line. What a confined command may do is its *profile*:
//!
//! | resource | read-only tool (default) | tool that declares `writes` |
//! |---|---|---|
//! | the workspace (the kernel's cwd) | read, execute | read, write, create, delete |
//! | system dirs (`/usr`, `/bin`, `/sbin`, `/lib*`, `/etc/alternatives`; not `/opt`) and a few `/etc` files | read, execute | same |
//! | the kernel's private temp dir (`TMPDIR`, one folder per profile; a tmpfs of bounded size that only commands see where the agent may mount one, see `tmpfs`; removed when the kernel drops) | read, write | same |
//! | the kernel's private home (`HOME` and the XDG folders, one folder per profile, empty at first: `home/` inside the temp dir, so in its tmpfs and bounded by its size where there is one; removed when the kernel drops) | read, write | same |
//! | `/dev/null` (rw), `/dev/zero`, `/dev/urandom`, `/dev/random` (r) | yes | same |
//! | host-added paths ([`KernelSettings::sandbox_read`], [`KernelSettings::sandbox_write`]) | as added | as added |
//! | `$HOME`, `/proc`, `/sys`, `/tmp`, everything else | no | no |
//! | network | no | no (a tool that declares `network`: TCP and UDP over IPv4/IPv6) |
//! | unix sockets by path, abstract sockets, netlink | no | no, even with `network` |
//! | signals, ptrace, `process_vm_*`, `pidfd_getfd` towards the agent | no | no |
//! | host file descriptors | none (only stdin `/dev/null` and the output pipe) | same |
//! | leaving the call's process group (`setsid`, `setpgid`) | refused, so the group kill at the end of the call reaches every descendant | same |
//!
//! How: each profile's Landlock ruleset (see `rules`) and seccomp filter (see `seccomp`) are
//! built once; each command is started by a child cloned the way `posix_spawn` clones (sharing
//! the agent's memory until its `execve`, so the cost does not grow with that memory), which
//! confines itself — its own process group, capabilities dropped, Landlock, the filter, every
//! fd but its stdio closed — before it runs the command (see `spawn`). Where the temp dir is a
//! tmpfs, the child first enters the mount namespace that shows it (see `tmpfs`). The agent
//! itself is never confined, and stays outside every command's Landlock domain.
//!
//! This file holds the profiles and the routing of a command; the mode and the status the
//! kernel reports are `status`'s, the kernel's private temp dir (and its mount point in
//! `/dev/shm`) is `temp_dir`'s, and the git directories outside the workspace that commands
//! may read are found by `git_dirs`.
//!
//! [`KernelSettings::sandbox_read`]: crate::KernelSettings::sandbox_read
//! [`KernelSettings::sandbox_write`]: crate::KernelSettings::sandbox_write

// Linux: Landlock, the seccomp filter, the clone spawn. Elsewhere (and under
// `--cfg nanotool_portable`): the portable backend, std's spawn and no confinement.
mod c_strings;
mod filter_spec;
mod git_dirs;
pub(crate) mod own_dir;
#[cfg(not(all(target_os = "linux", not(nanotool_portable))))]
#[path = "sandbox/portable.rs"]
mod portable;
mod profile;
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
pub(crate) mod reaper;
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
pub(crate) mod rules;
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
mod seccomp;
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
pub(crate) mod spawn;
pub(crate) mod start;
pub(crate) mod status;
mod temp_dir;
pub(crate) mod tmpfs;
#[cfg(not(all(target_os = "linux", not(nanotool_portable))))]
pub(crate) use portable::{reaper, rules, seccomp, spawn};
pub(crate) use reaper::{Record, read_record};

use rules::{Enforced, Profile};
use seccomp::FilterSpec;
use spawn::Confinement;
use status::{SandboxMode, SandboxStatus};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use temp_dir::{TempDir, shm_mount_point};

/// What a tool declares it needs beyond the default profile (read-only workspace, no
/// network). Part of a tool's shape, like its template.
///
/// ```
/// use nanotool_runtime::Access;
///
/// assert_eq!(Access::default(), Access::READ_ONLY);
/// assert!(Access::default().is_read_only());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Access {
    /// The command may write, create and delete inside the workspace.
    pub writes: bool,
    /// The command may use TCP and UDP over IPv4/IPv6 (never unix sockets by path).
    pub network: bool,
    /// The command gets a private loopback of its own (`"network": "local"`): a network
    /// namespace with only `lo`, where it may serve and connect over TCP and UDP on
    /// 127.0.0.1 and ::1, and reach nothing else — not even the host's own loopback.
    /// Without effect when [`Self::network`] is set.
    pub local_network: bool,
}

impl Access {
    /// Read-only and offline: the default.
    pub const READ_ONLY: Access = Access {
        writes: false,
        network: false,
        local_network: false,
    };

    /// Whether the tool neither writes nor reaches any network (a private loopback counts
    /// as none: nothing outside the call is reached).
    pub fn is_read_only(self) -> bool {
        !self.writes && !self.network
    }

    /// Whether the tool gets the private loopback (declared local, and not the whole network).
    pub fn is_local(self) -> bool {
        self.local_network && !self.network
    }

    fn index(self) -> usize {
        usize::from(self.writes)
            | (usize::from(self.network) << 1)
            | (usize::from(self.is_local()) << 2)
    }
}

/// The sandbox of one kernel: its profiles' confinements (built on first use), its private
/// temp dir, the host-added paths.
pub(crate) struct Sandbox {
    pub status: SandboxStatus,
    workspace: PathBuf,
    /// The tmpfs over the temp dir, where the host lets the agent mount one, or why not
    /// (dropped before `tmpdir`, whose folder it covers).
    tempfs: Result<tmpfs::TempFs, String>,
    tmpdir: Option<TempDir>,
    /// Where `tmpdir` is the tmpfs's mount point made in `/dev/shm` ([`temp_dir::mount_point_base`]):
    /// that folder, open with a shared `flock` for the kernel's life (an agent in another PID
    /// namespace that shares `/dev/shm` cannot see this pid, so its sweep,
    /// [`temp_dir::sweep_stale_mount_points`], goes by the lock).
    shm_lock: Option<OwnedFd>,
    /// The commands' private home: `<tmpdir>/home`, so that it shares the temp dir's tmpfs
    /// (and its size) and costs no folder of its own on disk.
    home: Option<PathBuf>,
    read: Vec<PathBuf>,
    write: Vec<PathBuf>,
    /// Every path confined commands may read, canonical: computed on the first question
    /// that the paths as given do not answer (see [`Sandbox::can_read`]).
    readable: OnceLock<Vec<PathBuf>>,
    real_paths: Mutex<HashMap<PathBuf, PathBuf>>,
    confinements: [OnceLock<Arc<Confinement>>; 8],
    /// The profiles of tools that read more than the kernel's paths (a tool's own
    /// `sandbox_read`), by profile and paths, built on first use: one per such tool at most,
    /// as each tool's paths are fixed.
    extended: Mutex<HashMap<ExtendedKey, Arc<Confinement>>>,
    /// Each profile with readable paths of its own, numbered in the order first seen: the
    /// name of its private folders (`x<N>`).
    extended_ids: Mutex<HashMap<ExtendedKey, usize>>,
    /// The private folders (`TMPDIR`, home) of the eight plain profiles, by
    /// [`Access::index`]: `<tmpdir>/p<N>` and `<tmpdir>/home/p<N>`, made when the profile's
    /// confinement is built.
    cached_dirs: Vec<(PathBuf, PathBuf)>,
    /// Each profile's last failure to build, and when: tried again once it is
    /// [`RETRY_AFTER`] old.
    failures: [Mutex<Option<(Instant, String)>>; 8],
    /// Commands run in a private PID namespace (set by the kernel before the first spawn).
    pub pid_namespace: bool,
    /// Commands may make anonymous shared memory ([`FilterSpec::shared_memory`]): set by the
    /// kernel before the first spawn, where a memory cgroup bounds each call or no memory
    /// limit is set.
    pub shared_memory: bool,
    /// How `"network": "local"` commands get their private loopback, where they can.
    /// The private loopback (`"network": "local"`): tried on the first call of a tool that
    /// declares it, so a kernel that never runs one makes no namespace.
    local_network: OnceLock<Result<std::sync::Arc<spawn::LocalNet>, String>>,
}

/// A profile with a tool's own readable paths: the profile's index and the paths.
type ExtendedKey = (usize, Vec<PathBuf>);

/// The plain profiles: one per `Access::index` (writes, network, local network).
pub(crate) const PLAIN_PROFILES: usize = 8;

/// A profile as its private folders and environment are kept: one of the eight plain ones
/// (by [`Access::index`]), or one with readable paths of its own (numbered).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProfileSlot {
    /// A plain profile.
    Plain(usize),
    /// A profile with a tool's own readable paths.
    Extended(usize),
}

/// How long a profile whose confinement failed to build answers with that failure before
/// it is tried again: a passing cause (no thread or fd to spare) clears, while a lasting one
/// (a machine the filter has no rules for) costs a rebuild only this often.
const RETRY_AFTER: Duration = Duration::from_secs(10);

impl fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sandbox")
            .field("status", &self.status)
            .field("tmpdir", &self.tmpdir.as_ref().map(|t| &t.0))
            .finish()
    }
}

/// How a command of a profile is to be started.
pub(crate) enum Route {
    /// Confined by this profile; the flag tells whether Landlock holds.
    Confined(Arc<Confinement>, bool),
    /// Directly, unconfined (mode off, or best-effort where nothing could be set up).
    Direct,
    /// Not at all: the mode is required and this is missing.
    Refuse(String),
}

impl Sandbox {
    pub(crate) fn new(
        mode: SandboxMode,
        workspace: &Path,
        read: Vec<PathBuf>,
        write: Vec<PathBuf>,
        abi_limit: Option<u32>,
        filter_rules: bool,
        temp_size: Option<u64>,
    ) -> std::io::Result<Sandbox> {
        let status = SandboxStatus::probe(mode, abi_limit, filter_rules);
        if mode != SandboxMode::Off && status.landlock_abi.is_err() {
            // Nothing keeps /proc from a command without Landlock, and a process of the same
            // user may read another's `environ` and `mem` there: close the agent's to all but
            // itself (the `nanotool` binary does so at start anyway).
            // SAFETY: prctl(PR_SET_DUMPABLE) takes plain integers and touches no memory.
            #[cfg(target_os = "linux")]
            unsafe {
                libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0)
            };
        }
        let mut read = read;
        read.extend(git_dirs::enclosing_git_dirs(workspace));
        // SAFETY: geteuid cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        let on_disk = || TempDir::new_in_shared(&std::env::temp_dir());
        let (tmpdir, tempfs, shm_lock) = match (mode, temp_size) {
            (SandboxMode::Off, _) => (
                None,
                Err("the sandbox is off: commands get no private temp dir".to_owned()),
                None,
            ),
            (_, None) => (Some(on_disk()?), Err("no size is set".to_owned()), None),
            (_, Some(_)) if !root => (
                Some(on_disk()?),
                Err("mounting a tmpfs needs a root agent".to_owned()),
                None,
            ),
            (_, Some(size)) => match shm_mount_point() {
                Some((dir, lock)) => match tmpfs::TempFs::mount(&dir.0, size) {
                    Ok(tempfs) => (Some(dir), Ok(tempfs), Some(lock)),
                    // A mount point in `/dev/shm` that covers nothing moves to the host's
                    // temp dir: the folder holds the commands' files after all.
                    Err(why) => (Some(on_disk()?), Err(why), None),
                },
                None => {
                    let dir = on_disk()?;
                    let tempfs = tmpfs::TempFs::mount(&dir.0, size);
                    (Some(dir), tempfs, None)
                }
            },
        };
        let mut sandbox = Sandbox {
            local_network: OnceLock::new(),
            status,
            workspace: workspace.to_path_buf(),
            tempfs,
            tmpdir: None,
            shm_lock,
            home: None,
            read,
            write,
            readable: OnceLock::new(),
            real_paths: Mutex::new(HashMap::new()),
            confinements: Default::default(),
            extended: Mutex::new(HashMap::new()),
            extended_ids: Mutex::new(HashMap::new()),
            cached_dirs: Vec::new(),
            failures: Default::default(),
            pid_namespace: false,
            shared_memory: false,
        };
        sandbox.set_tmpdir(tmpdir);
        Ok(sandbox)
    }

    /// Takes `tmpdir` as the kernel's temp dir: the home inside it, the profiles' folders.
    fn set_tmpdir(&mut self, tmpdir: Option<TempDir>) {
        self.home = tmpdir.as_ref().map(|t| t.0.join("home"));
        self.cached_dirs = match (&tmpdir, &self.home) {
            (Some(tmp), Some(home)) => (0..PLAIN_PROFILES)
                .map(|i| (tmp.0.join(format!("p{i}")), home.join(format!("p{i}"))))
                .collect(),
            _ => Vec::new(),
        };
        self.tmpdir = tmpdir;
    }

    /// Which private folders a command of profile `access` whose tool may also read `extra`
    /// uses: one pair per profile, so state passes only between calls with the same rights.
    pub(crate) fn profile_slot(&self, access: Access, extra: &[PathBuf]) -> ProfileSlot {
        if extra.is_empty() {
            return ProfileSlot::Plain(access.index());
        }
        let mut ids = self.extended_ids.lock().unwrap_or_else(|p| p.into_inner());
        let next = ids.len();
        let id = *ids.entry((access.index(), extra.to_vec())).or_insert(next);
        ProfileSlot::Extended(id)
    }

    /// The private folders (`TMPDIR`, home) of a profile, when the sandbox is on.
    pub(crate) fn private_dirs(&self, slot: ProfileSlot) -> Option<(Cow<'_, Path>, Cow<'_, Path>)> {
        match slot {
            ProfileSlot::Plain(i) => self
                .cached_dirs
                .get(i)
                .map(|(t, h)| (Cow::Borrowed(t.as_path()), Cow::Borrowed(h.as_path()))),
            ProfileSlot::Extended(id) => {
                let (tmp, home) = (self.tmpdir()?, self.home()?);
                Some((
                    Cow::Owned(tmp.join(format!("x{id}"))),
                    Cow::Owned(home.join(format!("x{id}"))),
                ))
            }
        }
    }

    /// Gives up the tmpfs (before any profile is built, and before anything is given the
    /// temp dir's path): commands of this kernel could not enter it, for `why`. The temp dir
    /// is made again in the host's temp dir, since it holds the commands' files now (the
    /// tmpfs's mount point may have been made in `/dev/shm`).
    pub(crate) fn give_up_tempfs(&mut self, why: &str) -> std::io::Result<()> {
        if self.tempfs.is_ok() {
            // The tmpfs first (its namespace and root fd), then the folder it covered.
            self.tempfs = Err(why.to_owned());
            if self.shm_lock.is_some() {
                let moved = TempDir::new_in_shared(&std::env::temp_dir())?;
                self.set_tmpdir(Some(moved));
                self.shm_lock = None;
            }
        }
        Ok(())
    }

    /// The tmpfs of the private temp dir, or why there is none.
    pub(crate) fn tempfs(&self) -> Result<&tmpfs::TempFs, &str> {
        self.tempfs.as_ref().map_err(String::as_str)
    }

    /// The mount namespace of the temp dir's tmpfs, for a confined command of profile
    /// `access` to enter: none without a tmpfs, nor for a command that starts in a user
    /// namespace of its own (a private loopback made through one), which has no right to
    /// enter it: its private temp dir stays on disk, under the tmpfs's mount point (which
    /// only the agent's mount namespace shows). PID namespaces made through a user namespace
    /// leave the kernel without a tmpfs ([`Self::give_up_tempfs`]).
    pub(crate) fn mount_ns(&self, access: Access) -> Option<BorrowedFd<'_>> {
        let tempfs = self.tempfs.as_ref().ok()?;
        self.enters_tempfs(access.is_local()).then(|| tempfs.ns())
    }

    /// Whether confined commands (with a private loopback: `local`) enter the tmpfs's mount
    /// namespace: there is one, and a loopback of theirs is not made through a user
    /// namespace. The loopback is asked as it was tried (a profile with one is built after
    /// its trial).
    fn enters_tempfs(&self, local: bool) -> bool {
        let own_user = local
            && self
                .local_network
                .get()
                .is_some_and(|n| n.as_ref().is_ok_and(|n| n.through_user()));
        self.tempfs.is_ok() && !own_user
    }

    /// The path by which the agent reaches a profile's private folder `dir` (its temp dir or
    /// its home, as commands of `access` see them): inside the tmpfs where they enter it.
    fn agent_side(&self, dir: &Path, access: Access) -> PathBuf {
        match (&self.tempfs, self.tmpdir()) {
            (Ok(tempfs), Some(at)) if self.enters_tempfs(access.is_local()) => tempfs
                .agent_path(at, dir)
                .unwrap_or_else(|| dir.to_path_buf()),
            _ => dir.to_path_buf(),
        }
    }

    /// The private temp dir commands get as `TMPDIR`, when the sandbox is on.
    pub(crate) fn tmpdir(&self) -> Option<&Path> {
        self.tmpdir.as_ref().map(|t| t.0.as_path())
    }

    /// The private home commands get as `HOME`, when the sandbox is on.
    pub(crate) fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Every path the host let commands read or write (canonical).
    pub(crate) fn added(&self) -> Vec<PathBuf> {
        self.read.iter().chain(&self.write).cloned().collect()
    }

    /// Whether a confined command may read `real` (a canonical path), given the tool's own
    /// readable paths `extra` (canonical).
    ///
    /// The roots as given answer first: a root that is a prefix of a canonical path is
    /// canonical itself, so a match there is a match among the canonical roots, and the usual
    /// program (under `/usr`) costs no path resolution. Only a path outside them all has the
    /// roots resolved (once, a few syscalls per root) and compared again.
    pub(crate) fn can_read(&self, real: &Path, extra: &[PathBuf]) -> bool {
        let roots = self.readable_roots();
        if roots.iter().chain(extra).any(|root| real.starts_with(root)) {
            return true;
        }
        self.readable
            .get_or_init(|| {
                roots
                    .iter()
                    .filter_map(|root| root.canonicalize().ok())
                    .collect()
            })
            .iter()
            .any(|root| real.starts_with(root))
    }

    /// The canonical path of a program, remembered (resolving it costs a few syscalls per
    /// call otherwise; the answer only feeds a message, Landlock decides).
    pub(crate) fn real_path(&self, program: &Path) -> Option<PathBuf> {
        let mut cache = self.real_paths.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(real) = cache.get(program) {
            return Some(real.clone());
        }
        let real = program.canonicalize().ok()?;
        if cache.len() < 4096 {
            cache.insert(program.to_path_buf(), real.clone());
        }
        Some(real)
    }

    /// Paths confined commands may read.
    fn readable_roots(&self) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = rules::SYSTEM_DIRS.iter().map(PathBuf::from).collect();
        roots.extend(rules::ETC_FILES.iter().map(PathBuf::from));
        roots.extend(self.read.iter().cloned());
        roots.extend(self.write.iter().cloned());
        roots.push(self.workspace.clone());
        // The home is inside the temp dir.
        roots.extend(self.tmpdir().map(Path::to_path_buf));
        roots
    }

    /// The private loopback, tried once on first use.
    fn local_net(&self) -> &Result<std::sync::Arc<spawn::LocalNet>, String> {
        self.local_network
            .get_or_init(|| spawn::local_network().map(std::sync::Arc::new))
    }

    /// How to start a command of profile `access` whose tool may also read `extra` (canonical
    /// paths; most tools have none).
    pub(crate) fn route(&self, access: Access, extra: &[PathBuf]) -> Route {
        if self.status.mode == SandboxMode::Off {
            return Route::Direct;
        }
        if self.status.mode == SandboxMode::Required
            && let Some(missing) = self.status.refusal()
        {
            return Route::Refuse(format!(
                "the sandbox is required but cannot confine commands here: {missing}; run on a Linux that has it, or choose --sandbox best-effort"
            ));
        }
        // A confinement is kept once built; a failure only for RETRY_AFTER, so a passing
        // cause (no thread or fd to spare for the trial, say) does not leave the kernel
        // unconfined for good.
        if access.is_local()
            && let Err(why) = self.local_net()
        {
            return Route::Refuse(format!(
                "this tool declares `\"network\": \"local\"` (a private loopback of its own), which this host cannot give: {why}; run the agent as root or where user namespaces are allowed, or declare `\"network\": true`"
            ));
        }
        let slot = &self.confinements[access.index()];
        let built = match slot.get() {
            _ if !extra.is_empty() => self.extended(access, extra),
            Some(confinement) => Ok(Arc::clone(confinement)),
            None => {
                let mut failure = self.failures[access.index()]
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                match &*failure {
                    Some((when, why)) if when.elapsed() < RETRY_AFTER => Err(why.clone()),
                    _ => match self.confinement(access, &[]) {
                        Ok(confinement) => {
                            *failure = None;
                            Ok(Arc::clone(slot.get_or_init(|| Arc::new(confinement))))
                        }
                        Err(why) => {
                            *failure = Some((Instant::now(), why.clone()));
                            Err(why)
                        }
                    },
                }
            }
        };
        match built {
            Ok(confinement) => {
                let landlock = matches!(
                    confinement.setup.landlock,
                    Ok(Enforced::Fully | Enforced::Partially)
                );
                if self.status.mode == SandboxMode::Required && !landlock {
                    let why = match &confinement.setup.landlock {
                        Err(e) => e.clone(),
                        Ok(_) => "Landlock enforced nothing".to_owned(),
                    };
                    return Route::Refuse(format!(
                        "the sandbox is required but Landlock could not be applied: {why}"
                    ));
                }
                // `confined` in results means Landlock and the filter both held.
                let confined = landlock && confinement.setup.seccomp.is_ok();
                Route::Confined(confinement, confined)
            }
            Err(why) if self.status.mode == SandboxMode::Required => Route::Refuse(format!(
                "the sandbox is required but could not be set up: {why}"
            )),
            Err(_) => Route::Direct,
        }
    }

    /// The confinement of a tool with readable paths of its own: built once per profile and
    /// paths (a failure is not kept: the next call tries again).
    fn extended(&self, access: Access, extra: &[PathBuf]) -> Result<Arc<Confinement>, String> {
        let key = (access.index(), extra.to_vec());
        let mut extended = self.extended.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(confinement) = extended.get(&key) {
            return Ok(Arc::clone(confinement));
        }
        let confinement = Arc::new(self.confinement(access, extra)?);
        extended.insert(key, Arc::clone(&confinement));
        Ok(confinement)
    }

    fn confinement(&self, access: Access, extra: &[PathBuf]) -> Result<Confinement, String> {
        let mut read = self.read.clone();
        read.extend(extra.iter().cloned());
        // This profile's own private folders, inside the kernel's (made here, on first use).
        let dirs = self.private_dirs(self.profile_slot(access, extra));
        let (tmpdir, home) = match &dirs {
            Some((tmp, home)) => {
                // The temp dir as the agent reaches it (inside the tmpfs, where commands of
                // this profile enter it), for its folder and its Landlock rule.
                // The home likewise: it lives in the temp dir (`<tmpdir>/home/<profile>`).
                let agent_tmp = self.agent_side(tmp, access);
                let agent_home = self.agent_side(home, access);
                let made = |dir: &Path, shown: &Path| {
                    make_private_dir(dir).map_err(|e| {
                        format!("the private folder {} cannot be made: {e}", shown.display())
                    })
                };
                made(&agent_tmp, tmp)?;
                if let (Some(base), Some(shown)) = (agent_home.parent(), self.home()) {
                    made(base, shown)?;
                }
                made(&agent_home, home)?;
                (Some(agent_tmp), Some(agent_home))
            }
            None => (None, None),
        };
        let profile = Profile {
            workspace: self.workspace.clone(),
            writes: access.writes,
            // A private loopback: TCP and UDP unrestricted inside the call's own namespace.
            network: access.network || access.is_local(),
            tmpdir,
            home,
            read,
            write: self.write.clone(),
            abi: self.status.landlock_abi.as_ref().copied().unwrap_or(0),
        };
        // SAFETY: getpid/getpgrp cannot fail.
        let (pid, pgid) = unsafe { (libc::getpid(), libc::getpgrp()) };
        let filter = FilterSpec {
            agent_pid: pid,
            agent_pgid: pgid,
            // A tool without `network` creates no TCP socket at all, even where Landlock's TCP
            // rules hold: they govern `connect` and `bind`, while some kernels let `sendto`
            // with MSG_FASTOPEN connect, and `listen` bind an ephemeral port, unseen.
            tcp: access.network || access.is_local(),
            udp: access.network || access.is_local(),
            writes: access.writes,
            // Filled in from what Landlock enforces.
            landlock_abi: 0,
            pid_namespace: self.pid_namespace,
            // SAFETY: geteuid cannot fail.
            root: unsafe { libc::geteuid() } == 0,
            shared_memory: self.shared_memory,
        };
        let abi = profile.abi;
        let mut confinement = Confinement::new(&profile, filter, abi, self.status.seccomp)
            .map_err(|e| e.to_string())?;
        if access.is_local() {
            confinement.local_network = self.local_net().as_ref().ok().cloned();
        }
        // Without filter rules for this architecture the command is confined by Landlock, its
        // capabilities, fds and group (the status says what is missing); a filter that this
        // Linux refuses is a failure to build.
        if self.status.seccomp
            && let Err(e) = &confinement.setup.seccomp
        {
            return Err(e.clone());
        }
        Ok(confinement)
    }
}

impl Drop for Sandbox {
    /// The profiles' private folders that are still empty (most calls leave them so) are
    /// removed one `rmdir` each, so that the kernel's folders below are empty when they drop
    /// and need no walk; what is not empty is left to that walk.
    fn drop(&mut self) {
        let built = self.confinements.iter().map(|c| c.get().is_some());
        let mut on_disk = false;
        for (i, ((tmp, home), built)) in self.cached_dirs.iter().zip(built).enumerate() {
            // Bit 2 of the index: a private loopback (`Access::index`). Inside the tmpfs
            // nothing needs removing: it goes with the kernel's mount namespace.
            if built && !self.enters_tempfs(i & 4 != 0) {
                let _ = std::fs::remove_dir(home);
                let _ = std::fs::remove_dir(tmp);
                on_disk = true;
            }
        }
        if let Some(home) = self.home.as_ref().filter(|_| on_disk) {
            let _ = std::fs::remove_dir(home);
        }
    }
}

/// Makes a profile's private folder (owner only), or finds it made.
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        other => other,
    }
}
