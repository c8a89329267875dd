//! What a confined command may touch ([`Profile`]) and how far its Landlock ruleset took
//! ([`Enforced`]): built and named by the sandbox on every backend, turned into a ruleset by
//! the Linux backend's `rules`; the portable backend builds no ruleset.

use std::path::PathBuf;

/// What a confined command may touch.
#[derive(Debug, Clone)]
#[cfg_attr(
    not(all(target_os = "linux", not(nanotool_portable))),
    allow(dead_code) // Built by the sandbox as on Linux; nothing reads it there.
)]
pub(crate) struct Profile {
    /// The workspace root (canonical).
    pub workspace: PathBuf,
    /// The workspace is writable.
    pub writes: bool,
    /// TCP and UDP are unrestricted.
    pub network: bool,
    /// The kernel's private temporary directory (read-write).
    pub tmpdir: Option<PathBuf>,
    /// The kernel's private home (read-write).
    pub home: Option<PathBuf>,
    /// Host-added read-only paths (canonical).
    pub read: Vec<PathBuf>,
    /// Host-added read-write paths (canonical).
    pub write: Vec<PathBuf>,
    /// The Landlock ABI to write the ruleset for: `rules::ABI_TARGET`, or lower to play an older
    /// Linux (what an ABI does not know is not handled, as that Linux would not handle it).
    pub abi: u32,
}

/// How far the ruleset took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    not(all(target_os = "linux", not(nanotool_portable))),
    allow(dead_code) // Named by the sandbox's routing; no ruleset is built there.
)]
pub(crate) enum Enforced {
    Fully,
    Partially,
    Not,
}
