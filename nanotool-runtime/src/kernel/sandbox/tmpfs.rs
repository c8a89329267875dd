//! The commands' private temp dir as a tmpfs of bounded size ([`TempFs`]), mounted in a
//! mount namespace of its own that only commands enter: the agent's and the host's mount
//! tables never show it, nothing has to unmount it, and it is gone with its last holder (the
//! kernel's fds, the last command), however the agent ends — `kill -9` included.
//!
//! How: a short-lived child process sharing the agent's memory and file table (`clone` with
//! `CLONE_VM | CLONE_VFORK | CLONE_FILES`, raw system calls only) leaves the agent's mount
//! namespace (`unshare(CLONE_NEWNS)`), turns every mount of its copy into a slave (so nothing
//! mounted there reaches the host's), mounts the tmpfs over the kernel's temp dir, and opens
//! two fds in the agent's table before it exits: the namespace (`/proc/self/ns/mnt`) and the
//! tmpfs's root. The private home is a folder of the temp dir, so it is in the tmpfs too.
//! Each command's spawn child enters that namespace (`setns`) before it changes to the
//! workspace; the agent reaches into the tmpfs through the root fd (`/proc/self/fd/<n>/…`):
//! to make the profiles' folders and to open them for their Landlock rules. Where the agent
//! cannot mount (an ordinary user, a container without `CAP_SYS_ADMIN`) or runs in a chroot
//! (`setns` would take a command out of it), the temp dir stays on disk and the limits line
//! says so. The tmpfs is `nosuid`, `nodev`, and `noexec` where the host's temp dir is (the
//! folder it covers may be made in `/dev/shm`: see `Sandbox::new`).

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
    /// mount namespace, from a child process of its own; `Err` says why it cannot be done
    /// here.
    pub(crate) fn mount(at: &Path, size: u64) -> Result<TempFs, String> {
        mount_in_child(at, size)
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

/// What the mounting child is given, and what it reports: the step it failed at (0: none)
/// with its errno, and the fds it opened (in the agent's file table, which it shares): the
/// namespace, the tmpfs's root, and the root directory it saw after entering the namespace.
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
#[repr(C)]
struct MountJob {
    at: *const libc::c_char,
    options: *const libc::c_char,
    flags: libc::c_ulong,
    step: libc::c_int,
    errno: libc::c_int,
    ns: libc::c_int,
    root: libc::c_int,
    root_seen: libc::c_int,
}

/// The steps of [`mount_child`], numbered as it reports them, and what each failure means.
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
const MOUNT_STEPS: [&str; 7] = [
    "a mount namespace cannot be made",
    "the namespace's mounts cannot be made slaves",
    "a tmpfs cannot be mounted",
    "the mount namespace cannot be opened",
    "the tmpfs cannot be opened",
    "the mount namespace cannot be entered",
    "the namespace's root directory cannot be opened",
];

/// What [`TempFs::mount`] does: a child process sharing the agent's memory and file table
/// leaves the agent's mount namespace for a copy, shapes it, and opens the two fds (in the
/// agent's table) before it exits. A child rather than a thread: it costs no stack, no
/// allocator arena and no thread set-up, and it makes raw system calls only.
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
fn mount_in_child(at: &Path, size: u64) -> Result<TempFs, String> {
    use std::ffi::CString;
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    let c = |s: &[u8]| CString::new(s).map_err(|_| "a path with a NUL byte".to_owned());
    let at_c = c(at.as_os_str().as_bytes())?;
    let root_before = dev_ino(std::fs::metadata("/"))?;
    // A host whose temp dir forbids running programs keeps forbidding it (the host's temp
    // dir, not the folder the tmpfs covers, which may be made elsewhere: see
    // `Sandbox::new`).
    let host_temp = c(std::env::temp_dir().as_os_str().as_bytes())?;
    let noexec = {
        // SAFETY: statvfs fills the zeroed buffer it is given, for a NUL-terminated path.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        (unsafe { libc::statvfs(host_temp.as_ptr(), &mut st) } == 0)
            && st.f_flag & libc::ST_NOEXEC != 0
    };
    let mut flags = libc::MS_NOSUID | libc::MS_NODEV;
    if noexec {
        flags |= libc::MS_NOEXEC;
    }
    let files = TempFs::files_for(size);
    let options = c(format!("size={size},nr_inodes={files},mode=0700").as_bytes())?;
    let mut job = MountJob {
        at: at_c.as_ptr(),
        options: options.as_ptr(),
        flags,
        step: -1,
        errno: 0,
        ns: -1,
        root: -1,
        root_seen: -1,
    };
    // SAFETY: `mount_child` makes raw system calls only, on the `MountJob` it is given (alive
    // until it exits), and ends with `exit`.
    unsafe {
        super::spawn::clone::in_child_process(
            mount_child,
            (&mut job as *mut MountJob).cast(),
            libc::CLONE_FILES,
        )
    }
    .map_err(|e| format!("no child process to mount it from: {e}"))?;
    // SAFETY: fds the child opened in our table, owned by nobody else.
    let owned = |fd: libc::c_int| (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) });
    let (ns, root, root_seen) = (owned(job.ns), owned(job.root), owned(job.root_seen));
    let failed = |step: libc::c_int, errno: libc::c_int| match usize::try_from(step - 1)
        .ok()
        .and_then(|i| MOUNT_STEPS.get(i))
    {
        Some(what) => format!("{what}: {}", std::io::Error::from_raw_os_error(errno)),
        None => "the mounting child ended before it said how it went".to_owned(),
    };
    match (job.step, ns, root, root_seen) {
        (0, Some(ns), Some(root), Some(root_seen)) => {
            // Entering the namespace is what each command does: it puts the root directory
            // at the namespace's. An agent in a chroot would see its commands leave it.
            if dev_ino(std::fs::File::from(root_seen).metadata())? != root_before {
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
        (step, ..) => Err(failed(step, job.errno)),
    }
}

/// The device and inode of a root directory, from its metadata.
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
fn dev_ino(meta: std::io::Result<std::fs::Metadata>) -> Result<(u64, u64), String> {
    use std::os::unix::fs::MetadataExt;
    meta.map(|m| (m.dev(), m.ino()))
        .map_err(|e| format!("the root directory cannot be examined: {e}"))
}

/// The mounting child ([`mount_in_child`]): raw system calls only, on the agent's memory.
#[cfg(all(target_os = "linux", not(nanotool_portable)))]
extern "C" fn mount_child(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the parent's `MountJob`, which outlives this child (the parent waits,
    // `CLONE_VFORK`); each call takes NUL-terminated strings alive in the parent, plain
    // integers, or a buffer of the job; they act on this child's own fs state and mount
    // namespace, and on the file table it shares with the agent.
    unsafe {
        let job = &mut *arg.cast::<MountJob>();
        let fail = |job: &mut MountJob, step: libc::c_int| -> libc::c_int {
            job.step = step;
            job.errno = *libc::__errno_location();
            libc::syscall(libc::SYS_exit, 1);
            1
        };
        if libc::syscall(libc::SYS_unshare, libc::CLONE_NEWNS) != 0 {
            return fail(job, 1);
        }
        let none = std::ptr::null::<libc::c_char>();
        if libc::syscall(
            libc::SYS_mount,
            none,
            c"/".as_ptr(),
            none,
            libc::MS_REC | libc::MS_SLAVE,
            std::ptr::null::<libc::c_void>(),
        ) != 0
        {
            return fail(job, 2);
        }
        if libc::syscall(
            libc::SYS_mount,
            c"tmpfs".as_ptr(),
            job.at,
            c"tmpfs".as_ptr(),
            job.flags,
            job.options,
        ) != 0
        {
            return fail(job, 3);
        }
        let open = |path: *const libc::c_char, flags: libc::c_int| {
            libc::syscall(
                libc::SYS_openat,
                libc::AT_FDCWD,
                path,
                flags | libc::O_CLOEXEC,
            ) as libc::c_int
        };
        job.ns = open(c"/proc/self/ns/mnt".as_ptr(), libc::O_RDONLY);
        if job.ns < 0 {
            return fail(job, 4);
        }
        job.root = open(job.at, libc::O_PATH | libc::O_DIRECTORY);
        if job.root < 0 {
            return fail(job, 5);
        }
        // What each command does: enter the namespace, which puts the root directory at the
        // namespace's (the parent compares it with its own).
        if libc::syscall(libc::SYS_setns, job.ns, libc::CLONE_NEWNS) != 0 {
            return fail(job, 6);
        }
        job.root_seen = open(c"/".as_ptr(), libc::O_PATH | libc::O_DIRECTORY);
        if job.root_seen < 0 {
            return fail(job, 7);
        }
        job.step = 0;
        libc::syscall(libc::SYS_exit, 0);
        0
    }
}
