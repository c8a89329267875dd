//! The private loopback of a `"network": "local"` command: how it gets a network namespace
//! of its own ([`LocalNet`]), tried once per kernel ([`local_network`]); the child brings its
//! `lo` up (`namespaces`) before it confines itself.

use super::clone::try_namespace;
use std::ffi::c_int;

/// How a `"network": "local"` command gets its private loopback: a network namespace of its
/// own (`CLONE_NEWNET`), directly where the agent may make one (root), else through a user
/// namespace; its `lo` brought up by the child before it confines itself
/// (`namespaces::loopback_up`). Decided once per kernel ([`local_network`]).
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
