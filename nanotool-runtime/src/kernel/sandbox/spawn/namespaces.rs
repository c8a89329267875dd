//! The namespaces the child was born in, settled before it confines itself: in a user
//! namespace of its own, the agent's ids mapped to themselves; in a network namespace of its
//! own (the private loopback, `loopback`), its `lo` up.

use super::step::Step;
use std::ffi::CStr;

/// A `uid_map` and a `gid_map` as the child writes them: pointer and length of each.
pub(super) type IdMaps = ((*const u8, usize), (*const u8, usize));

/// In a user namespace: the agent's ids, mapped to themselves. Best effort: a non-dumpable
/// agent's `/proc/self` files are root's, out of the child's reach; an unmapped command still
/// creates files with the agent's ids (the kernel's ids do not change), it only sees itself
/// and them as the overflow user (`nobody`). In a network namespace of its own (`loopback`):
/// its `lo` brought up.
///
/// # Safety
/// The spawn child's only: raw system calls; the pointers of `maps` are valid for their
/// lengths (null: no user namespace).
pub(super) unsafe fn settle(maps: IdMaps, loopback: bool) -> Result<(), Step> {
    // SAFETY: as this function's contract.
    let _ = unsafe { write_id_maps(maps) };
    if loopback && !loopback_up() {
        return Err(Step::Loopback);
    }
    Ok(())
}

/// In a new user namespace: `setgroups` denied (which an unprivileged `gid_map` needs), then
/// the agent's uid and gid mapped to themselves. Nothing without one. `Err` when a write
/// fails (the caller goes on unmapped).
///
/// # Safety
/// Raw system calls only; the map pointers are valid for their lengths.
unsafe fn write_id_maps(maps: IdMaps) -> Result<(), Step> {
    let (uid_map, gid_map) = maps;
    if uid_map.0.is_null() {
        return Ok(());
    }
    let write = |path: &CStr, data: *const u8, len: usize| -> bool {
        // SAFETY: `path` is NUL-terminated; `data` is valid for `len` bytes.
        unsafe {
            let fd = libc::syscall(
                libc::SYS_openat,
                libc::AT_FDCWD,
                path.as_ptr(),
                libc::O_WRONLY | libc::O_CLOEXEC,
            );
            if fd < 0 {
                return false;
            }
            let n = libc::syscall(libc::SYS_write, fd, data, len);
            libc::syscall(libc::SYS_close, fd);
            n == len as libc::c_long
        }
    };
    let deny = b"deny";
    if !write(c"/proc/self/setgroups", deny.as_ptr(), deny.len())
        || !write(c"/proc/self/uid_map", uid_map.0, uid_map.1)
        || !write(c"/proc/self/gid_map", gid_map.0, gid_map.1)
    {
        return Err(Step::IdMaps);
    }
    Ok(())
}

/// Brings up `lo` in the child's new network namespace (`SIOCSIFFLAGS`), with raw system
/// calls only; `false` when it cannot.
fn loopback_up() -> bool {
    // `struct ifreq`: the name, then the flags (a short) where the union starts.
    let mut ifreq = [0u8; 40];
    ifreq[..2].copy_from_slice(b"lo");
    let flags = (libc::IFF_UP | libc::IFF_RUNNING | libc::IFF_LOOPBACK) as i16;
    ifreq[16..18].copy_from_slice(&flags.to_ne_bytes());
    // SAFETY: a socket of this child's, an ioctl reading and writing `ifreq` (40 bytes, the
    // kernel's `struct ifreq`), and its close.
    unsafe {
        let fd = libc::syscall(
            libc::SYS_socket,
            libc::AF_INET,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            0,
        );
        if fd < 0 {
            return false;
        }
        let ok = libc::syscall(libc::SYS_ioctl, fd, libc::SIOCSIFFLAGS, ifreq.as_mut_ptr()) == 0;
        libc::syscall(libc::SYS_close, fd);
        ok
    }
}
