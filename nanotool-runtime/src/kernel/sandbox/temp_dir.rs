//! The kernel's private temp dir: a folder of the agent's own (mode 0700, removed with
//! everything in it on drop), made in the host's temp dir, or in `/dev/shm` where it is the
//! mount point of the tmpfs (`tmpfs`) and the host names no temp dir; and the sweep of the
//! mount points that agents gone left there.

use super::own_dir;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

/// Where the folder the temp dir's tmpfs covers is made: it holds nothing on the host's side,
/// so where the host names no temp dir (`TMPDIR` unset) it is made in `/dev/shm` when that is
/// a tmpfs: making and removing a folder there costs a few microseconds, against an ext4
/// `/tmp`'s inode and block allocation, journal and (mounted `discard`) a device discard on
/// removal, 70 µs to 0.25 ms. `None`: the host's temp dir.
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
fn mount_point_base() -> Option<PathBuf> {
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    if std::env::var_os("TMPDIR").is_some_and(|dir| !dir.is_empty()) {
        return None;
    }
    // SAFETY: statfs fills the zeroed buffer it is given, for a NUL-terminated path.
    let on_tmpfs = unsafe {
        let mut st: libc::statfs = std::mem::zeroed();
        libc::statfs(c"/dev/shm".as_ptr(), &mut st) == 0 && st.f_type as i64 == TMPFS_MAGIC
    };
    on_tmpfs.then(|| PathBuf::from("/dev/shm"))
}

/// The tmpfs's mount point made in `/dev/shm` ([`mount_point_base`]), in the agent's own
/// folder there (`/dev/shm/nanotool-<uid>`, checked: [`own_dir::OwnDir`]), with its lock
/// taken before anything is mounted on it (so no sweep removes a folder with a tmpfs on it;
/// one that got there first leaves no folder to mount on, and the mount fails); stale ones of
/// agents gone swept first. `None`: made in the host's temp dir instead (no `/dev/shm`, or
/// its folder of the agent's name is not the agent's).
pub(super) fn shm_mount_point() -> Option<(TempDir, OwnedFd)> {
    let base = mount_point_base()?;
    let own = own_dir::OwnDir::in_shared(&base).ok()?;
    sweep_stale_mount_points(&own);
    let dir = TempDir::new_in(own.path()).ok()?;
    let lock = lock_shared(&dir.0)?;
    Some((dir, lock))
}

/// Removes the mount points that agents no longer running left in `own` (the agent's own
/// folder in `/dev/shm`): an agent killed with `SIGKILL` runs no cleanup, and while its tmpfs
/// goes with its namespace, the empty folder it covered stays. Only a directory of this user
/// named as [`TempDir::new_in`] names them, of a pid that no longer runs, that no kernel holds
/// (`flock`, see `Sandbox::shm_lock`), and empty (one `rmdir`, which refuses anything else); a
/// running agent's are left alone, this one's other kernels' included. Each entry is opened
/// only as [`own_dir::open_own_entry`] opens one (never a FIFO, a link or another user's), and
/// the sweep stops at [`own_dir::SweepBudget`].
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
fn sweep_stale_mount_points(own: &own_dir::OwnDir) {
    use std::os::fd::AsRawFd;
    let mut budget = own_dir::SweepBudget::new();
    for name in own_dir::entry_names(own.fd(), &mut budget) {
        let Some(pid) = name
            .to_str()
            .ok()
            .and_then(|n| n.strip_prefix("nanotool-"))
            .and_then(|n| {
                let mut parts = n.split('-');
                let (pid, stamp, attempt) = (parts.next()?, parts.next()?, parts.next()?);
                let named = parts.next().is_none()
                    && stamp.len() == 8
                    && stamp.bytes().all(|b| b.is_ascii_hexdigit())
                    && attempt.parse::<u32>().is_ok();
                named.then(|| pid.parse::<u32>().ok()).flatten()
            })
        else {
            continue;
        };
        if pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        // Gone from this PID namespace; held by no kernel (in any namespace) either.
        let Some(dir) = own_dir::open_own_entry(own.fd(), &name) else {
            continue;
        };
        // SAFETY: flock on an fd we own.
        let free = unsafe { libc::flock(dir.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        if free {
            // SAFETY: unlinkat of a NUL-terminated name in a folder we hold; `AT_REMOVEDIR`
            // removes an empty directory only.
            unsafe { libc::unlinkat(own.fd().as_raw_fd(), name.as_ptr(), libc::AT_REMOVEDIR) };
        }
    }
}

/// `dir` open (read-only, close-on-exec) with a shared `flock`, for as long as the fd lives.
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
fn lock_shared(dir: &Path) -> Option<OwnedFd> {
    let file = std::fs::File::open(dir).ok()?;
    // SAFETY: flock on an fd we own.
    let locked = unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&file), libc::LOCK_SH) } == 0;
    locked.then(|| OwnedFd::from(file))
}

/// No tmpfs is mounted off Linux: no lock either.
#[cfg(not(all(target_os = "linux", not(nanotool_portable))))]
fn lock_shared(_dir: &Path) -> Option<OwnedFd> {
    None
}

/// No tmpfs is mounted off Linux: nothing is left to sweep.
#[cfg(not(all(target_os = "linux", not(nanotool_portable))))]
fn sweep_stale_mount_points(_own: &own_dir::OwnDir) {}

/// No tmpfs is mounted off Linux: the host's temp dir.
#[cfg(not(all(target_os = "linux", not(nanotool_portable))))]
fn mount_point_base() -> Option<PathBuf> {
    None
}

/// A private directory, mode 0700, removed with everything in it on drop.
pub(super) struct TempDir(pub(super) PathBuf);

impl TempDir {
    /// A new one in the agent's own folder in `base`, a place other users may write (the
    /// host's temp dir): `<base>/nanotool-<uid>/nanotool-<pid>-...` ([`own_dir::OwnDir`]);
    /// where that folder is not the agent's (another user made it first), straight in `base`
    /// (one `mkdir`, which takes no name anyone holds).
    pub(super) fn new_in_shared(base: &Path) -> std::io::Result<TempDir> {
        match own_dir::OwnDir::in_shared(base) {
            Ok(own) => TempDir::new_in(own.path()),
            Err(_) => TempDir::new_in(base),
        }
    }

    /// A new one in `base`, named `nanotool-<pid>-...`.
    fn new_in(base: &Path) -> std::io::Result<TempDir> {
        use std::os::unix::fs::DirBuilderExt;
        let pid = std::process::id();
        for attempt in 0..1000u32 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let path = base.join(format!("nanotool-{pid}-{nanos:08x}-{attempt}"));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(TempDir(path.canonicalize().unwrap_or(path))),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(std::io::Error::new(
                        e.kind(),
                        format!(
                            "cannot create the commands' private temp dir in {}: {e}",
                            base.display()
                        ),
                    ));
                }
            }
        }
        Err(std::io::Error::other(
            "cannot create the commands' private temp dir: every name was taken",
        ))
    }
}

impl Drop for TempDir {
    /// Removed however deep or locked its content (`tree`): a drop has nobody to report a
    /// failure to; a host that must know calls [`remove_tree`](super::super::tree::remove_tree)
    /// itself first (the `serve` command does, and logs the path).
    fn drop(&mut self) {
        // Most calls leave it empty: one `rmdir` then, the walk only when something is left
        // (or the name is no longer a directory, which `remove_tree` refuses to follow).
        if std::fs::remove_dir(&self.0).is_err() {
            let _ = super::super::tree::remove_tree(&self.0);
        }
    }
}
