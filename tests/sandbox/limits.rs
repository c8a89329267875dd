//! Per-call resource limits: each test lets a command try to take more than its call allows
//! (memory, file size, open files, CPU time, core dumps, the OOM killer's choice, the CPU
//! share of its session) and checks the limit held, the result says so in words, and the
//! agent's own limits are untouched.
//!
//! Bombs run only inside the limits the test sets: never an unbounded one.

use crate::common::{WRITES, in_own_process, python, settings, sh};
use nanotool_runtime::{
    CommandExecKernel, ExecResult, KernelSettings, LimitHit, Limits, SandboxMode,
};
use std::path::Path;
use std::time::Duration;

fn kernel(dir: &Path, sandbox: SandboxMode, limits: Limits) -> CommandExecKernel {
    CommandExecKernel::new(KernelSettings {
        limits,
        ..settings(dir, sandbox)
    })
    .unwrap()
}

fn own_limit(resource: libc::__rlimit_resource_t) -> (u64, u64) {
    let mut l = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills `l`.
    assert_eq!(unsafe { libc::getrlimit(resource, &mut l) }, 0);
    (l.rlim_cur, l.rlim_max)
}

fn ok(r: &ExecResult) -> &str {
    assert_eq!(r.exit_code, 0, "{}", r.text());
    &r.output
}

/// Both routes (confined and unconfined) start commands through the same child.
const ROUTES: [SandboxMode; 2] = [SandboxMode::BestEffort, SandboxMode::Off];

#[test]
fn a_command_sees_the_limits_and_the_agent_keeps_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let before: Vec<_> = [
        libc::RLIMIT_DATA,
        libc::RLIMIT_FSIZE,
        libc::RLIMIT_NOFILE,
        libc::RLIMIT_CORE,
        libc::RLIMIT_CPU,
    ]
    .map(own_limit)
    .into();
    for mode in ROUTES {
        let k = kernel(
            dir.path(),
            mode,
            Limits {
                memory: Some(512 << 20),
                file_size: Some(3 << 20),
                open_files: Some(100),
                cpu_time: Some(Duration::from_secs(7)),
                ..Limits::default()
            },
        );
        // dash's ulimit prints KiB for -d, 512-byte blocks for -f, seconds for -t.
        let r = k.run(&sh(
            "ulimit -d; ulimit -f; ulimit -n; ulimit -c; ulimit -t; ulimit -H -n",
        ));
        let lines: Vec<&str> = ok(&r).lines().collect();
        assert_eq!(
            lines,
            ["524288", "6144", "100", "0", "7", "100"],
            "{mode:?}: {}",
            r.text()
        );
    }
    let after: Vec<_> = [
        libc::RLIMIT_DATA,
        libc::RLIMIT_FSIZE,
        libc::RLIMIT_NOFILE,
        libc::RLIMIT_CORE,
        libc::RLIMIT_CPU,
    ]
    .map(own_limit)
    .into();
    assert_eq!(before, after, "the agent's own limits changed");
}

#[test]
fn the_defaults_hold_without_any_setting() {
    let dir = tempfile::tempdir().unwrap();
    let k = kernel(dir.path(), SandboxMode::BestEffort, Limits::default());
    let r = k.run(&sh("ulimit -d; ulimit -f; ulimit -n; ulimit -c"));
    let d = Limits::default();
    let expect = [
        (d.memory.unwrap() / 1024).to_string(),
        (d.file_size.unwrap() / 512).to_string(),
        d.open_files.unwrap().to_string(),
        "0".to_owned(),
    ];
    assert_eq!(ok(&r).lines().collect::<Vec<_>>(), expect, "{}", r.text());
}

#[test]
fn a_file_past_the_size_limit_is_cut_there_and_the_result_says_so() {
    let dir = tempfile::tempdir().unwrap();
    for mode in ROUTES {
        let k = kernel(
            dir.path(),
            mode,
            Limits {
                file_size: Some(1 << 20),
                ..Limits::default()
            },
        );
        let r = k.run_as(&sh("exec head -c 5000000 /dev/zero > big"), WRITES, None);
        assert_eq!(r.limit, Some(LimitHit::FileSize(1 << 20)), "{}", r.text());
        assert!(
            r.text().contains("killed: file size limit 1 MiB reached"),
            "{}",
            r.text()
        );
        let len = std::fs::metadata(dir.path().join("big")).unwrap().len();
        assert_eq!(len, 1 << 20, "{mode:?}");
    }
}

#[test]
fn a_spinner_past_the_cpu_limit_is_killed_and_the_result_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let k = kernel(
        dir.path(),
        SandboxMode::BestEffort,
        Limits {
            cpu_time: Some(Duration::from_secs(1)),
            ..Limits::default()
        },
    );
    let r = k.run(&sh("while :; do :; done"));
    assert!(!r.timed_out, "{}", r.text());
    assert_eq!(
        r.limit,
        Some(LimitHit::CpuTime(Duration::from_secs(1))),
        "{}",
        r.text()
    );
    assert!(
        r.text().contains("killed: CPU time limit 1 s reached"),
        "{}",
        r.text()
    );
}

#[test]
fn a_memory_bomb_fails_inside_its_limit_and_the_agent_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let k = kernel(
        dir.path(),
        SandboxMode::BestEffort,
        Limits {
            memory: Some(256 << 20),
            ..Limits::default()
        },
    );
    // 1 GiB in one allocation, then 1 MiB at a time, forever: only the limit stops it.
    let script = "try:\n    bytearray(1 << 30)\nexcept MemoryError:\n    print('big: refused')\n\
                  chunks = []\ntry:\n    while True:\n        chunks.append(bytearray(1 << 20))\n\
                  except MemoryError:\n    print('small: refused after', len(chunks) // 64, 'x 64 MiB')\n";
    let r = k.run(&python(script));
    assert_eq!(r.exit_code, 0, "{}", r.text());
    assert!(r.output.contains("big: refused"), "{}", r.text());
    assert!(r.output.contains("small: refused after"), "{}", r.text());
    let after: u64 = r
        .output
        .split_whitespace()
        .rev()
        .nth(3)
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(
        after <= 4,
        "{after} x 64 MiB under a 256 MiB limit: {}",
        r.text()
    );
}

/// Memory no per-process limit counts: an anonymous shared mapping (`mmap(MAP_SHARED |
/// MAP_ANONYMOUS)`, Python's `mmap.mmap(-1, n)`) and a memfd, each over `memory`.
/// `RLIMIT_DATA` counts private mappings only, so where no memory cgroup bounds the call
/// both are refused (`ENOMEM`, `ENOSYS`); where one does, reaching `memory.max` ends the
/// call. Either way nothing past the limit is ever held. The controls: private memory and a
/// file mapped shared in the private temp dir (its tmpfs's size bounds it) still work, and
/// without a memory limit shared memory is made as anywhere.
#[test]
fn shared_and_memfd_memory_count_against_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let limit = 64 << 20;
    let k = kernel(
        dir.path(),
        SandboxMode::BestEffort,
        Limits {
            memory: Some(limit),
            ..Limits::default()
        },
    );
    let bomb = "import mmap, os\n\
                n = 512 << 20\n\
                try:\n    m = mmap.mmap(-1, n)\n    \
                for i in range(0, n, 4096): m[i] = 1\n    print('shared: held', n >> 20)\n\
                except OSError as e:\n    print('shared: refused', e.errno)\n\
                try:\n    fd = os.memfd_create('x')\n    \
                for _ in range(n >> 20): os.write(fd, bytes(1 << 20))\n    \
                print('memfd: held', n >> 20)\n\
                except OSError as e:\n    print('memfd: refused', e.errno)\n";
    let r = k.run(&python(bomb));
    assert!(!r.output.contains("held"), "{}", r.text());
    if k.limits_status().cgroup.has("memory") {
        assert_eq!(r.limit, Some(LimitHit::Memory(limit)), "{}", r.text());
    } else {
        assert_eq!(r.exit_code, 0, "{}", r.text());
        assert!(
            r.output
                .contains(&format!("shared: refused {}", libc::ENOMEM)),
            "{}",
            r.text()
        );
        assert!(
            r.output
                .contains(&format!("memfd: refused {}", libc::ENOSYS)),
            "{}",
            r.text()
        );
        assert!(
            k.limits_status()
                .to_string()
                .contains("shared anonymous memory and memfds refused"),
            "{}",
            k.limits_status()
        );
    }

    // Controls: within the same limit, 16 MiB private and 16 MiB of a temp-dir file mapped
    // shared.
    let within = "import mmap, os, tempfile\n\
                  n = 16 << 20\n\
                  b = bytearray(n)\nfor i in range(0, n, 4096): b[i] = 1\nprint('private: held')\n\
                  f = tempfile.TemporaryFile()\nf.truncate(n)\n\
                  m = mmap.mmap(f.fileno(), n)\nfor i in range(0, n, 4096): m[i] = 1\n\
                  print('file: held')\n";
    let r = k.run(&python(within));
    assert_eq!(r.exit_code, 0, "{}", r.text());
    assert_eq!(r.output, "private: held\nfile: held\n", "{}", r.text());

    // Without a memory limit nothing is refused.
    let free = kernel(
        dir.path(),
        SandboxMode::BestEffort,
        Limits {
            memory: None,
            ..Limits::default()
        },
    );
    let shared = "import mmap, os\nn = 16 << 20\nm = mmap.mmap(-1, n)\n\
                  for i in range(0, n, 4096): m[i] = 1\nfd = os.memfd_create('x')\n\
                  os.write(fd, bytes(n))\nprint('held')\n";
    let r = free.run(&python(shared));
    assert_eq!(r.exit_code, 0, "{}", r.text());
    assert_eq!(r.output, "held\n", "{}", r.text());
}

#[test]
fn too_many_open_files_fail_in_the_command_only() {
    let dir = tempfile::tempdir().unwrap();
    let k = kernel(
        dir.path(),
        SandboxMode::BestEffort,
        Limits {
            open_files: Some(16),
            ..Limits::default()
        },
    );
    let script = "fs = []\ntry:\n    while True:\n        fs.append(open('/dev/null'))\n\
                  except OSError as e:\n    print(len(fs), e.errno)\n";
    let r = k.run(&python(script));
    let fields: Vec<&str> = ok(&r).split_whitespace().collect();
    let opened: usize = fields[0].parse().unwrap();
    assert!(opened < 16, "{}", r.text());
    assert_eq!(fields[1], libc::EMFILE.to_string(), "{}", r.text());
}

/// The OOM killer picks the command before the agent: its score adjustment is the highest,
/// and the agent's own stays where it was. In a process of its own: the watcher takes any
/// `sleep` child of this process for the command, and other modules start `sleep`s of their
/// own (the sacrificial victims of `confinement`).
#[test]
fn a_command_is_the_oom_killers_first_choice_not_the_agent() {
    if !in_own_process(
        module_path!(),
        "a_command_is_the_oom_killers_first_choice_not_the_agent",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let own = std::fs::read_to_string("/proc/self/oom_score_adj").unwrap();
    // A confined command cannot read /proc: the unconfined route shows the value, and the
    // confined one is read from outside while it sleeps.
    let k = kernel(dir.path(), SandboxMode::Off, Limits::default());
    let r = k.run(&sh("cat /proc/self/oom_score_adj"));
    assert_eq!(ok(&r).trim(), "1000");
    let k = kernel(dir.path(), SandboxMode::BestEffort, Limits::default());
    let cancel = nanotool_runtime::CancelHandle::new();
    let stop = cancel.clone();
    let me = std::process::id().to_string();
    let watcher = std::thread::spawn(move || {
        for _ in 0..2000 {
            for entry in std::fs::read_dir("/proc").unwrap().flatten() {
                let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
                let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split(' ').collect();
                // The agent's child, or its grandchild where a PID namespace's reaper is the
                // agent's child (a kernel without Landlock's signal scope).
                let parent = fields.get(2).copied().unwrap_or("");
                let grandparent = std::fs::read_to_string(format!("/proc/{parent}/stat"))
                    .unwrap_or_default()
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .split(' ')
                    .nth(2)
                    .map(str::to_owned)
                    .unwrap_or_default();
                if stat.contains("(sleep)") && (parent == me || grandparent == me) {
                    let adj = std::fs::read_to_string(entry.path().join("oom_score_adj")).unwrap();
                    stop.cancel();
                    return Some(adj);
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        stop.cancel();
        None
    });
    let r = k.run_cancellable(&["sleep".to_owned(), "30".to_owned()], &cancel);
    assert!(r.cancelled, "{}", r.text());
    assert_eq!(
        watcher.join().unwrap().as_deref().map(str::trim),
        Some("1000")
    );
    assert_eq!(
        std::fs::read_to_string("/proc/self/oom_score_adj").unwrap(),
        own,
        "the agent's own score adjustment changed"
    );
}

/// Each call leads its own session, hence (where the scheduler groups by session, Linux's
/// autogroup) its own CPU share: a call with 64 spinning threads weighs as much as one call
/// with one.
#[test]
fn each_call_leads_its_own_session_and_autogroup() {
    let dir = tempfile::tempdir().unwrap();
    let k = kernel(dir.path(), SandboxMode::Off, Limits::default());
    let script = "echo $$; cut -d' ' -f6,19 /proc/self/stat; cat /proc/self/autogroup";
    let first = k.run(&sh(script));
    let second = k.run(&sh(script));
    let lines = |r: &ExecResult| -> Vec<String> { ok(r).lines().map(str::to_owned).collect() };
    let (a, b) = (lines(&first), lines(&second));
    // `cut`, the shell's child, is in the session the shell (the call's leader) leads, and
    // runs at the commands' niceness.
    assert_eq!(
        a[1],
        format!("{} {}", a[0], Limits::default().nice),
        "{}",
        first.text()
    );
    let own = std::fs::read_to_string("/proc/self/autogroup").unwrap();
    assert!(a[2].starts_with("/autogroup-"), "{}", first.text());
    assert_ne!(
        a[2].trim(),
        own.trim(),
        "the call shares the agent's autogroup"
    );
    assert_ne!(a[2], b[2], "two calls share one autogroup");
}

#[test]
fn the_status_says_which_limits_hold() {
    let dir = tempfile::tempdir().unwrap();
    let k = kernel(dir.path(), SandboxMode::BestEffort, Limits::default());
    let line = k.limits_status().to_string();
    assert!(line.starts_with("limits: "), "{line}");
    // The process limit holds per call where a delegated cgroup v2 hands down `pids`.
    let processes = if k.limits_status().cgroup.has("pids") {
        "processes: bounded per call by cgroup (pids.max 4096)"
    } else {
        "processes: not bounded"
    };
    for part in [
        "memory 4 GiB",
        "file size 1 GiB",
        "open files 1024",
        "no core dumps",
        "oom_score_adj 1000",
        processes,
    ] {
        assert!(line.contains(part), "{part:?} not in {line}");
    }
}

#[test]
fn an_argument_over_the_kernels_limit_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let k = kernel(dir.path(), SandboxMode::BestEffort, Limits::default());
    let big = "x".repeat(128 * 1024);
    let r = k.run(&["echo".to_owned(), "small".to_owned(), big]);
    let err = r.start_error.clone().unwrap_or_default();
    assert!(
        err.contains("argument 2") && err.contains("128 KiB"),
        "{}",
        r.text()
    );
    // Just under the limit still runs.
    let fits = "x".repeat(128 * 1024 - 1);
    assert_eq!(k.run(&["echo".to_owned(), fits]).exit_code, 0);
}

/// A tool's own process limit is its call's `pids.max`, over the kernel's, where the call has
/// a cgroup with the pids controller: a burst of processes past it is refused and the result
/// says so; the next call without one gets the kernel's again. Where no such cgroup exists
/// (or it is turned off) the value is carried, the call runs, and the status says processes
/// are not bounded per call.
#[test]
fn a_tools_own_process_limit_is_its_calls_pids_max() {
    use nanotool_runtime::Access;
    use nanotool_runtime::kernel::{CgroupMode, RunSettings};
    let dir = tempfile::tempdir().unwrap();
    let mut own = RunSettings::new();
    own.processes = Some(16);
    for (mode, cgroup) in [
        (SandboxMode::Off, CgroupMode::On),
        (SandboxMode::BestEffort, CgroupMode::On),
        (SandboxMode::Off, CgroupMode::Off),
    ] {
        let k = CommandExecKernel::new(KernelSettings {
            cgroup,
            ..settings(dir.path(), mode)
        })
        .unwrap();
        let status = k.limits_status();
        if !status.cgroup.has("pids") {
            eprintln!(
                "{mode:?}, cgroup {cgroup:?}: no call cgroup with the pids controller here; the tool's limit is carried, not enforced"
            );
            let line = status.to_string();
            assert!(line.contains("processes: not bounded per call ("), "{line}");
            let r = k.run_with(&sh("echo ok"), Access::READ_ONLY, &own, None);
            assert_eq!(ok(&r), "ok\n");
            assert_eq!(r.limit, None, "{}", r.text());
            continue;
        }
        // The pooled cgroup holds what the last call wrote: the tool's 16, then the kernel's
        // 4096 for a call without a limit of its own.
        let pids_max = || {
            let folder = k.limits_status().cgroup.parent.clone().unwrap();
            std::fs::read_dir(folder)
                .unwrap()
                .flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| std::fs::read_to_string(e.path().join("pids.max")).unwrap())
                .map(|s| s.trim().to_owned())
                .collect::<Vec<_>>()
        };
        let r = k.run_with(&sh("echo ok"), Access::READ_ONLY, &own, None);
        assert_eq!(ok(&r), "ok\n");
        assert_eq!(pids_max(), ["16"], "{mode:?}");
        let r = k.run(&sh("echo ok"));
        assert_eq!(ok(&r), "ok\n");
        assert_eq!(pids_max(), ["4096"], "{mode:?}");
        // 40 sleepers at once under a limit of 16: the shell's forks past it fail, and the
        // result says which limit was hit.
        let r = k.run_with(
            &sh("for i in $(seq 40); do sleep 1 & done 2>/dev/null; wait"),
            Access::READ_ONLY,
            &own,
            None,
        );
        assert_eq!(r.limit, Some(LimitHit::Processes(16)), "{}", r.text());
        assert!(
            r.text()
                .contains("process limit 16 reached: a new process was refused"),
            "{}",
            r.text()
        );
    }
}
