//! The commands' private temp dir as a tmpfs of bounded size ([`TempFs`]), mounted in a
//! mount namespace of its own that only commands enter: the agent's and the host's mount
//! tables never show it, nothing has to unmount it, and it is gone with its last holder (the
//! kernel's fds, the last command), however the agent ends — `kill -9` included.
//!
//! How: a short-lived thread of the agent leaves the agent's mount namespace
//! (`unshare(CLONE_NEWNS)`, which a thread may do alone), turns every mount of its copy into
//! a slave (so nothing mounted there reaches the host's), mounts the tmpfs over the kernel's
//! temp dir, and opens two fds before it ends: the namespace (`/proc/thread-self/ns/mnt`) and
//! the tmpfs's root. Each command's spawn child enters that namespace (`setns`) before it
//! changes to the workspace; the agent reaches into the tmpfs through the root fd
//! (`/proc/self/fd/<n>/…`): to make the profiles' folders and to open them for their Landlock
//! rules. Where the agent cannot mount (an ordinary user, a container without
//! `CAP_SYS_ADMIN`) or runs in a chroot (`setns` would take a command out of it), the temp dir
//! stays on disk and the limits line says so. The tmpfs is `nosuid`, `nodev`, and `noexec`
//! where the folder it covers is.

use std::fmt;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

/// The tmpfs under the kernel's private temp dir, and the mount namespace that shows it.
pub(crate) struct TempFs {
    /// The mount namespace in which the tmpfs covers the temp dir (it lives as long as this fd
    /// or a command in it).
    ns: OwnedFd,
    /// The tmpfs's root directory (`O_PATH`), the agent's way into it.
    root: OwnedFd,
    /// Its size in bytes.
    pub size: u64,
    /// How many files and folders it may hold.
    pub files: u64,
}

impl fmt::Debug for TempFs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TempFs")
            .field("size", &self.size)
            .field("files", &self.files)
            .finish()
    }
}

#[cfg(all(target_os = "linux", not(nanotool_portable)))]
/// Bytes of the size per file the tmpfs may hold: a 1 GiB tmpfs holds 131,072 files and
/// folders (each costs the host memory beyond the size: its inode).
const BYTES_PER_FILE: u64 = 8 << 10;

impl TempFs {
    /// The number of files a tmpfs of `size` bytes may hold.
    #[cfg(all(target_os = "linux", not(nanotool_portable)))]
    pub(crate) fn files_for(size: u64) -> u64 {
        (size / BYTES_PER_FILE).max(64)
    }

    /// The namespace fd, for the spawn child's `setns`.
    pub(crate) fn ns(&self) -> std::os::fd::BorrowedFd<'_> {
        use std::os::fd::AsFd;
        self.ns.as_fd()
    }

    /// The path by which the agent reaches `path` (a path under `at`, the temp dir the tmpfs
    /// covers, as commands see it) inside the tmpfs: `/proc/self/fd/<root>/<rest>`.
    pub(crate) fn agent_path(&self, at: &Path, path: &Path) -> Option<PathBuf> {
        use std::os::fd::AsRawFd;
        let rest = path.strip_prefix(at).ok()?;
        Some(Path::new(&format!("/proc/self/fd/{}", self.root.as_raw_fd())).join(rest))
    }
}

#[cfg(all(target_os = "linux", not(nanotool_portable)))]
impl TempFs {
    /// Mounts a tmpfs of `size` bytes over `at` (an empty directory of the agent's) in a new
    /// mount namespace, on a thread of its own; `Err` says why it cannot be done here.
    pub(crate) fn mount(at: &Path, size: u64) -> Result<TempFs, String> {
        let at = at.to_path_buf();
        std::thread::Builder::new()
            .name("nanotool-tmpfs".to_owned())
            .spawn(move || mount_here(&at, size))
            .map_err(|e| format!("no thread to mount it from: {e}"))?
            .join()
            .unwrap_or_else(|_| Err("the mounting thread panicked".to_owned()))
    }
}

#[cfg(all(target_os = "linux", not(nanotool_portable)))]
impl TempFs {
    /// Whether it is full: less than 64 KiB or no file left.
    pub(crate) fn is_full(&self) -> bool {
        use std::os::fd::AsRawFd;
        // SAFETY: fstatfs fills the zeroed buffer it is given, for an fd we own.
        unsafe {
            let mut st: libc::statfs = std::mem::zeroed();
            libc::fstatfs(self.root.as_raw_fd(), &mut st) == 0
                && ((st.f_bavail as u64).saturating_mul(st.f_bsize as u64) < 64 << 10
                    || st.f_ffree == 0)
        }
    }
}

#[cfg(not(all(target_os = "linux", not(nanotool_portable))))]
impl TempFs {
    /// Never: there is none.
    pub(crate) fn is_full(&self) -> bool {
        false
    }

    /// No tmpfs off Linux: the temp dir stays on disk.
    pub(crate) fn mount(_at: &Path, _size: u64) -> Result<TempFs, String> {
        Err("mount namespaces are Linux's".to_owned())
    }
}

/// What [`TempFs::mount`] does on its own thread: this thread leaves the agent's mount
/// namespace for a copy, which it shapes and hands over as fds before it ends.
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
fn mount_here(at: &Path, size: u64) -> Result<TempFs, String> {
    use std::ffi::CString;
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    let errno = || std::io::Error::last_os_error();
    let c = |s: &[u8]| CString::new(s).map_err(|_| "a path with a NUL byte".to_owned());
    let at_c = c(at.as_os_str().as_bytes())?;
    let root_before = stat_of(c"/")?;
    // A host whose temp dir forbids running programs keeps forbidding it.
    let noexec = {
        // SAFETY: statvfs fills the zeroed buffer it is given, for a NUL-terminated path.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        (unsafe { libc::statvfs(at_c.as_ptr(), &mut st) } == 0) && st.f_flag & libc::ST_NOEXEC != 0
    };
    let mut flags = libc::MS_NOSUID | libc::MS_NODEV;
    if noexec {
        flags |= libc::MS_NOEXEC;
    }
    let files = TempFs::files_for(size);
    let options = c(format!("size={size},nr_inodes={files},mode=0700").as_bytes())?;
    // SAFETY: each call takes NUL-terminated strings alive for its duration, or plain
    // integers; they act on this thread's own fs state and mount namespace.
    unsafe {
        if libc::unshare(libc::CLONE_NEWNS) != 0 {
            return Err(format!("a mount namespace cannot be made: {}", errno()));
        }
        if libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_SLAVE,
            std::ptr::null(),
        ) != 0
        {
            return Err(format!(
                "the namespace's mounts cannot be made slaves: {}",
                errno()
            ));
        }
        if libc::mount(
            c"tmpfs".as_ptr(),
            at_c.as_ptr(),
            c"tmpfs".as_ptr(),
            flags,
            options.as_ptr().cast(),
        ) != 0
        {
            return Err(format!("a tmpfs cannot be mounted: {}", errno()));
        }
        let ns = libc::open(
            c"/proc/thread-self/ns/mnt".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if ns < 0 {
            return Err(format!("the mount namespace cannot be opened: {}", errno()));
        }
        let ns = OwnedFd::from_raw_fd(ns);
        let root = libc::open(
            at_c.as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        );
        if root < 0 {
            return Err(format!("the tmpfs cannot be opened: {}", errno()));
        }
        let root = OwnedFd::from_raw_fd(root);
        // Entering the namespace is what each command does: it puts the root directory at
        // the namespace's. An agent in a chroot would see its commands leave it.
        if libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNS) != 0 {
            return Err(format!(
                "the mount namespace cannot be entered: {}",
                errno()
            ));
        }
        if stat_of(c"/")? != root_before {
            return Err(
                "the agent runs in a chroot, which commands entering a mount namespace would leave"
                    .to_owned(),
            );
        }
        Ok(TempFs {
            ns,
            root,
            size,
            files,
        })
    }
}

/// The device and inode of `path`.
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
fn stat_of(path: &std::ffi::CStr) -> Result<(u64, u64), String> {
    // SAFETY: stat fills the zeroed buffer it is given.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::stat(path.as_ptr(), &mut st) != 0 {
            return Err(format!(
                "{} cannot be examined: {}",
                path.to_string_lossy(),
                std::io::Error::last_os_error()
            ));
        }
        Ok((st.st_dev, st.st_ino))
    }
}
