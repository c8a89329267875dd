//! What a start takes, on every backend: the command and where its output goes, as the kernel
//! prepared them. Each backend's `spawn_plain` (unconfined) and `Confinement::spawn`
//! (confined) start one; only the system calls behind them differ.

use super::super::limits::ChildLimits;
use super::spawn::CStrings;
use std::ffi::CStr;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::Path;

/// One command to start: `program` with argv `argv` and the environment `env` (nothing else),
/// in `cwd`, stdout and stderr on `output` (a pipe's write end), leading its own group.
pub(crate) struct Start<'a> {
    pub(crate) program: &'a Path,
    pub(crate) argv: &'a CStrings,
    pub(crate) env: &'a CStrings,
    pub(crate) cwd: &'a CStr,
    pub(crate) output: &'a OwnedFd,
    /// The call's limits, set in the child before the program runs.
    pub(crate) limits: Option<&'a ChildLimits>,
    /// The call's cgroup, to start the child in (Linux: `clone3` with `CLONE_INTO_CGROUP`).
    #[cfg_attr(
        not(all(target_os = "linux", not(nanotool_portable))),
        allow(dead_code, reason = "std's spawn has no cgroup to start in")
    )]
    pub(crate) cgroup: Option<BorrowedFd<'a>>,
    /// The mount namespace of the private temp dir's tmpfs, to enter (Linux: `setns`).
    pub(crate) mount_ns: Option<BorrowedFd<'a>>,
}
