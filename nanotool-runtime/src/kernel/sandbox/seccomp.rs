//! The commands' seccomp filter: an allowlist, built from a rule table once per profile and
//! installed by each command on itself before its `execve` (see `spawn`), inherited by
//! everything it starts.
//!
//! Every system call not named here gets `ENOSYS`, as on a kernel that lacks it, so programs
//! take the fallback they already have for older kernels (`clone3` → `clone`, `openat2` →
//! `openat`, inotify → polling). A call whose fallback would be wrong gets `EPERM` (leaving
//! the call's process group, a namespace, signalling the agent), `EACCES` (a socket family)
//! or `EOPNOTSUPP` (writing an extended attribute, as on a file system without them).
//!
//! The list started from the calls Docker's default profile allows (the proven baseline of
//! what ordinary programs need), less what only a container's private namespaces make safe
//! there and what this sandbox refuses; docs/DECISIONS.md names each call added or removed
//! and why. The numbers come from per-architecture tables (`tables`: x86_64 and aarch64);
//! another architecture's calls (i386 or x32 on x86_64) get `ENOSYS`.
//!
//! | calls | answer | why |
//! |---|---|---|
//! | the allowlist (files through Landlock, memory, time, signals to oneself, sockets, ...) | allowed | what programs need |
//! | everything else: SysV IPC and POSIX message queues, inotify and fanotify, io_uring, keyrings, `bpf`, `userfaultfd`, `perf_event_open`, `open_by_handle_at`, mounts, modules, clocks, `file_setattr`, calls newer than the list | `ENOSYS` | objects that outlive the call or are shared with processes outside it, watching paths Landlock cannot hide, kernel attack surface |
//! | `setsid`, `setpgid` | `EPERM` | leaving the call's process group, so the group kill reaches every descendant |
//! | `unshare`, `setns`, `clone` with a namespace flag or `CLONE_PARENT`; `clone3` | `EPERM`; `ENOSYS` | new namespaces are attack surface; a `CLONE_PARENT` child is the agent's (`clone3` hides its flags in memory; C libraries fall back to `clone`) |
//! | `socket` of any family but IPv4/IPv6, any type but TCP (and UDP), or any at all without `network` | `EACCES` | unix sockets by path, abstract sockets, netlink, raw sockets; Landlock's TCP rules do not see every way to connect |
//! | `kill`, `tkill`, `tgkill`, `rt_sigqueueinfo`, `rt_tgsigqueueinfo`, `pidfd_open`, `pidfd_send_signal`; `fcntl` `F_SETOWN`/`F_SETOWN_EX`/`F_SETSIG`, `ioctl` `FIOSETOWN`/`SIOCSPGRP` | allowed where Landlock's signal scope (ABI 6) or a PID namespace confines them; otherwise the agent's pid, its group and `-1` are refused, `tkill` and the pidfd calls whole | signals towards the agent |
//! | `setpriority`, `sched_setparam`, `sched_setscheduler`, `sched_setattr`, `sched_setaffinity`, `ioprio_set`, `prlimit64` | only on the caller itself (pid 0) or its own group, never a whole user's processes, unless a PID namespace confines them | scheduling or limits of the agent (Landlock does not govern these) |
//! | `ptrace`, `process_vm_readv`/`writev`, `pidfd_getfd`, `process_madvise`, `kcmp`, `get_robust_list`, `move_pages`, `migrate_pages` | allowed where Landlock or a PID namespace confines them (Landlock refuses ptrace-class access outside the domain); `EPERM` otherwise | reading or steering the agent |
//! | `ioctl` of a tool that does not write: anything but the read-only queries of `IOCTL_READ_ONLY` (`TCGETS`, `TIOCGWINSZ`, `FIONREAD`, `FIONBIO`, `FIOCLEX`, `FIONCLEX`, `FS_IOC_GETFLAGS`, `FS_IOC_FIEMAP`, `SIOCGIF*`, ...) | `ENOTTY` | an allowlist: file systems have private numbers for the same operations (ext4's `EXT4_IOC_SETVERSION` beside `FS_IOC_SETVERSION`), which a denylist misses |
//! | `ioctl` of a `writes` tool: `TIOCSTI`, `TIOCLINUX`, `FS_IOC_SETFLAGS`, `FS_IOC_FSSETXATTR`, `FS_IOC_SETVERSION`, `EXT4_IOC_SETVERSION`, `BTRFS_IOC_SUBVOL_SETFLAGS`, `F2FS_IOC_SET_PIN_FILE` | `EPERM` | typing into a terminal; inode flags and versions (Landlock does not govern them; a root agent's command could mark `/etc/passwd`); what writing needs (`FICLONE*`, `FIDEDUPERANGE`) stays |
//! | `io_setup`, `modify_ldt`, `memfd_secret` | `ENOSYS` | a host-wide quota (`fs.aio-max-nr`: one call held every other process's AIO; glibc's POSIX AIO uses threads and never needs it); 16-bit segments (Wine, DOSEMU; Docker refuses it); pure kernel attack surface |
//! | `getxattr`, `lgetxattr`, `listxattr`, `llistxattr`, `getxattrat`, `listxattrat` (by path) | `EOPNOTSUPP` | a path outside the sandbox's reach would tell its attributes (Landlock does not mediate xattrs); the fd forms stay |
//! | `chmod`/`chown`/`utime` families | `EPERM` for a read-only tool; a `writes` tool's `chmod` never sets setuid or write-for-everyone (nor setgid, for a root agent) | metadata Landlock does not govern |
//! | `setxattr`/`removexattr` families | `EOPNOTSUPP` | extended attributes (ACLs rewrite permissions) |
//! | below Landlock ABI 3: `truncate`, `open`/`openat` with `O_TRUNC` and read-only access; `openat2` | `EPERM`; `ENOSYS` | Landlock governs truncation from ABI 3 only; `openat2` hides its flags in memory |
//! | `memfd_create`; `mmap` with `MAP_SHARED \| MAP_ANONYMOUS` (where no memory cgroup bounds the call and a memory limit is set) | `ENOSYS`; `ENOMEM` | anonymous shared memory, which `RLIMIT_DATA` does not count: under `--memory 64M` one process held 512 MiB each way; programs fall back to a file in the temp dir, which its tmpfs's size bounds |
//! | `personality` other than Linux, `PER_LINUX32`, `UNAME26` or a query | `EPERM` | as Docker's profile |

mod asm;
mod lists;
mod tables;

use std::io;

use asm::{Asm, Rets, Target};
use lists::{ALLOWED, IOCTL_OWNER, IOCTL_READ_ONLY, IOCTL_REFUSED};

// seccomp_data offsets.
const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const fn off_arg_low(i: u32) -> u32 {
    // Little-endian: the low word of args[i] comes first. Every argument the rules read is
    // an `int` or `unsigned int` to the kernel, which reads only that word, so comparing it
    // alone cannot be dodged by setting the high bits.
    16 + 8 * i
}

const RET_ALLOW: u32 = 0x7fff_0000;
const fn ret_errno(errno: i32) -> u32 {
    0x0005_0000 | (errno as u32 & 0xffff)
}

const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
// Each build uses its own architecture's; the unit tests build both programs.
#[cfg_attr(not(any(test, target_arch = "aarch64")), allow(dead_code))]
const AUDIT_ARCH_AARCH64: u32 = 0xC000_00B7;

/// This machine's architecture: its audit number and its table of system call numbers.
#[cfg(target_arch = "x86_64")]
const NATIVE: Option<(u32, &[(&str, u32)])> = Some((AUDIT_ARCH_X86_64, tables::X86_64));
#[cfg(target_arch = "aarch64")]
const NATIVE: Option<(u32, &[(&str, u32)])> = Some((AUDIT_ARCH_AARCH64, tables::AARCH64));
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const NATIVE: Option<(u32, &[(&str, u32)])> = None;

/// `fcntl` commands (asm-generic/fcntl.h, the same on x86_64 and aarch64): an fd's owner
/// (who gets its I/O signals), as a pid or a `struct f_owner_ex`, and the signal it raises.
const F_SETOWN: u32 = 8;
const F_SETSIG: u32 = 10;
const F_SETOWN_EX: u32 = 15;

/// `mmap` flags (asm-generic, the same on x86_64 and aarch64): the low bit of the mapping's
/// type (set for `MAP_SHARED` and `MAP_SHARED_VALIDATE`), and an anonymous mapping.
const MAP_SHARED: u32 = 0x01;
const MAP_ANONYMOUS: u32 = 0x20;

/// `setpriority` and `ioprio_set` targets that name every process of a user.
const PRIO_USER: u32 = 2;
const IOPRIO_WHO_USER: u32 = 3;

/// `personality` values a command may set (Docker's profile): Linux, `PER_LINUX32`,
/// `UNAME26`, both, and the query `0xffffffff`.
const PERSONALITIES: [u32; 5] = [0, 0x8, 0x20000, 0x20008, 0xffff_ffff];

/// Mode bits no command may set with `chmod`: setuid, and write for everyone (a command of
/// a root agent could otherwise make a system file writable by any local user; Landlock does
/// not govern modes). Setgid is refused for a root agent only (see [`FilterSpec::root`]).
const MODE_REFUSED: u32 = libc::S_ISUID | libc::S_IWOTH;

/// `clone` flags refused: those that make a namespace, and `CLONE_PARENT` (a child of the
/// agent's, outside the call's reach to reap).
const CLONE_REFUSED: u32 = (libc::CLONE_PARENT
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u32;

/// Whether this build can write a filter for the machine it runs on.
pub(crate) fn supported() -> bool {
    NATIVE.is_some()
}

pub(crate) use super::filter_spec::FilterSpec;

impl FilterSpec {
    /// Landlock refuses ptrace-class access to processes outside the command's domain.
    fn landlock(&self) -> bool {
        self.landlock_abi >= 1
    }

    /// Signals cannot reach outside the command's domain or namespace.
    fn signals_confined(&self) -> bool {
        self.landlock_abi >= 6 || self.pid_namespace
    }
}

/// The filter program for `spec`.
pub(crate) fn program(spec: &FilterSpec) -> io::Result<Vec<libc::sock_filter>> {
    let Some((arch, table)) = NATIVE else {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "no seccomp rules for this architecture",
        ));
    };
    program_for(spec, arch, table)
}

/// The filter program for `spec` on the architecture `arch` whose numbers are `table`.
fn program_for(
    spec: &FilterSpec,
    arch: u32,
    table: &[(&str, u32)],
) -> io::Result<Vec<libc::sock_filter>> {
    let eperm = ret_errno(libc::EPERM);
    let eacces = ret_errno(libc::EACCES);
    let enosys = ret_errno(libc::ENOSYS);
    let mut a = Asm::default();
    let mut rets = Rets::default();

    // Another architecture's calls (i386 on x86_64, say) and x32's get ENOSYS: the rules are
    // written for the native numbers.
    a.ld(OFF_ARCH);
    let foreign = rets.label(&mut a, enosys);
    a.jeq(arch, Target::Next, foreign);
    a.ld(OFF_NR);
    if arch == AUDIT_ARCH_X86_64 {
        // x32 calls: the same numbers with bit 30 set.
        a.jge(0x4000_0000, foreign, Target::Next);
    }

    let mut rules = Rules::new(table);
    for name in ALLOWED {
        rules.answer(name, RET_ALLOW);
    }
    for name in ["setsid", "setpgid", "unshare", "setns"] {
        rules.answer(name, eperm);
    }
    rules.answer("clone3", enosys);
    rules.body("clone", move |a, rets| {
        let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
        a.ld(off_arg_low(0));
        a.jset(CLONE_REFUSED, refuse, allow);
    });
    rules.body("personality", move |a, rets| {
        let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
        a.ld(off_arg_low(0));
        one_of(a, &PERSONALITIES, allow, refuse);
    });

    // Sockets: IPv4/IPv6 only, TCP and UDP only for a `network` tool.
    let (tcp, udp) = (spec.tcp, spec.udp);
    rules.body("socket", move |a, rets| {
        socket_rule(a, rets, tcp, udp, eacces)
    });

    // Metadata Landlock does not govern: modes, owners and timestamps for a `writes` tool
    // only, extended attributes for none.
    let chmods = [
        ("fchmod", 1),
        ("fchmodat", 2),
        ("fchmodat2", 2),
        ("chmod", 1),
    ];
    let others = ["fchown", "fchownat", "chown", "lchown"];
    let times = ["utimensat", "utime", "utimes", "futimesat"];
    if spec.writes {
        let refused = if spec.root {
            MODE_REFUSED | libc::S_ISGID
        } else {
            MODE_REFUSED
        };
        for mode_arg in [1, 2] {
            let names: Vec<&str> = chmods
                .iter()
                .filter(|(_, arg)| *arg == mode_arg)
                .map(|(name, _)| *name)
                .collect();
            rules.shared(&names, move |a, rets| {
                let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
                a.ld(off_arg_low(mode_arg));
                a.jset(refused, refuse, allow);
            });
        }
        for name in others.iter().chain(&times) {
            rules.answer(name, RET_ALLOW);
        }
    } else {
        for name in chmods.iter().map(|(n, _)| n).chain(&others).chain(&times) {
            rules.answer(name, eperm);
        }
    }
    for name in [
        "setxattr",
        "lsetxattr",
        "fsetxattr",
        "removexattr",
        "lremovexattr",
        "fremovexattr",
        "setxattrat",
        "removexattrat",
    ] {
        rules.answer(name, ret_errno(libc::EOPNOTSUPP));
    }

    // Extended attributes read by path: answered as a file system without them would, so a
    // command learns nothing of a path outside (Landlock does not mediate xattrs); the fd
    // forms read only what the command could open.
    for name in [
        "getxattr",
        "lgetxattr",
        "listxattr",
        "llistxattr",
        "getxattrat",
        "listxattrat",
    ] {
        rules.answer(name, ret_errno(libc::EOPNOTSUPP));
    }

    // ioctl. A tool that does not write: the read-only queries, everything else ENOTTY. A
    // `writes` tool: no owner for an fd's I/O signals where signals are not otherwise
    // confined, no typing into a terminal, no inode flags or versions.
    if spec.writes {
        let owner_refused = !spec.signals_confined();
        rules.body("ioctl", move |a, rets| {
            let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
            a.ld(off_arg_low(1));
            let mut refused: Vec<u32> = IOCTL_REFUSED.to_vec();
            if owner_refused {
                refused.extend(IOCTL_OWNER);
            }
            one_of(a, &refused, refuse, allow);
        });
    } else {
        let enotty = ret_errno(libc::ENOTTY);
        rules.body("ioctl", move |a, rets| {
            let (refuse, allow) = (rets.label(a, enotty), rets.label(a, RET_ALLOW));
            a.ld(off_arg_low(1));
            one_of(a, &IOCTL_READ_ONLY, allow, refuse);
        });
    }

    // Signals and the calls that name another process.
    if spec.signals_confined() {
        for name in [
            "kill",
            "tkill",
            "tgkill",
            "rt_sigqueueinfo",
            "rt_tgsigqueueinfo",
            "pidfd_open",
            "pidfd_send_signal",
            "fcntl",
        ] {
            rules.answer(name, RET_ALLOW);
        }
    } else {
        let agent = spec.agent_pid as u32;
        let agent_group = spec.agent_pgid.wrapping_neg() as u32;
        for name in ["tkill", "pidfd_open", "pidfd_send_signal"] {
            rules.answer(name, eperm);
        }
        // A target pid first: never the agent.
        rules.shared(
            &["tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"],
            move |a, rets| {
                let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
                a.ld(off_arg_low(0));
                a.jeq(agent, refuse, allow);
            },
        );
        // kill: not the agent, not the agent's group, not every process (-1).
        rules.body("kill", move |a, rets| {
            let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
            a.ld(off_arg_low(0));
            one_of(a, &[agent, agent_group, u32::MAX], refuse, allow);
        });
        // fcntl: no owner for an fd's I/O signals (F_SETOWN on the output pipe would have the
        // kernel signal the agent as it reads), nor a chosen signal for them.
        rules.body("fcntl", move |a, rets| {
            let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
            a.ld(off_arg_low(1));
            one_of(a, &[F_SETOWN, F_SETOWN_EX, F_SETSIG], refuse, allow);
        });
    }
    // Scheduling, priorities and limits (Landlock governs none of them): oneself only, or
    // anyone in the command's own PID namespace; never every process of a user.
    let anyone = spec.pid_namespace;
    let own = [
        "sched_setparam",
        "sched_setscheduler",
        "sched_setattr",
        "sched_setaffinity",
        "prlimit64",
    ];
    if anyone {
        for name in own {
            rules.answer(name, RET_ALLOW);
        }
    } else {
        rules.shared(&own, move |a, rets| {
            let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
            a.ld(off_arg_low(0));
            a.jeq(0, allow, refuse);
        });
    }
    for (name, user) in [("setpriority", PRIO_USER), ("ioprio_set", IOPRIO_WHO_USER)] {
        rules.body(name, move |a, rets| {
            let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
            a.ld(off_arg_low(0));
            if anyone {
                a.jeq(user, refuse, allow);
            } else {
                a.jeq(user, refuse, Target::Next);
                a.ld(off_arg_low(1));
                a.jeq(0, allow, refuse);
            }
        });
    }
    // ptrace-class access: Landlock refuses it outside the domain from ABI 1.
    let traced = if spec.landlock() || spec.pid_namespace {
        RET_ALLOW
    } else {
        eperm
    };
    for name in [
        "ptrace",
        "process_vm_readv",
        "process_vm_writev",
        "pidfd_getfd",
        "process_madvise",
        "kcmp",
        "get_robust_list",
        "move_pages",
        "migrate_pages",
    ] {
        rules.answer(name, traced);
    }

    // Anonymous shared memory, where nothing would count it against the memory limit: a
    // memfd is "not implemented" (programs fall back to a file in the temp dir), a shared
    // anonymous mapping is memory the limit does not allow. Shared mappings of files stay
    // (on disk, or in the private tmpfs, which its size bounds); Landlock gives commands
    // `/dev/zero` read-only, so a shared mapping of it maps the zero page and holds nothing.
    if spec.shared_memory {
        rules.answer("memfd_create", RET_ALLOW);
        rules.answer("mmap", RET_ALLOW);
    } else {
        rules.answer("memfd_create", enosys);
        let enomem = ret_errno(libc::ENOMEM);
        rules.body("mmap", move |a, rets| {
            let (refuse, allow) = (rets.label(a, enomem), rets.label(a, RET_ALLOW));
            a.ld(off_arg_low(3));
            a.jset(MAP_ANONYMOUS, Target::Next, allow);
            // MAP_SHARED (1) and MAP_SHARED_VALIDATE (3) have the low bit of the type set,
            // MAP_PRIVATE (2) does not; any other type is refused by Linux itself.
            a.jset(MAP_SHARED, refuse, allow);
        });
    }

    // Truncation, before Landlock governs it (ABI 3): `truncate` by path, and opening for
    // reading with O_TRUNC (which empties a file its owner could write); `openat2` hides its
    // flags in memory, so it is "not implemented" and C libraries fall back to `openat`.
    if spec.landlock_abi < 3 {
        rules.answer("truncate", eperm);
        rules.answer("openat2", enosys);
        for (name, flags_arg) in [("open", 1), ("openat", 2)] {
            rules.body(name, move |a, rets| {
                let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
                let truncating = a.label();
                a.ld(off_arg_low(flags_arg));
                a.jset(libc::O_TRUNC as u32, Target::Label(truncating), allow);
                a.place(truncating);
                a.and(libc::O_ACCMODE as u32);
                a.jeq(libc::O_RDONLY as u32, refuse, allow);
            });
        }
    } else {
        rules.answer("truncate", RET_ALLOW);
        rules.answer("openat2", RET_ALLOW);
    }

    let segments = rules.segments(enosys);
    let mut shared = vec![None; rules.shared.len()];
    search(&mut a, &mut rets, &mut shared, &segments);
    place_shared(&mut a, &mut rets, &shared, &rules.shared);
    rets.place(&mut a);
    a.finish()
}

/// Jumps to `yes` when the accumulator is one of `values`, to `no` otherwise.
fn one_of(a: &mut Asm, values: &[u32], yes: Target, no: Target) {
    for (i, v) in values.iter().enumerate() {
        let otherwise = if i + 1 == values.len() {
            no
        } else {
            Target::Next
        };
        a.jeq(*v, yes, otherwise);
    }
}

/// The rules by system call number, for one architecture. A later rule for a number
/// replaces an earlier one; a name the architecture does not have is skipped.
struct Rules<'t> {
    /// The architecture's table, by name: a profile's program names most of its ~290
    /// calls, each looked up once (a scan of the table per name cost ~30 µs per profile).
    table: std::collections::HashMap<&'t str, u32>,
    by_nr: std::collections::BTreeMap<u32, Rule>,
    /// Bodies several calls share.
    shared: Vec<Box<Emit>>,
}

impl<'t> Rules<'t> {
    fn new(table: &'t [(&'t str, u32)]) -> Self {
        Rules {
            table: table.iter().copied().collect(),
            by_nr: std::collections::BTreeMap::new(),
            shared: Vec::new(),
        }
    }

    fn nr(&self, name: &str) -> Option<u32> {
        self.table.get(name).copied()
    }

    fn answer(&mut self, name: &str, answer: u32) {
        if let Some(nr) = self.nr(name) {
            self.by_nr.insert(nr, Rule::Answer(answer));
        }
    }

    fn body(&mut self, name: &str, emit: impl Fn(&mut Asm, &mut Rets) + 'static) {
        if let Some(nr) = self.nr(name) {
            self.by_nr.insert(nr, Rule::Body(Box::new(emit)));
        }
    }

    /// One body for every call of `names`, emitted once.
    fn shared(&mut self, names: &[&str], emit: impl Fn(&mut Asm, &mut Rets) + 'static) {
        let id = self.shared.len();
        self.shared.push(Box::new(emit));
        for name in names {
            if let Some(nr) = self.nr(name) {
                self.by_nr.insert(nr, Rule::Shared(id));
            }
        }
    }

    /// The whole number line as segments `(first number, rule)`, each running to the next
    /// segment's start: numbers named by no rule get `unnamed`, and adjacent numbers with the
    /// same fixed answer share one segment.
    fn segments(&mut self, unnamed: u32) -> Vec<(u32, Rule)> {
        let mut out: Vec<(u32, Rule)> = Vec::with_capacity(2 * self.by_nr.len() + 1);
        let mut next = 0u32;
        let push = |out: &mut Vec<(u32, Rule)>, nr: u32, rule: Rule| {
            let same = matches!(
                (out.last(), &rule),
                (Some((_, Rule::Answer(last))), Rule::Answer(answer)) if last == answer
            ) || matches!(
                (out.last(), &rule),
                (Some((_, Rule::Shared(last))), Rule::Shared(id)) if last == id
            );
            if !same {
                out.push((nr, rule));
            }
        };
        for (nr, rule) in std::mem::take(&mut self.by_nr) {
            if nr > next {
                push(&mut out, next, Rule::Answer(unnamed));
            }
            push(&mut out, nr, rule);
            next = nr + 1;
        }
        push(&mut out, next, Rule::Answer(unnamed));
        out
    }
}

/// What a syscall number gets.
enum Rule {
    /// A fixed answer.
    Answer(u32),
    /// A rule on the arguments: instructions that end in a jump to an answer.
    Body(Box<Emit>),
    /// A rule on the arguments that several calls share, emitted once (an index into
    /// [`Rules::shared`]).
    Shared(usize),
}

/// Instructions emitted for one rule.
type Emit = dyn Fn(&mut Asm, &mut Rets);

/// A binary search over `segments` (the syscall number in the accumulator). Shared bodies
/// are jumped to, and placed after the search by [`place_shared`].
fn search(a: &mut Asm, rets: &mut Rets, shared: &mut [Option<usize>], segments: &[(u32, Rule)]) {
    let fixed =
        |a: &mut Asm, rets: &mut Rets, shared: &mut [Option<usize>], part: &[(u32, Rule)]| {
            match part {
                [(_, Rule::Answer(answer))] => Some(rets.label(a, *answer)),
                [(_, Rule::Shared(i))] => {
                    Some(Target::Label(*shared[*i].get_or_insert_with(|| a.label())))
                }
                _ => None,
            }
        };
    match segments {
        [] => {}
        [(_, Rule::Body(body))] => body(a, rets),
        [_] => {
            let to = fixed(a, rets, shared, segments).expect("a fixed answer or a shared body");
            a.jeq(0, to, to);
        }
        _ => {
            let (low, high) = segments.split_at(segments.len() / 2);
            let high_inline = a.label();
            let to_high = fixed(a, rets, shared, high).unwrap_or(Target::Label(high_inline));
            let to_low = fixed(a, rets, shared, low);
            a.jge(high[0].0, to_high, to_low.unwrap_or(Target::Next));
            if to_low.is_none() {
                search(a, rets, shared, low);
            }
            a.place(high_inline);
            if matches!(to_high, Target::Label(l) if l == high_inline) {
                search(a, rets, shared, high);
            }
        }
    }
}

/// Places each shared body the search jumped to.
fn place_shared(a: &mut Asm, rets: &mut Rets, labels: &[Option<usize>], bodies: &[Box<Emit>]) {
    for (label, body) in labels.iter().zip(bodies) {
        if let Some(label) = label {
            a.place(*label);
            body(a, rets);
        }
    }
}

/// `socket(domain, type, protocol)`: IPv4 or IPv6 only; TCP if `tcp`, UDP if `udp`.
fn socket_rule(a: &mut Asm, rets: &mut Rets, tcp: bool, udp: bool, refused: u32) {
    let refuse = rets.label(a, refused);
    let allow = rets.label(a, RET_ALLOW);
    let ip = a.label();
    let stream = a.label();
    let dgram = a.label();
    a.ld(off_arg_low(0));
    a.jeq(libc::AF_INET as u32, Target::Label(ip), Target::Next);
    a.jeq(libc::AF_INET6 as u32, Target::Next, refuse);
    a.place(ip);
    a.ld(off_arg_low(1));
    a.and(0xf); // SOCK_TYPE_MASK: SOCK_NONBLOCK and SOCK_CLOEXEC are flags above it
    let to_stream = if tcp { Target::Label(stream) } else { refuse };
    let to_dgram = if udp { Target::Label(dgram) } else { refuse };
    a.jeq(libc::SOCK_STREAM as u32, to_stream, Target::Next);
    a.jeq(libc::SOCK_DGRAM as u32, to_dgram, refuse);
    // The protocol: 0 (the type's default) or the type's own.
    for (wanted, label, protocol) in [
        (tcp, stream, libc::IPPROTO_TCP),
        (udp, dgram, libc::IPPROTO_UDP),
    ] {
        if wanted {
            a.place(label);
            a.ld(off_arg_low(2));
            a.jeq(0, allow, Target::Next);
            a.jeq(protocol as u32, allow, refuse);
        }
    }
}

/// `SECCOMP_FILTER_FLAG_SPEC_ALLOW` (Linux 4.17): installing the filter leaves the
/// speculative store bypass mitigation as it was.
pub(crate) const FILTER_FLAG_SPEC_ALLOW: u32 = 1 << 2;

/// Installs `prog` on the calling thread.
pub(crate) fn install(prog: &[libc::sock_filter]) -> io::Result<()> {
    let fprog = libc::sock_fprog {
        len: u16::try_from(prog.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "seccomp filter too long"))?,
        filter: prog.as_ptr().cast_mut(),
    };
    let set = |flags: u32| {
        // SAFETY: `fprog` points at `prog`, alive for the call; the kernel copies the program.
        let ret = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                flags as libc::c_ulong,
                &fprog as *const libc::sock_fprog,
            )
        };
        if ret < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    };
    // As the commands install it (see `spawn`): without the speculation mitigation where the
    // kernel knows the flag (4.17), with flags 0 where it does not (EINVAL).
    match set(FILTER_FLAG_SPEC_ALLOW) {
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => set(0),
        other => other,
    }
}

#[cfg(test)]
mod tests;
