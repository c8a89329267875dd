//! What a profile's seccomp filter allows beyond the common rules ([`FilterSpec`]): built by
//! the sandbox on every backend, read by the Linux filter's writer (`seccomp`); the portable
//! backend writes no filter and only carries it.

/// What the filter allows beyond the common rules.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(
    not(all(target_os = "linux", not(nanotool_portable))),
    allow(dead_code) // Built by the sandbox as on Linux; nothing reads it there.
)]
pub(crate) struct FilterSpec {
    /// The agent's pid (signals towards it are refused where nothing else confines them).
    pub agent_pid: libc::pid_t,
    /// The agent's process group at build time.
    pub agent_pgid: libc::pid_t,
    /// TCP sockets may be created (a `network` tool; Landlock's TCP rules are a second
    /// layer for the others, never the only one).
    pub tcp: bool,
    /// UDP sockets may be created (a `network` tool).
    pub udp: bool,
    /// Metadata changes (`chmod` without setuid or world-writable bits, `chown`,
    /// timestamps) are allowed (a `writes` tool).
    pub writes: bool,
    /// The Landlock ABI the command's ruleset is enforced at (0: Landlock enforces nothing).
    /// From 1, Landlock refuses ptrace-class access outside the command's domain; from 3 it
    /// governs truncation; from 6 it scopes signals to the domain.
    pub landlock_abi: u32,
    /// The command runs in a PID namespace of its own, where no outside process can be named
    /// by pid (the pid-naming rules are lifted).
    pub pid_namespace: bool,
    /// The agent runs as root, so a `writes` command keeps `CAP_FOWNER` and `chmod` reaches
    /// root-owned files anywhere (Landlock does not govern modes): setgid is refused too,
    /// as a setgid-root interpreter makes a group-writable file a way to root.
    pub root: bool,
    /// Anonymous shared memory may be made (`mmap` with `MAP_SHARED | MAP_ANONYMOUS`,
    /// `memfd_create`): a memory cgroup bounds the call, or no memory limit is set. Elsewhere
    /// no limit would count it (`RLIMIT_DATA` counts private mappings only), so it is
    /// refused, as memory the limit does not allow (`ENOMEM`) or a call this kernel lacks
    /// (`ENOSYS`, where programs fall back to a file in the temp dir, which its tmpfs's size
    /// bounds).
    pub shared_memory: bool,
}
