//! Removing a directory tree that a command may have made hostile: iterative (a tree of any
//! depth costs no stack), with two file descriptors at a time (a tree deeper than the limit on
//! open files is removed all the same), restoring the owner's permissions it needs (a
//! `chmod 0` directory), never following a symbolic link, and checking, on each way up, that
//! the parent is still the directory it came from (a tree moved during the removal stops it
//! rather than sending it elsewhere).

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

// glibc's large-file entry on Linux; elsewhere the one `readdir`.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
use libc::readdir;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
use libc::readdir64 as readdir;

/// Removes `root` and everything in it. An error names the path that could not be removed.
///
/// ```
/// let dir = tempfile::tempdir().unwrap().keep();
/// std::fs::create_dir_all(dir.join("a/b/c")).unwrap();
/// nanotool_runtime::kernel::remove_tree(&dir).unwrap();
/// assert!(!dir.exists());
/// ```
pub fn remove_tree(root: &Path) -> io::Result<()> {
    let at = |below: &[CString], e: io::Error| {
        let mut path = root.to_path_buf();
        for name in below {
            path.push(std::ffi::OsStr::from_bytes(name.as_bytes()));
        }
        with_path(&path, e)
    };
    let root_c = CString::new(root.as_os_str().as_bytes())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // SAFETY: chmod of a NUL-terminated path (a symlink's target is never reached: the open
    // below refuses a link, and the owner's own modes are all that changes).
    unsafe { libc::chmod(root_c.as_ptr(), 0o700) };
    let mut cur = open_dir(libc::AT_FDCWD, &root_c).map_err(|e| at(&[], e))?;
    // The (device, inode) of each directory above `cur`, and the names leading to it.
    let mut above: Vec<(u64, u64)> = Vec::new();
    let mut names: Vec<CString> = Vec::new();
    loop {
        match empty_dir(&cur).map_err(|e| at(&names, e))? {
            Some(sub) => {
                // SAFETY: fchmodat of an entry of `cur`, without following a link.
                unsafe { libc::fchmodat(cur.as_raw_fd(), sub.as_ptr(), 0o700, 0) };
                let next = open_dir(cur.as_raw_fd(), &sub).map_err(|e| {
                    names.push(sub.clone());
                    at(&names, e)
                })?;
                above.push(identity(&cur).map_err(|e| at(&names, e))?);
                names.push(sub);
                cur = next;
            }
            None => {
                let Some(expected) = above.pop() else { break };
                let parent = open_dir(cur.as_raw_fd(), c"..").map_err(|e| at(&names, e))?;
                let name = names.pop().unwrap_or_default();
                if identity(&parent).map_err(|e| at(&names, e))? != expected {
                    return Err(at(
                        &names,
                        io::Error::other("the tree was moved during its removal; stopped there"),
                    ));
                }
                cur = parent;
                // SAFETY: unlinkat of an entry of `cur` (now empty).
                if unsafe { libc::unlinkat(cur.as_raw_fd(), name.as_ptr(), libc::AT_REMOVEDIR) }
                    != 0
                {
                    let e = io::Error::last_os_error();
                    names.push(name);
                    return Err(at(&names, e));
                }
            }
        }
    }
    drop(cur);
    std::fs::remove_dir(root).map_err(|e| at(&[], e))
}

fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("cannot remove {}: {e}", path.display()))
}

/// Opens the directory `name` under `dir`, never through a symbolic link.
fn open_dir(dir: libc::c_int, name: &CStr) -> io::Result<OwnedFd> {
    // SAFETY: openat with a NUL-terminated name; the fd returned is ours.
    let fd = unsafe {
        libc::openat(
            dir,
            name.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh fd nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The (device, inode) of an open file.
fn identity(fd: &OwnedFd) -> io::Result<(u64, u64)> {
    // SAFETY: fstat fills `st`.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above, on an fd we own.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((st.st_dev, st.st_ino))
}

/// Removes every entry of `dir` it can; returns the first subdirectory that is not empty
/// (to descend into), or `None` once `dir` is empty.
fn empty_dir(dir: &OwnedFd) -> io::Result<Option<CString>> {
    // A fresh open of `.` reads from the start (a dup would share the offset).
    let listing = open_dir(dir.as_raw_fd(), c".")?;
    // SAFETY: fdopendir takes the fd over (closedir below closes it).
    let stream = unsafe { libc::fdopendir(listing.as_raw_fd()) };
    if stream.is_null() {
        return Err(io::Error::last_os_error());
    }
    std::mem::forget(listing);
    let result = (|| {
        loop {
            // SAFETY: readdir on a live stream; the entry is read before the next call.
            let entry = unsafe { readdir(stream) };
            if entry.is_null() {
                return Ok(None);
            }
            // SAFETY: a live entry's name is NUL-terminated.
            let (name, kind) = unsafe {
                (
                    CStr::from_ptr((*entry).d_name.as_ptr()).to_owned(),
                    (*entry).d_type,
                )
            };
            if name.as_bytes() == b"." || name.as_bytes() == b".." {
                continue;
            }
            if kind == libc::DT_DIR || kind == libc::DT_UNKNOWN {
                // SAFETY: unlinkat of an entry of `dir`.
                if unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), libc::AT_REMOVEDIR) }
                    == 0
                {
                    continue;
                }
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    // Not empty (or unreadable): go in.
                    Some(libc::ENOTEMPTY | libc::EEXIST | libc::EACCES | libc::EPERM) => {
                        return Ok(Some(name));
                    }
                    // A file after all (DT_UNKNOWN): unlink it below.
                    Some(libc::ENOTDIR) => {}
                    Some(libc::ENOENT) => continue,
                    _ => return Err(e),
                }
            }
            // SAFETY: unlinkat of an entry of `dir`.
            if unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) } != 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::ENOENT) {
                    return Err(e);
                }
            }
        }
    })();
    // SAFETY: closes the stream (and its fd) once.
    unsafe { libc::closedir(stream) };
    result
}
