//! What the agent keeps in places other users can write (`/dev/shm`, the host's temp dir, a
//! cgroup folder another user may be delegated) is trusted only where it lives under a
//! folder of the agent's own user's, checked before use: a directory (never a link), owned
//! by the agent's effective uid, with no permission for group or others ([`OwnDir`]). An
//! entry found there is opened relative to that folder's fd with `O_NOFOLLOW | O_DIRECTORY |
//! O_NONBLOCK` (a FIFO, a device or a link named as the kernel names its folders is never
//! opened, so nothing another user planted can block a start or send it elsewhere), and its
//! owner is checked on the fd before anything is done to it ([`open_own_entry`]). A sweep
//! over such a folder is bounded in time and count ([`SweepBudget`]).
//!
//! Where the folder of the agent's name is another user's (squatted before the agent first
//! made it), it is not used and nothing in it is looked at: a temp dir is then made straight
//! in the shared place by one `mkdir` (atomic: a name taken by anyone is skipped, so what is
//! made is the agent's) and no sweep runs there.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A folder of the agent's own user's in a shared place, checked and held open.
#[derive(Debug)]
pub(crate) struct OwnDir {
    path: PathBuf,
    fd: OwnedFd,
}

/// The flags an entry of a shared place is opened with: never a link, never anything but a
/// directory, never a wait (a FIFO's open for reading waits for a writer).
const SAFE_OPEN: libc::c_int =
    libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_DIRECTORY | libc::O_NONBLOCK | libc::O_CLOEXEC;

impl OwnDir {
    /// `<base>/nanotool-<euid>`, made `0700` where missing, opened without following a link,
    /// and checked on its fd: a directory of the agent's effective uid with no permission for
    /// group or others. `Err` says what is wrong (another user's folder, a link, a FIFO, a
    /// folder others may write), naming it.
    pub(crate) fn in_shared(base: &Path) -> io::Result<OwnDir> {
        // SAFETY: geteuid cannot fail.
        let uid = unsafe { libc::geteuid() };
        let path = base.join(format!("nanotool-{uid}"));
        let c = cstring(&path)?;
        // SAFETY: mkdir of a NUL-terminated path; an existing entry is examined below.
        unsafe { libc::mkdir(c.as_ptr(), 0o700) };
        let refused = |why: String| {
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} {why}: nanotool keeps nothing there", path.display()),
            )
        };
        // Looked at before it is opened (another user's folder is never opened), then checked
        // again on the fd (it may have been swapped meanwhile).
        let check = |st: &libc::stat| {
            if st.st_mode & libc::S_IFMT == libc::S_IFLNK {
                Err(refused("is a symbolic link".to_owned()))
            } else if st.st_mode & libc::S_IFMT != libc::S_IFDIR {
                Err(refused("is not a directory".to_owned()))
            } else if st.st_uid != uid {
                Err(refused(format!(
                    "belongs to uid {}, not to this user (uid {uid})",
                    st.st_uid
                )))
            } else if st.st_mode & 0o077 != 0 {
                Err(refused(format!(
                    "has mode {:o}, which lets other users reach into it (`chmod 700 {}` makes it usable)",
                    st.st_mode & 0o7777,
                    path.display()
                )))
            } else {
                Ok(())
            }
        };
        // SAFETY: fstatat fills the zeroed buffer it is given, for a NUL-terminated path,
        // without following a link.
        let before = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstatat(
                libc::AT_FDCWD,
                c.as_ptr(),
                &mut st,
                libc::AT_SYMLINK_NOFOLLOW,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            st
        };
        check(&before)?;
        let fd = open_at(libc::AT_FDCWD, &c)
            .map_err(|e| refused(format!("cannot be opened as a directory ({e})")))?;
        check(&fstat(&fd)?)?;
        Ok(OwnDir { path, fd })
    }

    /// `path`, a folder that exists (a cgroup the agent's user was delegated), opened without
    /// following a link and checked on its fd: a directory of the agent's effective uid that
    /// no other user may write. `Err` says what is wrong, naming it.
    pub(crate) fn existing(path: &Path) -> io::Result<OwnDir> {
        // SAFETY: geteuid cannot fail.
        let uid = unsafe { libc::geteuid() };
        let fd = open_at(libc::AT_FDCWD, &cstring(path)?).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("{} cannot be opened: {e}", path.display()),
            )
        })?;
        let st = fstat(&fd)?;
        if st.st_uid != uid || st.st_mode & 0o022 != 0 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{} belongs to uid {} with mode {:o}: another user may write it, so nanotool keeps nothing there",
                    path.display(),
                    st.st_uid,
                    st.st_mode & 0o7777
                ),
            ));
        }
        Ok(OwnDir {
            path: path.to_path_buf(),
            fd,
        })
    }

    /// Its path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Its fd.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        use std::os::fd::AsFd;
        self.fd.as_fd()
    }
}

/// `name` in the folder `dir`, opened as a directory ([`SAFE_OPEN`]) only where it is one of
/// the agent's effective uid: first looked at without following or opening it (so a FIFO,
/// a device, a link or another user's folder is never opened), then checked again on the fd
/// (it may have been swapped meanwhile). `None`: anything else.
pub(crate) fn open_own_entry(dir: BorrowedFd<'_>, name: &CStr) -> Option<OwnedFd> {
    // SAFETY: geteuid cannot fail.
    let uid = unsafe { libc::geteuid() };
    let ours = |st: &libc::stat| st.st_uid == uid && st.st_mode & libc::S_IFMT == libc::S_IFDIR;
    // SAFETY: fstatat fills the zeroed buffer it is given, for an entry of an fd we hold,
    // without following a link.
    let before = unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        (libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        ) == 0)
            .then_some(st)
    }?;
    if !ours(&before) {
        return None;
    }
    let fd = open_at(dir.as_raw_fd(), name).ok()?;
    fstat(&fd).ok().filter(ours).map(|_| fd)
}

/// The names in the folder `dir` (`.` and `..` left out), at most `budget` allows: read
/// through a duplicate of its fd, so the folder read is the one checked.
pub(crate) fn entry_names(dir: BorrowedFd<'_>, budget: &mut SweepBudget) -> Vec<CString> {
    let mut names = Vec::new();
    // SAFETY: a duplicate of an fd we hold, given to fdopendir which owns it from then on and
    // closes it in closedir; readdir's entries are read before the next call.
    unsafe {
        let dup = libc::fcntl(dir.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0);
        if dup < 0 {
            return names;
        }
        // From the start, whatever was read through the fd before.
        libc::lseek(dup, 0, libc::SEEK_SET);
        let stream = libc::fdopendir(dup);
        if stream.is_null() {
            libc::close(dup);
            return names;
        }
        while budget.take() {
            let entry = libc::readdir(stream);
            if entry.is_null() {
                break;
            }
            let name = CStr::from_ptr((*entry).d_name.as_ptr());
            if name != c"." && name != c".." {
                names.push(name.to_owned());
            }
        }
        libc::closedir(stream);
    }
    names
}

/// How much one sweep may look at: [`SweepBudget::ENTRIES`] entries and
/// [`SweepBudget::TIME`], whichever ends first; what is left is left to the next start.
#[derive(Debug)]
pub(crate) struct SweepBudget {
    left: usize,
    until: Instant,
}

impl SweepBudget {
    /// Entries one sweep looks at, at most.
    pub(crate) const ENTRIES: usize = 256;
    /// Time one sweep takes, at most.
    pub(crate) const TIME: Duration = Duration::from_millis(100);

    /// A fresh budget.
    pub(crate) fn new() -> SweepBudget {
        SweepBudget {
            left: Self::ENTRIES,
            until: Instant::now() + Self::TIME,
        }
    }

    /// Whether one more entry may be looked at (and counts it).
    pub(crate) fn take(&mut self) -> bool {
        if self.left == 0 || Instant::now() >= self.until {
            return false;
        }
        self.left -= 1;
        true
    }
}

/// `path` as a C string.
pub(crate) fn cstring(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))
}

/// `name` relative to `dir` with [`SAFE_OPEN`].
fn open_at(dir: libc::c_int, name: &CStr) -> io::Result<OwnedFd> {
    // SAFETY: openat of a NUL-terminated name; the fd returned is owned by nobody else.
    let fd = unsafe { libc::openat(dir, name.as_ptr(), SAFE_OPEN) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh fd of ours.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The `stat` of an fd.
fn fstat(fd: &OwnedFd) -> io::Result<libc::stat> {
    // SAFETY: fstat fills the zeroed buffer it is given, for an fd we own.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(fd.as_raw_fd(), &mut st) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(st)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_own_folder_is_made_private_and_found_again() {
        let base = tempfile::tempdir().unwrap();
        let first = OwnDir::in_shared(base.path()).unwrap();
        let meta = std::fs::symlink_metadata(first.path()).unwrap();
        assert!(meta.is_dir());
        assert_eq!(meta.permissions().mode() & 0o777, 0o700);
        let again = OwnDir::in_shared(base.path()).unwrap();
        assert_eq!(again.path(), first.path());
    }

    #[test]
    fn a_link_a_fifo_or_a_folder_others_may_write_is_not_used() {
        // SAFETY: geteuid cannot fail.
        let uid = unsafe { libc::geteuid() };
        let name = format!("nanotool-{uid}");
        let base = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), base.path().join(&name)).unwrap();
        let e = OwnDir::in_shared(base.path()).unwrap_err().to_string();
        assert!(e.contains("symbolic link") && e.contains(&name), "{e}");

        let base = tempfile::tempdir().unwrap();
        let fifo = cstring(&base.path().join(&name)).unwrap();
        // SAFETY: mkfifo of a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let e = OwnDir::in_shared(base.path()).unwrap_err().to_string();
        assert!(e.contains("not a directory"), "{e}");

        let base = tempfile::tempdir().unwrap();
        std::fs::create_dir(base.path().join(&name)).unwrap();
        std::fs::set_permissions(
            base.path().join(&name),
            std::fs::Permissions::from_mode(0o777),
        )
        .unwrap();
        let e = OwnDir::in_shared(base.path()).unwrap_err().to_string();
        assert!(e.contains("mode 777") && e.contains("chmod 700"), "{e}");
        assert!(e.contains(&name), "{e}");
    }

    #[test]
    fn an_existing_folder_others_may_write_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(OwnDir::existing(dir.path()).is_ok());
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        let e = OwnDir::existing(dir.path()).unwrap_err().to_string();
        assert!(e.contains("another user may write it"), "{e}");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("/", &link).unwrap();
        assert!(OwnDir::existing(&link).is_err());
    }

    #[test]
    fn only_the_agents_own_directories_are_opened() {
        let base = tempfile::tempdir().unwrap();
        let own = OwnDir::in_shared(base.path()).unwrap();
        std::fs::create_dir(own.path().join("dir")).unwrap();
        std::fs::write(own.path().join("file"), "x").unwrap();
        std::os::unix::fs::symlink(base.path(), own.path().join("link")).unwrap();
        let fifo = cstring(&own.path().join("fifo")).unwrap();
        // SAFETY: mkfifo of a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert!(open_own_entry(own.fd(), c"dir").is_some());
        for name in [c"file", c"link", c"fifo", c"missing"] {
            assert!(open_own_entry(own.fd(), name).is_none(), "{name:?}");
        }
        let mut names = entry_names(own.fd(), &mut SweepBudget::new());
        names.sort();
        assert_eq!(
            names,
            [c"dir", c"fifo", c"file", c"link"].map(CStr::to_owned)
        );
    }

    #[test]
    fn a_sweep_looks_at_a_bounded_number_of_entries() {
        let mut budget = SweepBudget::new();
        let taken = std::iter::from_fn(|| budget.take().then_some(())).count();
        assert_eq!(taken, SweepBudget::ENTRIES);
    }
}
