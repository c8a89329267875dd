//! The private loopback of a `"network": "local"` command: how it gets a network namespace
//! of its own ([`LocalNet`], tried once per kernel by [`local_network`]), and its `lo`, which
//! the child brings up ([`up`]) before it confines itself.

use super::clone::try_namespace;
use std::ffi::c_int;

/// How a `"network": "local"` command gets its private loopback: a network namespace of its
/// own (`CLONE_NEWNET`), directly where the agent may make one (root), else through a user
/// namespace; its `lo` brought up by the child before it confines itself
/// ([`up`]). Decided once per kernel ([`local_network`]).
#[derive(Debug)]
pub(crate) struct LocalNet {
    /// `CLONE_NEWNET`, with `CLONE_NEWUSER` for an ordinary user.
    pub(super) flags: c_int,
    /// With a user namespace: the `uid_map` and `gid_map` lines.
    pub(super) maps: Option<(Vec<u8>, Vec<u8>)>,
}

impl LocalNet {
    /// Whether its commands start in a user namespace of their own.
    pub(crate) fn through_user(&self) -> bool {
        self.flags & libc::CLONE_NEWUSER != 0
    }
}

/// Tries a network namespace the way a `"network": "local"` command gets one (directly, then
/// through a user namespace), with a child that does only that and exits.
pub(crate) fn local_network() -> Result<LocalNet, String> {
    let direct_error = match try_namespace(libc::CLONE_NEWNET) {
        Ok(()) => {
            return Ok(LocalNet {
                flags: libc::CLONE_NEWNET,
                maps: None,
            });
        }
        Err(e) => e,
    };
    // SAFETY: getuid/getgid cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let through_user = libc::CLONE_NEWNET | libc::CLONE_NEWUSER;
    match try_namespace(through_user) {
        Ok(()) => Ok(LocalNet {
            flags: through_user,
            maps: Some((
                format!("{uid} {uid} 1\n").into_bytes(),
                format!("{gid} {gid} 1\n").into_bytes(),
            )),
        }),
        Err(user_error) => Err(format!(
            "no network namespace can be made here (directly: {direct_error}; through a user namespace: {user_error})"
        )),
    }
}

/// Brings up `lo` in the child's new network namespace (`SIOCSIFFLAGS`), with raw system
/// calls only; `false` when it cannot.
pub(super) fn up() -> bool {
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
