//! The lists the rules are written from, the same on every architecture: the calls every
//! command may make, and the `ioctl` requests by what the rules do with them.

/// `ioctl` requests that set who an fd's I/O signals go to.
pub(super) const IOCTL_OWNER: [u32; 2] = [
    0x8901, // FIOSETOWN
    0x8902, // SIOCSPGRP
];
/// `ioctl` requests no `writes` command makes: typing into a terminal, inode flags and
/// versions, in the generic numbers and the file systems' own ones for the same operations
/// (the 64-bit and 32-bit encodings). A tool that does not write gets [`IOCTL_READ_ONLY`]
/// instead: an allowlist, every other request `ENOTTY`.
pub(super) const IOCTL_REFUSED: [u32; 11] = [
    0x5412,      // TIOCSTI
    0x541C,      // TIOCLINUX
    0x4008_6602, // FS_IOC_SETFLAGS (= EXT4_IOC_SETFLAGS)
    0x4004_6602, // FS_IOC32_SETFLAGS
    0x401C_5820, // FS_IOC_FSSETXATTR (= XFS_IOC_FSSETXATTR)
    0x4008_7602, // FS_IOC_SETVERSION
    0x4004_7602, // FS_IOC32_SETVERSION
    0x4008_6604, // EXT4_IOC_SETVERSION
    0x4004_6604, // EXT4_IOC32_SETVERSION
    0x4008_941A, // BTRFS_IOC_SUBVOL_SETFLAGS
    0x4004_F50D, // F2FS_IOC_SET_PIN_FILE
];

/// The `ioctl` requests a tool that does not write may make: the queries ordinary programs
/// make on what they may read (is this a terminal, its size, bytes waiting, non-blocking and
/// close-on-exec by ioctl, a file's flags, extents and block size, the network interfaces'
/// names and addresses). Every other request answers `ENOTTY`, as for a file that has no
/// such operation.
pub(super) const IOCTL_READ_ONLY: [u32; 31] = [
    0x5401,      // TCGETS
    0x802C_542A, // TCGETS2
    0x5405,      // TCGETA
    0x5413,      // TIOCGWINSZ
    0x540F,      // TIOCGPGRP
    0x5429,      // TIOCGSID
    0x541B,      // FIONREAD (= TIOCINQ, SIOCINQ)
    0x5411,      // TIOCOUTQ (= SIOCOUTQ)
    0x5421,      // FIONBIO
    0x5451,      // FIOCLEX
    0x5450,      // FIONCLEX
    0x5460,      // FIOQSIZE
    0x8903,      // FIOGETOWN
    0x8905,      // SIOCATMARK
    0x0002,      // FIGETBSZ
    0x8008_6601, // FS_IOC_GETFLAGS
    0x8004_6601, // FS_IOC32_GETFLAGS
    0x8008_7601, // FS_IOC_GETVERSION
    0x8004_7601, // FS_IOC32_GETVERSION
    0x801C_581F, // FS_IOC_FSGETXATTR
    0xC020_660B, // FS_IOC_FIEMAP
    0x8910,      // SIOCGIFNAME
    0x8912,      // SIOCGIFCONF
    0x8913,      // SIOCGIFFLAGS
    0x8915,      // SIOCGIFADDR
    0x8919,      // SIOCGIFBRDADDR
    0x891B,      // SIOCGIFNETMASK
    0x8921,      // SIOCGIFMTU
    0x8927,      // SIOCGIFHWADDR
    0x8933,      // SIOCGIFINDEX
    0x8906,      // SIOCGSTAMP
];

/// Calls every command may make, whatever its profile: the allowlist proper. Calls an
/// architecture does not have (`open` on aarch64) are skipped there. Calls with a rule on
/// their arguments or a profile-dependent answer are in [`program`](super::program), not here.
pub(super) const ALLOWED: &[&str] = &[
    // Files and directories (Landlock decides which paths).
    "read",
    "write",
    "open",
    "openat",
    "creat",
    "close",
    "close_range",
    "stat",
    "fstat",
    "lstat",
    "newfstatat",
    "statx",
    "statfs",
    "fstatfs",
    "lseek",
    "pread64",
    "pwrite64",
    "readv",
    "writev",
    "preadv",
    "pwritev",
    "preadv2",
    "pwritev2",
    "access",
    "faccessat",
    "faccessat2",
    "dup",
    "dup2",
    "dup3",
    "pipe",
    "pipe2",
    "flock",
    "fsync",
    "fdatasync",
    "sync",
    "syncfs",
    "sync_file_range",
    "ftruncate",
    "fallocate",
    "fadvise64",
    "readahead",
    "getdents",
    "getdents64",
    "getcwd",
    "chdir",
    "fchdir",
    "rename",
    "renameat",
    "renameat2",
    "mkdir",
    "mkdirat",
    "rmdir",
    "link",
    "linkat",
    "unlink",
    "unlinkat",
    "symlink",
    "symlinkat",
    "readlink",
    "readlinkat",
    "mknod",
    "mknodat",
    "umask",
    "fgetxattr",
    "flistxattr",
    "name_to_handle_at",
    "copy_file_range",
    "sendfile",
    "splice",
    "tee",
    "vmsplice",
    "execve",
    "execveat",
    // Waiting and events.
    "poll",
    "ppoll",
    "select",
    "pselect6",
    "epoll_create",
    "epoll_create1",
    "epoll_ctl",
    "epoll_wait",
    "epoll_pwait",
    "epoll_pwait2",
    "eventfd",
    "eventfd2",
    "signalfd",
    "signalfd4",
    "timerfd_create",
    "timerfd_settime",
    "timerfd_gettime",
    "io_destroy",
    "io_getevents",
    "io_pgetevents",
    "io_submit",
    "io_cancel",
    "futex",
    "futex_waitv",
    "futex_wake",
    "futex_wait",
    "futex_requeue",
    "set_robust_list",
    // Memory.
    "brk",
    "munmap",
    "mprotect",
    "mremap",
    "msync",
    "mincore",
    "madvise",
    "mlock",
    "mlock2",
    "munlock",
    "mlockall",
    "munlockall",
    "remap_file_pages",
    "pkey_mprotect",
    "pkey_alloc",
    "pkey_free",
    "mbind",
    "set_mempolicy",
    "get_mempolicy",
    "membarrier",
    "mseal",
    "map_shadow_stack",
    // Processes and threads of one's own.
    "fork",
    "vfork",
    "wait4",
    "waitid",
    "exit",
    "exit_group",
    "set_tid_address",
    "rseq",
    "arch_prctl",
    "set_thread_area",
    "get_thread_area",
    "prctl",
    "seccomp",
    "landlock_create_ruleset",
    "landlock_add_rule",
    "landlock_restrict_self",
    "capget",
    "capset",
    "getpid",
    "getppid",
    "gettid",
    "getpgid",
    "getpgrp",
    "getsid",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "getresuid",
    "getresgid",
    "getgroups",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setfsuid",
    "setfsgid",
    "setgroups",
    "getrlimit",
    "setrlimit",
    "getrusage",
    "getpriority",
    "sched_yield",
    "sched_getparam",
    "sched_getscheduler",
    "sched_getattr",
    "sched_getaffinity",
    "sched_get_priority_max",
    "sched_get_priority_min",
    "sched_rr_get_interval",
    "ioprio_get",
    "getcpu",
    "uname",
    "sysinfo",
    "times",
    "getrandom",
    "restart_syscall",
    "uretprobe",
    "uprobe",
    // Signals to oneself, and their handling.
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "rt_sigpending",
    "rt_sigtimedwait",
    "rt_sigsuspend",
    "sigaltstack",
    "pause",
    // Time.
    "nanosleep",
    "clock_nanosleep",
    "clock_gettime",
    "clock_getres",
    "gettimeofday",
    "time",
    "alarm",
    "getitimer",
    "setitimer",
    "timer_create",
    "timer_settime",
    "timer_gettime",
    "timer_getoverrun",
    "timer_delete",
    // Sockets (which ones may be created is `socket`'s rule).
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    "sendmmsg",
    "recvmmsg",
    "shutdown",
    "getsockname",
    "getpeername",
    "setsockopt",
    "getsockopt",
];
