use super::asm::{AND_K, JA, JEQ_K, JGE_K, JSET_K, LD_W_ABS, RET_K};
use super::*;

/// Runs `prog` as the kernel would on one call (classic BPF, the subset we emit).
fn run(prog: &[libc::sock_filter], arch: u32, nr: u32, args: [u32; 4]) -> u32 {
    let word = |off: u32| match off {
        OFF_NR => nr,
        OFF_ARCH => arch,
        o => args[((o - 16) / 8) as usize],
    };
    let (mut pc, mut acc) = (0usize, 0u32);
    loop {
        let i = prog[pc];
        pc += 1;
        match i.code {
            LD_W_ABS => acc = word(i.k),
            AND_K => acc &= i.k,
            JA => pc += i.k as usize,
            JEQ_K => pc += usize::from(if acc == i.k { i.jt } else { i.jf }),
            JGE_K => pc += usize::from(if acc >= i.k { i.jt } else { i.jf }),
            JSET_K => pc += usize::from(if acc & i.k != 0 { i.jt } else { i.jf }),
            RET_K => return i.k,
            other => panic!("unexpected opcode {other:#x}"),
        }
    }
}

const EPERM: u32 = ret_errno(libc::EPERM);
const EACCES: u32 = ret_errno(libc::EACCES);
const ENOSYS: u32 = ret_errno(libc::ENOSYS);
const EOPNOTSUPP: u32 = ret_errno(libc::EOPNOTSUPP);
const ENOTTY: u32 = ret_errno(libc::ENOTTY);
const ENOMEM: u32 = ret_errno(libc::ENOMEM);

fn spec() -> FilterSpec {
    FilterSpec {
        agent_pid: 1234,
        agent_pgid: 1200,
        tcp: false,
        udp: false,
        writes: false,
        landlock_abi: 7,
        pid_namespace: false,
        root: false,
        shared_memory: true,
    }
}

/// A compiled filter for one architecture, called by name.
struct Filter {
    prog: Vec<libc::sock_filter>,
    arch: u32,
    table: &'static [(&'static str, u32)],
}

impl Filter {
    fn new(spec: FilterSpec, arch: u32, table: &'static [(&'static str, u32)]) -> Filter {
        Filter {
            prog: program_for(&spec, arch, table).unwrap(),
            arch,
            table,
        }
    }
    fn x86(spec: FilterSpec) -> Filter {
        Filter::new(spec, AUDIT_ARCH_X86_64, tables::X86_64)
    }
    fn arm(spec: FilterSpec) -> Filter {
        Filter::new(spec, AUDIT_ARCH_AARCH64, tables::AARCH64)
    }
    fn nr(&self, name: &str) -> u32 {
        self.table
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("{name} is not in the table"))
            .1
    }
    fn call(&self, name: &str, [a, b, c]: [u32; 3]) -> u32 {
        self.call4(name, [a, b, c, 0])
    }
    fn call4(&self, name: &str, args: [u32; 4]) -> u32 {
        run(&self.prog, self.arch, self.nr(name), args)
    }
    fn both(spec: FilterSpec) -> [Filter; 2] {
        [Filter::x86(spec), Filter::arm(spec)]
    }
}

/// Every spec the sandbox can build: profiles × Landlock ABIs × namespace × root.
fn every_spec() -> Vec<FilterSpec> {
    let mut out = Vec::new();
    for bits in 0..32u32 {
        for abi in 0..=7 {
            out.push(FilterSpec {
                tcp: bits & 1 != 0,
                udp: bits & 1 != 0,
                writes: bits & 2 != 0,
                pid_namespace: bits & 4 != 0,
                root: bits & 8 != 0,
                shared_memory: bits & 16 != 0,
                landlock_abi: abi,
                ..spec()
            });
        }
    }
    out
}

#[test]
fn every_spec_assembles_and_answers_every_number() {
    for s in every_spec() {
        for f in Filter::both(s) {
            assert!(f.prog.len() < 1000, "{}", f.prog.len());
            for nr in 0..1100u32 {
                let r = run(&f.prog, f.arch, nr, [0; 4]);
                assert!(
                    [RET_ALLOW, EPERM, EACCES, ENOSYS, EOPNOTSUPP, ENOTTY, ENOMEM].contains(&r),
                    "{nr}: {r:#x}"
                );
            }
        }
    }
}

#[test]
fn far_jumps_go_through_a_ja() {
    // A program longer than a conditional jump's reach: the first test jumps to the end.
    let mut a = Asm::default();
    let end = a.label();
    a.ld(OFF_NR);
    a.jeq(7, Target::Label(end), Target::Next);
    for i in 0..600 {
        a.and(0xffff_ffff - i);
    }
    a.ret(ENOSYS);
    a.place(end);
    a.ret(RET_ALLOW);
    let prog = a.finish().unwrap();
    assert!(prog.iter().any(|i| i.code == JA));
    assert_eq!(run(&prog, 0, 7, [0; 4]), RET_ALLOW);
    assert_eq!(run(&prog, 0, 8, [0; 4]), ENOSYS);
}

#[test]
fn the_allowlist_allows_what_programs_need_on_both_architectures() {
    for s in every_spec() {
        for f in Filter::both(s) {
            for name in ALLOWED {
                if f.table.iter().any(|(n, _)| n == name) {
                    assert_eq!(f.call(name, [0; 3]), RET_ALLOW, "{name}");
                }
            }
            for name in ["fcntl", "kill", "clone", "personality", "openat", "mmap"] {
                assert_eq!(
                    f.call(name, [0; 3]),
                    RET_ALLOW,
                    "{name} with plain arguments"
                );
            }
            assert_eq!(f.call("ioctl", [0, 0x541B, 0]), RET_ALLOW, "FIONREAD");
        }
    }
}

#[test]
fn calls_off_the_list_are_not_implemented() {
    for s in every_spec() {
        for f in Filter::both(s) {
            for name in [
                "shmget",
                "shmat",
                "shmctl",
                "msgget",
                "msgsnd",
                "semget",
                "semop",
                "mq_open",
                "inotify_init1",
                "inotify_add_watch",
                "fanotify_init",
                "fanotify_mark",
                "io_uring_setup",
                "io_uring_enter",
                "keyctl",
                "add_key",
                "request_key",
                "io_setup",
                "modify_ldt",
                "memfd_secret",
                "bpf",
                "userfaultfd",
                "perf_event_open",
                "open_by_handle_at",
                "mount",
                "umount2",
                "pivot_root",
                "chroot",
                "init_module",
                "kexec_load",
                "reboot",
                "settimeofday",
                "clock_settime",
                "swapon",
                "acct",
                "quotactl",
                "syslog",
                "fsopen",
                "open_tree",
                "move_mount",
                "process_mrelease",
                "clone3",
                "file_setattr",
                "lsm_set_self_attr",
                "statmount",
                "listmount",
            ] {
                if let Some(nr) = tables_all(name, f.arch) {
                    assert_eq!(run(&f.prog, f.arch, nr, [0; 4]), ENOSYS, "{name}");
                }
            }
        }
    }
}

/// Numbers of calls the filter does not name (so the filter's own tables lack them).
fn tables_all(name: &str, arch: u32) -> Option<u32> {
    let x86 = [
        ("shmget", 29),
        ("shmat", 30),
        ("shmctl", 31),
        ("msgget", 68),
        ("msgsnd", 69),
        ("semget", 64),
        ("semop", 65),
        ("mq_open", 240),
        ("inotify_init1", 294),
        ("inotify_add_watch", 254),
        ("fanotify_init", 300),
        ("fanotify_mark", 301),
        ("io_uring_setup", 425),
        ("io_uring_enter", 426),
        ("keyctl", 250),
        ("add_key", 248),
        ("bpf", 321),
        ("userfaultfd", 323),
        ("perf_event_open", 298),
        ("open_by_handle_at", 304),
        ("mount", 165),
        ("umount2", 166),
        ("pivot_root", 155),
        ("chroot", 161),
        ("init_module", 175),
        ("kexec_load", 246),
        ("reboot", 169),
        ("settimeofday", 164),
        ("clock_settime", 227),
        ("swapon", 167),
        ("acct", 163),
        ("quotactl", 179),
        ("syslog", 103),
        ("fsopen", 430),
        ("open_tree", 428),
        ("move_mount", 429),
        ("process_mrelease", 448),
        ("clone3", 435),
        ("file_setattr", 469),
        ("lsm_set_self_attr", 460),
        ("statmount", 457),
        ("listmount", 458),
    ];
    let arm = [
        ("shmget", 194),
        ("shmat", 196),
        ("shmctl", 195),
        ("msgget", 186),
        ("msgsnd", 189),
        ("semget", 190),
        ("semop", 193),
        ("mq_open", 180),
        ("inotify_init1", 26),
        ("inotify_add_watch", 27),
        ("fanotify_init", 262),
        ("fanotify_mark", 263),
        ("io_uring_setup", 425),
        ("io_uring_enter", 426),
        ("keyctl", 219),
        ("add_key", 217),
        ("bpf", 280),
        ("userfaultfd", 282),
        ("perf_event_open", 241),
        ("open_by_handle_at", 265),
        ("mount", 40),
        ("umount2", 39),
        ("pivot_root", 41),
        ("chroot", 51),
        ("init_module", 105),
        ("kexec_load", 104),
        ("reboot", 142),
        ("settimeofday", 170),
        ("clock_settime", 112),
        ("swapon", 224),
        ("acct", 89),
        ("quotactl", 60),
        ("syslog", 116),
        ("fsopen", 430),
        ("open_tree", 428),
        ("move_mount", 429),
        ("process_mrelease", 448),
        ("clone3", 435),
        ("file_setattr", 469),
        ("lsm_set_self_attr", 460),
        ("statmount", 457),
        ("listmount", 458),
    ];
    let t: &[(&str, u32)] = if arch == AUDIT_ARCH_X86_64 {
        &x86
    } else {
        &arm
    };
    t.iter().find(|(n, _)| *n == name).map(|(_, nr)| *nr)
}

#[test]
fn the_tables_match_the_installed_kernel_headers() {
    // Where the headers are installed (linux-libc-dev), every number below the headers' last
    // must be theirs, on both architectures, and so must the probe numbers of the test above.
    let parse = |path: &str| -> Option<std::collections::HashMap<String, u32>> {
        let text = std::fs::read_to_string(path).ok()?;
        let mut nr = std::collections::HashMap::new();
        let mut alias = Vec::new();
        for line in text.lines() {
            let mut words = line.split_whitespace();
            if words.next() != Some("#define") {
                continue;
            }
            let (Some(name), Some(value)) = (words.next(), words.next()) else {
                continue;
            };
            let Some(name) = name
                .strip_prefix("__NR3264_")
                .or_else(|| name.strip_prefix("__NR_"))
            else {
                continue;
            };
            match value.parse::<u32>() {
                Ok(v) => {
                    nr.entry(name.to_owned()).or_insert(v);
                }
                Err(_) => alias.push((name.to_owned(), value.to_owned())),
            }
        }
        for (name, value) in alias {
            let target = value
                .strip_prefix("__NR3264_")
                .or_else(|| value.strip_prefix("__NR_"))
                .and_then(|t| nr.get(t).copied());
            if let Some(v) = target {
                nr.insert(name, v);
            }
        }
        Some(nr)
    };
    let mut checked = 0;
    for (header, table, arch) in [
        (
            "/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
            tables::X86_64,
            AUDIT_ARCH_X86_64,
        ),
        (
            "/usr/include/asm-generic/unistd.h",
            tables::AARCH64,
            AUDIT_ARCH_AARCH64,
        ),
    ] {
        let Some(known) = parse(header) else { continue };
        let last = known
            .values()
            .copied()
            .filter(|v| *v < 1000)
            .max()
            .unwrap_or(0);
        for (name, nr) in table {
            // uretprobe (6.11) and uprobe (6.16) took free numbers below the 6.1 headers' last.
            let newer = ["uretprobe", "uprobe"].contains(name);
            if *nr <= last && (!newer || known.contains_key(*name)) {
                assert_eq!(known.get(*name), Some(nr), "{name} in {header}");
                checked += 1;
            }
        }
        for name in ["shmget", "inotify_init1", "io_uring_setup", "mount", "bpf"] {
            assert_eq!(known.get(name).copied(), tables_all(name, arch), "{name}");
        }
    }
    if std::path::Path::new("/usr/include/asm-generic/unistd.h").exists() {
        assert!(checked > 400, "{checked}");
    }
}

#[test]
fn leaving_the_group_and_namespaces_are_refused() {
    for s in every_spec() {
        for f in Filter::both(s) {
            for name in ["setsid", "setpgid", "unshare", "setns"] {
                assert_eq!(f.call(name, [0; 3]), EPERM, "{name}");
            }
            let fork = libc::SIGCHLD as u32;
            let vfork = (libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD) as u32;
            let thread = 0x3d0f00; // what glibc's pthread_create passes
            assert_eq!(f.call("clone", [fork, 0, 0]), RET_ALLOW);
            assert_eq!(f.call("clone", [vfork, 0, 0]), RET_ALLOW);
            assert_eq!(f.call("clone", [thread, 0, 0]), RET_ALLOW);
            for flag in [
                libc::CLONE_NEWUSER,
                libc::CLONE_NEWPID,
                libc::CLONE_NEWNS,
                libc::CLONE_NEWNET,
                libc::CLONE_NEWIPC,
                libc::CLONE_PARENT,
            ] {
                assert_eq!(
                    f.call("clone", [(flag | libc::SIGCHLD) as u32, 0, 0]),
                    EPERM
                );
            }
        }
    }
}

#[test]
fn signals_reach_the_agent_only_where_something_confines_them() {
    let bare = spec_with(|s| s.landlock_abi = 4);
    let scoped = spec_with(|s| s.landlock_abi = 6);
    let namespaced = spec_with(|s| {
        s.landlock_abi = 1;
        s.pid_namespace = true;
    });
    for f in Filter::both(bare) {
        assert_eq!(f.call("kill", [1234, 9, 0]), EPERM);
        assert_eq!(f.call("kill", [(-1200i32) as u32, 9, 0]), EPERM);
        assert_eq!(f.call("kill", [u32::MAX, 9, 0]), EPERM);
        assert_eq!(f.call("kill", [4321, 9, 0]), RET_ALLOW);
        assert_eq!(f.call("kill", [0, 15, 0]), RET_ALLOW);
        assert_eq!(f.call("tgkill", [1234, 1235, 9]), EPERM);
        assert_eq!(f.call("tgkill", [99, 99, 6]), RET_ALLOW);
        assert_eq!(f.call("rt_sigqueueinfo", [1234, 9, 0]), EPERM);
        for name in ["tkill", "pidfd_open", "pidfd_send_signal"] {
            assert_eq!(f.call(name, [99, 9, 0]), EPERM, "{name}");
        }
        for cmd in [F_SETOWN, F_SETOWN_EX, F_SETSIG] {
            assert_eq!(f.call("fcntl", [3, cmd, 1234]), EPERM);
        }
        for req in IOCTL_OWNER {
            // EPERM for a `writes` tool; a read-only one's allowlist leaves it out (ENOTTY).
            assert_ne!(f.call("ioctl", [3, req, 0]), RET_ALLOW);
        }
        for cmd in [
            libc::F_GETFL,
            libc::F_SETFL,
            libc::F_DUPFD_CLOEXEC,
            libc::F_GETOWN,
        ] {
            assert_eq!(f.call("fcntl", [3, cmd as u32, 0]), RET_ALLOW);
        }
    }
    for s in [scoped, namespaced] {
        let writes = s.writes;
        for f in Filter::both(s) {
            for name in [
                "kill",
                "tkill",
                "tgkill",
                "rt_sigqueueinfo",
                "pidfd_send_signal",
            ] {
                assert_eq!(f.call(name, [1234, 9, 0]), RET_ALLOW, "{name}");
            }
            assert_eq!(f.call("fcntl", [3, F_SETOWN, 1234]), RET_ALLOW);
            // A read-only tool's ioctl allowlist leaves FIOSETOWN out whatever confines signals.
            let owner = if writes { RET_ALLOW } else { ENOTTY };
            assert_eq!(f.call("ioctl", [3, IOCTL_OWNER[0], 0]), owner);
        }
    }
}

fn spec_with(change: impl Fn(&mut FilterSpec)) -> FilterSpec {
    let mut s = spec();
    change(&mut s);
    s
}

#[test]
fn scheduling_and_limits_only_on_oneself_or_inside_a_namespace() {
    for abi in 0..=7 {
        let plain = spec_with(|s| s.landlock_abi = abi);
        let namespaced = spec_with(|s| {
            s.landlock_abi = abi;
            s.pid_namespace = true;
        });
        for f in Filter::both(plain) {
            for name in [
                "sched_setparam",
                "sched_setscheduler",
                "sched_setattr",
                "sched_setaffinity",
                "prlimit64",
            ] {
                assert_eq!(f.call(name, [0, 0, 0]), RET_ALLOW, "{name} on oneself");
                assert_eq!(f.call(name, [1234, 0, 0]), EPERM, "{name} on the agent");
            }
            // setpriority(which, who): PRIO_PROCESS 0 / PRIO_PGRP 1 / PRIO_USER 2.
            assert_eq!(f.call("setpriority", [0, 0, 10]), RET_ALLOW);
            assert_eq!(f.call("setpriority", [1, 0, 10]), RET_ALLOW);
            assert_eq!(f.call("setpriority", [0, 1234, 19]), EPERM);
            assert_eq!(f.call("setpriority", [2, 0, 19]), EPERM);
            // ioprio_set(which, who): PROCESS 1 / PGRP 2 / USER 3.
            assert_eq!(f.call("ioprio_set", [1, 0, 0]), RET_ALLOW);
            assert_eq!(f.call("ioprio_set", [1, 1234, 0]), EPERM);
            assert_eq!(f.call("ioprio_set", [3, 0, 0]), EPERM);
        }
        for f in Filter::both(namespaced) {
            assert_eq!(f.call("sched_setaffinity", [77, 0, 0]), RET_ALLOW);
            assert_eq!(f.call("setpriority", [0, 77, 10]), RET_ALLOW);
            assert_eq!(f.call("setpriority", [2, 0, 19]), EPERM);
            assert_eq!(f.call("ioprio_set", [3, 0, 0]), EPERM);
        }
    }
}

#[test]
fn ptrace_class_calls_need_landlock_or_a_namespace() {
    let names = [
        "ptrace",
        "process_vm_readv",
        "process_vm_writev",
        "pidfd_getfd",
        "process_madvise",
        "kcmp",
        "get_robust_list",
        "move_pages",
        "migrate_pages",
    ];
    for (abi, ns, answer) in [
        (0, false, EPERM),
        (0, true, RET_ALLOW),
        (1, false, RET_ALLOW),
        (7, false, RET_ALLOW),
    ] {
        let s = spec_with(|s| {
            s.landlock_abi = abi;
            s.pid_namespace = ns;
        });
        for f in Filter::both(s) {
            for name in names {
                assert_eq!(f.call(name, [1234, 0, 0]), answer, "{name} at ABI {abi}");
            }
        }
    }
}

#[test]
fn terminals_and_inode_flags_are_never_set() {
    for s in every_spec() {
        let writes = s.writes;
        for f in Filter::both(s) {
            let refused = if writes { EPERM } else { ENOTTY };
            for req in IOCTL_REFUSED {
                assert_eq!(f.call("ioctl", [3, req, 0]), refused, "{req:#x}");
            }
            // Reading flags, asking the terminal's size, FIONREAD stay.
            for req in [0x8008_6601u32, 0x5413, 0x541B] {
                assert_eq!(f.call("ioctl", [3, req, 0]), RET_ALLOW, "{req:#x}");
            }
            // FICLONE and FIDEDUPERANGE: what writing needs, for a `writes` tool only.
            for req in [0x4004_9409u32, 0xC018_9436] {
                let answer = if writes { RET_ALLOW } else { ENOTTY };
                assert_eq!(f.call("ioctl", [3, req, 0]), answer, "{req:#x}");
            }
        }
    }
}

#[test]
fn a_tool_that_does_not_write_makes_only_the_listed_ioctls() {
    for s in every_spec().into_iter().filter(|s| !s.writes) {
        for f in Filter::both(s) {
            for req in IOCTL_READ_ONLY {
                assert_eq!(f.call("ioctl", [3, req, 0]), RET_ALLOW, "{req:#x}");
            }
            // Anything else is not a request the file knows; the high word of the argument
            // (which the kernel ignores) changes nothing.
            for req in [0u32, 1, 0x5402, 0x5452, 0x8901, 0x4008_6604, 0xFFFF_FFFF] {
                assert_eq!(f.call("ioctl", [3, req, 0]), ENOTTY, "{req:#x}");
            }
        }
    }
}

#[test]
fn truncation_is_refused_where_landlock_does_not_govern_it() {
    let o_rdonly_trunc = (libc::O_RDONLY | libc::O_TRUNC) as u32;
    let o_wronly_trunc = (libc::O_WRONLY | libc::O_TRUNC | libc::O_CREAT) as u32;
    for abi in 0..=7 {
        for f in Filter::both(spec_with(|s| s.landlock_abi = abi)) {
            let before3 = abi < 3;
            let refused = |r| if before3 { r } else { RET_ALLOW };
            assert_eq!(f.call("truncate", [0; 3]), refused(EPERM));
            assert_eq!(f.call("openat2", [0; 3]), refused(ENOSYS));
            assert_eq!(f.call("openat", [0, 0, o_rdonly_trunc]), refused(EPERM));
            assert_eq!(f.call("openat", [0, 0, o_wronly_trunc]), RET_ALLOW);
            assert_eq!(f.call("openat", [0, 0, libc::O_RDONLY as u32]), RET_ALLOW);
            assert_eq!(f.call("ftruncate", [3, 0, 0]), RET_ALLOW);
            if f.arch == AUDIT_ARCH_X86_64 {
                assert_eq!(f.call("open", [0, o_rdonly_trunc, 0]), refused(EPERM));
                assert_eq!(f.call("open", [0, libc::O_RDWR as u32, 0]), RET_ALLOW);
            }
        }
    }
}

#[test]
fn metadata_follows_the_profile() {
    let read_only = spec();
    let writes = spec_with(|s| s.writes = true);
    let root_writes = spec_with(|s| {
        s.writes = true;
        s.root = true;
    });
    for f in Filter::both(read_only) {
        for name in ["fchmodat", "fchmod", "fchmodat2", "fchownat", "utimensat"] {
            assert_eq!(f.call(name, [0; 3]), EPERM, "{name}");
        }
    }
    for f in Filter::both(writes) {
        assert_eq!(f.call("fchmodat", [0, 0, 0o755]), RET_ALLOW);
        assert_eq!(f.call("fchmodat", [0, 0, 0o2775]), RET_ALLOW);
        assert_eq!(f.call("fchmod", [3, 0o600, 0]), RET_ALLOW);
        assert_eq!(f.call("utimensat", [0; 3]), RET_ALLOW);
        assert_eq!(f.call("fchownat", [0; 3]), RET_ALLOW);
        for mode in [0o4755, 0o6755, 0o666, 0o1777] {
            assert_eq!(f.call("fchmodat", [0, 0, mode]), EPERM);
            assert_eq!(f.call("fchmodat2", [0, 0, mode]), EPERM);
            assert_eq!(f.call("fchmod", [3, mode, 0]), EPERM);
        }
    }
    for f in Filter::both(root_writes) {
        assert_eq!(f.call("fchmodat", [0, 0, 0o755]), RET_ALLOW);
        assert_eq!(f.call("fchmodat", [0, 0, 0o2755]), EPERM);
        assert_eq!(f.call("fchmod", [3, 0o2711, 0]), EPERM);
    }
    for s in every_spec() {
        for f in Filter::both(s) {
            for name in ["setxattr", "fremovexattr", "setxattrat", "lsetxattr"] {
                assert_eq!(f.call(name, [0; 3]), EOPNOTSUPP, "{name}");
            }
            // Reading by path answers as a file system without xattrs; by fd, allowed.
            for name in [
                "getxattr",
                "lgetxattr",
                "listxattr",
                "llistxattr",
                "getxattrat",
                "listxattrat",
            ] {
                if f.table.iter().any(|(n, _)| *n == name) {
                    assert_eq!(f.call(name, [0; 3]), EOPNOTSUPP, "{name}");
                }
            }
            assert_eq!(f.call("fgetxattr", [0; 3]), RET_ALLOW);
            assert_eq!(f.call("flistxattr", [0; 3]), RET_ALLOW);
        }
    }
}

#[test]
fn sockets_follow_the_profile() {
    let tcp = [libc::AF_INET as u32, libc::SOCK_STREAM as u32, 0];
    let tcp6 = [libc::AF_INET6 as u32, libc::SOCK_STREAM as u32, 6];
    let sctp = [libc::AF_INET as u32, libc::SOCK_STREAM as u32, 132];
    let udp = [libc::AF_INET6 as u32, libc::SOCK_DGRAM as u32, 0];
    let raw = [libc::AF_INET as u32, libc::SOCK_RAW as u32, 0];
    let unix = [libc::AF_UNIX as u32, libc::SOCK_STREAM as u32, 0];
    let network = spec_with(|s| {
        s.tcp = true;
        s.udp = true;
    });
    for f in Filter::both(network) {
        assert_eq!(f.call("socket", tcp), RET_ALLOW);
        assert_eq!(f.call("socket", tcp6), RET_ALLOW);
        assert_eq!(f.call("socket", udp), RET_ALLOW);
        assert_eq!(f.call("socket", sctp), EACCES);
        assert_eq!(f.call("socket", raw), EACCES);
        assert_eq!(f.call("socket", unix), EACCES);
    }
    for f in Filter::both(spec()) {
        for args in [tcp, tcp6, udp, unix] {
            assert_eq!(f.call("socket", args), EACCES);
        }
        assert_eq!(f.call("socketpair", unix), RET_ALLOW);
    }
}

#[test]
fn personality_as_dockers_profile() {
    for f in Filter::both(spec()) {
        for p in PERSONALITIES {
            assert_eq!(f.call("personality", [p, 0, 0]), RET_ALLOW);
        }
        // ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC.
        assert_eq!(f.call("personality", [0x40000, 0, 0]), EPERM);
        assert_eq!(f.call("personality", [0x400000, 0, 0]), EPERM);
    }
}

#[test]
fn another_architectures_calls_are_not_implemented() {
    let f = Filter::x86(spec());
    let read = f.nr("read");
    assert_eq!(run(&f.prog, 0x4000_0003, read, [0; 4]), ENOSYS);
    assert_eq!(run(&f.prog, AUDIT_ARCH_AARCH64, read, [0; 4]), ENOSYS);
    assert_eq!(run(&f.prog, f.arch, 0x4000_0000 | read, [0; 4]), ENOSYS);
    let arm = Filter::arm(spec());
    assert_eq!(
        run(&arm.prog, AUDIT_ARCH_X86_64, arm.nr("read"), [0; 4]),
        ENOSYS
    );
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_native_table_is_libcs() {
    for (name, nr) in [
        ("read", libc::SYS_read),
        ("openat", libc::SYS_openat),
        ("kill", libc::SYS_kill),
        ("clone", libc::SYS_clone),
        ("ioctl", libc::SYS_ioctl),
        ("prlimit64", libc::SYS_prlimit64),
        ("fchmodat", libc::SYS_fchmodat),
    ] {
        assert_eq!(Filter::x86(spec()).nr(name), nr as u32, "{name}");
    }
    assert_eq!(NATIVE.unwrap().0, AUDIT_ARCH_X86_64);
}

#[test]
fn shared_memory_no_limit_counts_is_made_only_where_something_bounds_it() {
    // mmap's flags (asm-generic, the same on both architectures).
    const SHARED: u32 = 0x01;
    const PRIVATE: u32 = 0x02;
    const SHARED_VALIDATE: u32 = 0x03;
    const ANONYMOUS: u32 = 0x20;
    const NORESERVE: u32 = 0x4000;
    let unbounded = spec_with(|s| s.shared_memory = false);
    for f in Filter::both(unbounded) {
        assert_eq!(f.call("memfd_create", [0; 3]), ENOSYS);
        for flags in [
            SHARED | ANONYMOUS,
            SHARED_VALIDATE | ANONYMOUS,
            SHARED | ANONYMOUS | NORESERVE,
        ] {
            assert_eq!(
                f.call4("mmap", [0, 1 << 20, 3, flags]),
                ENOMEM,
                "{flags:#x}"
            );
        }
        // Private memory (counted by RLIMIT_DATA) and mappings of files (on disk, or in the
        // private tmpfs, which its size bounds) stay.
        for flags in [PRIVATE | ANONYMOUS, PRIVATE, SHARED, SHARED_VALIDATE] {
            assert_eq!(
                f.call4("mmap", [0, 1 << 20, 3, flags]),
                RET_ALLOW,
                "{flags:#x}"
            );
        }
        assert_eq!(f.call("munmap", [0; 3]), RET_ALLOW);
        assert_eq!(f.call("mremap", [0; 3]), RET_ALLOW);
    }
    let bounded = spec_with(|s| s.shared_memory = true);
    for f in Filter::both(bounded) {
        assert_eq!(f.call("memfd_create", [0; 3]), RET_ALLOW);
        for flags in [SHARED | ANONYMOUS, PRIVATE | ANONYMOUS, SHARED] {
            assert_eq!(
                f.call4("mmap", [0, 1 << 20, 3, flags]),
                RET_ALLOW,
                "{flags:#x}"
            );
        }
    }
}
