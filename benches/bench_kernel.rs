//! Benchmark of `CommandExecKernel`, every figure measured side by side in one run:
//!
//! 1. spawning `/bin/true`: the confined kernel (sandbox best-effort, the default), the same
//!    with a private PID namespace per call (`KernelSettings::pid_namespace`), vs the
//!    unconfined kernel (`--sandbox off`) vs a raw `Command::output()` vs `sh -c true`;
//! 2. the same while this process holds 512 MiB, then 4 GiB, of touched memory, beside a
//!    spawn with a no-op `pre_exec` (which drops std to fork/exec);
//! 3. 1 GiB of output through the confined and the unconfined kernel (default cap),
//!    interleaved, vs `head | cat > /dev/null`: throughput and peak RSS growth;
//! 4. two million system calls in one command, confined and unconfined: what the sandbox
//!    adds to each call;
//! 5. timeout overshoot and cancel latency;
//! 6. spawning `/bin/true` with the per-call limits (the defaults: memory, file size, open
//!    files, core dumps, niceness, OOM score) vs the same kernel with `Limits::none()`,
//!    confined and unconfined;
//! 7. spawning `/bin/true` with a cgroup per call (`CgroupMode::Auto`, where the host
//!    delegates a cgroup v2) vs without (`CgroupMode::Off`), confined and unconfined, beside
//!    what the pool of empty cgroups saves (a cgroup's `mkdir`, open and `rmdir`);
//! 8. the confinement's parts (`parts`): the filter, Landlock, the tmpfs temp dir's mount
//!    namespace, each against the unconfined spawn;
//! 9. neighbours: 8 threads making short confined calls, alone and beside one call that
//!    floods its output, a 64-process CPU spinner, and a fork bomb (bounded by a pids cgroup
//!    this bench makes: of its own, then shared with the 8 callers): their median and p99
//!    per call and how many failed.
//!
//! `cargo bench --bench bench_kernel` runs everything; `-- SECTION` (`spawn`, `parts`, `flood`,
//! `syscalls`, `timeout`, `memory`, `limits`, `cgroup`, `neighbours`) runs one section only,
//! `-- --help` says so.

use nanotool_runtime::kernel::PidNamespaceMode;
use nanotool_runtime::{CancelHandle, CommandExecKernel, KernelSettings, Limits, SandboxMode};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

// In a folder of its own: a file directly in benches/ would be taken for a benchmark.
#[path = "bench_kernel/neighbours.rs"]
mod neighbours;

const GIB: u64 = 1 << 30;

struct Stats {
    median: Duration,
    p90: Duration,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    Stats {
        median: at(0.5),
        p90: at(0.9),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn row(label: &str, s: &Stats, base: Option<(&str, &Stats)>) {
    let ratio = base
        .map(|(name, b)| {
            format!(
                "  {:.3}x {name}",
                s.median.as_secs_f64() / b.median.as_secs_f64()
            )
        })
        .unwrap_or_default();
    println!(
        "  {label:<34} median {:>8.3} ms   p90 {:>8.3} ms{ratio}",
        ms(s.median),
        ms(s.p90)
    );
}

/// Runs each closure `n` times, round robin, so drift hits all of them alike.
fn side_by_side(n: usize, runs: &mut [&mut dyn FnMut()]) -> Vec<Stats> {
    let mut samples = vec![Vec::with_capacity(n); runs.len()];
    for _ in 0..n {
        for (run, out) in runs.iter_mut().zip(samples.iter_mut()) {
            let t = Instant::now();
            run();
            out.push(t.elapsed());
        }
    }
    samples.into_iter().map(stats).collect()
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| {
            l.strip_prefix(field)?
                .trim()
                .strip_suffix(" kB")?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

fn raw_true() {
    let out = Command::new("/bin/true").output().unwrap();
    assert!(out.status.success());
}

fn raw_sh_true() {
    let out = Command::new("/bin/sh")
        .args(["-c", "true"])
        .output()
        .unwrap();
    assert!(out.status.success());
}

fn pre_exec_true() {
    let mut cmd = Command::new("/bin/true");
    // SAFETY: the closure does nothing; it only forces std off posix_spawn.
    unsafe { cmd.pre_exec(|| Ok(())) };
    assert!(cmd.output().unwrap().status.success());
}

/// Spawn figures at the current memory size; returns the medians of the confined and the
/// unconfined kernel.
fn spawn_section(
    confined: &CommandExecKernel,
    namespaced: &CommandExecKernel,
    plain: &CommandExecKernel,
    title: &str,
    n: usize,
    n_pre_exec: usize,
) -> (Stats, Stats) {
    println!(
        "{title} (N={n}, pre_exec N={n_pre_exec}, VmRSS {} MiB)",
        status_kib("VmRSS:") / 1024
    );
    let bin_true = argv(&["/bin/true"]);
    let bare_true = argv(&["true"]);
    let mut c_abs = || {
        let r = confined.run(&bin_true);
        assert_eq!((r.exit_code, r.confined), (0, true));
    };
    let mut n_abs = || {
        let r = namespaced.run(&bin_true);
        assert_eq!((r.exit_code, r.confined), (0, true));
    };
    let mut k_abs = || assert_eq!(plain.run(&bin_true).exit_code, 0);
    let mut k_bare = || assert_eq!(plain.run(&bare_true).exit_code, 0);
    let mut raw = raw_true;
    let mut sh = raw_sh_true;
    let s = side_by_side(
        n,
        &mut [
            &mut c_abs,
            &mut k_abs,
            &mut k_bare,
            &mut raw,
            &mut sh,
            &mut n_abs,
        ],
    );
    let pre = side_by_side(n_pre_exec, &mut [&mut pre_exec_true]);
    let raw_s = ("vs raw", &s[3]);
    row(
        "confined kernel [\"/bin/true\"]",
        &s[0],
        Some(("vs unconfined", &s[1])),
    );
    row("  + PID namespace", &s[5], Some(("vs unconfined", &s[1])));
    row("unconfined kernel [\"/bin/true\"]", &s[1], Some(raw_s));
    row("unconfined kernel [\"true\"] (PATH)", &s[2], Some(raw_s));
    row("raw Command(/bin/true).output()", &s[3], None);
    row("raw sh -c true", &s[4], Some(raw_s));
    row("raw pre_exec(no-op) /bin/true", &pre[0], Some(raw_s));
    let mut s = s;
    s.truncate(2);
    let plain = s.swap_remove(1);
    (s.swap_remove(0), plain)
}

fn touch(bytes: usize) -> Vec<u8> {
    let mut v = vec![0u8; bytes];
    for i in (0..bytes).step_by(4096) {
        v[i] = 1;
    }
    std::hint::black_box(&mut v);
    v
}

fn flood_section(kernel: &CommandExecKernel, plain: &CommandExecKernel, n: usize) {
    println!("1 GiB of output (N={n}, the confined and the unconfined kernel interleaved)");
    let flood = argv(&["head", "-c", "1073741824", "/dev/zero"]);
    // Peak RSS growth: reset the high-water mark to the current RSS first.
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let hwm_before = status_kib("VmHWM:");
    let drain = |k: &CommandExecKernel| {
        let r = k.run(&flood);
        assert_eq!((r.exit_code, r.total_bytes), (0, GIB));
        // The default cap, plus the omission marker.
        assert!(r.output.len() < KernelSettings::default().max_output + 100);
    };
    let mut confined = || drain(kernel);
    let mut unconfined = || drain(plain);
    let mut pipeline = || {
        let out = Command::new("/bin/sh")
            .args(["-c", "head -c 1073741824 /dev/zero | cat > /dev/null"])
            .output()
            .unwrap();
        assert!(out.status.success());
    };
    let mut to_null = || {
        let out = Command::new("/bin/sh")
            .args(["-c", "head -c 1073741824 /dev/zero > /dev/null"])
            .output()
            .unwrap();
        assert!(out.status.success());
    };
    let s = side_by_side(
        n,
        &mut [&mut confined, &mut unconfined, &mut pipeline, &mut to_null],
    );
    let hwm_after = status_kib("VmHWM:");
    let gibs = |st: &Stats| GIB as f64 / st.median.as_secs_f64() / GIB as f64;
    let pipe = s[2].median.as_secs_f64();
    for (label, st) in [
        ("confined kernel (default cap)  ", &s[0]),
        ("unconfined kernel (default cap)", &s[1]),
    ] {
        println!(
            "  {label}       median {:>8.3} ms   {:.2} GiB/s   {:.2}x the pipeline's time",
            ms(st.median),
            gibs(st),
            st.median.as_secs_f64() / pipe
        );
    }
    println!(
        "  sh: head | cat > /dev/null         median {:>8.3} ms   {:.2} GiB/s",
        ms(s[2].median),
        gibs(&s[2])
    );
    println!(
        "  sh: head > /dev/null (no pipe)     median {:>8.3} ms   {:.2} GiB/s",
        ms(s[3].median),
        gibs(&s[3])
    );
    println!(
        "  confined/unconfined               {:.3}x",
        s[0].median.as_secs_f64() / s[1].median.as_secs_f64()
    );
    println!(
        "  peak RSS growth over {} kernel floods: {} KiB (VmHWM {} -> {} KiB{})",
        2 * n,
        hwm_after.saturating_sub(hwm_before),
        hwm_before,
        hwm_after,
        if reset {
            ""
        } else {
            "; clear_refs refused, so an upper bound"
        }
    );
}

/// What the sandbox adds to each system call a command makes (the seccomp filter runs on
/// every one): `dd` copying a million single bytes, two million calls, confined and not.
fn syscall_section(kernel: &CommandExecKernel, plain: &CommandExecKernel, n: usize) {
    const CALLS: f64 = 2e6;
    println!("2,000,000 system calls in one command (dd bs=1 count=1000000, N={n}, interleaved)");
    let dd = argv(&[
        "dd",
        "if=/dev/zero",
        "of=/dev/null",
        "bs=1",
        "count=1000000",
    ]);
    let run = |k: &CommandExecKernel| {
        let r = k.run(&dd);
        assert_eq!(r.exit_code, 0, "{}", r.output);
    };
    let mut confined = || run(kernel);
    let mut unconfined = || run(plain);
    let s = side_by_side(n, &mut [&mut confined, &mut unconfined]);
    row("confined kernel", &s[0], Some(("unconfined", &s[1])));
    row("unconfined kernel", &s[1], None);
    println!(
        "  the sandbox's cost per system call: {:.0} ns",
        (s[0].median.as_secs_f64() - s[1].median.as_secs_f64()) * 1e9 / CALLS
    );
}

fn timeout_cancel_section(n: usize) {
    let timeout = Duration::from_millis(100);
    let kernel = CommandExecKernel::new(KernelSettings {
        timeout,
        ..KernelSettings::default()
    })
    .unwrap();
    let sleep = argv(&["sleep", "10"]);
    let over: Vec<Duration> = (0..n)
        .map(|_| {
            let r = kernel.run(&sleep);
            assert!(r.timed_out);
            r.duration.saturating_sub(timeout)
        })
        .collect();
    let over = stats(over);
    println!("timeout and cancel (N={n})");
    println!(
        "  timeout overshoot (100 ms, sleep 10)  median {:>8.3} ms   p90 {:>8.3} ms",
        ms(over.median),
        ms(over.p90)
    );

    let kernel = Arc::new(CommandExecKernel::new(KernelSettings::default()).unwrap());
    let (tx, rx) = mpsc::channel::<(CancelHandle, mpsc::Sender<Instant>)>();
    let canceller = std::thread::spawn(move || {
        for (handle, fired) in rx {
            std::thread::sleep(Duration::from_millis(30));
            let at = Instant::now();
            handle.cancel();
            fired.send(at).unwrap();
        }
    });
    let lat: Vec<Duration> = (0..n)
        .map(|_| {
            let handle = CancelHandle::new();
            let (ftx, frx) = mpsc::channel();
            tx.send((handle.clone(), ftx)).unwrap();
            let r = kernel.run_cancellable(&sleep, &handle);
            let returned = Instant::now();
            assert!(r.cancelled);
            returned.duration_since(frx.recv().unwrap())
        })
        .collect();
    drop(tx);
    canceller.join().unwrap();
    let lat = stats(lat);
    println!(
        "  cancel latency (fire -> return)       median {:>8.3} ms   p90 {:>8.3} ms",
        ms(lat.median),
        ms(lat.p90)
    );
}

/// What the per-call limits cost: `/bin/true` through kernels with the default limits and
/// with none, confined and unconfined, interleaved.
fn limits_section(n: usize) {
    let kernel = |sandbox: SandboxMode, limits: Limits| {
        CommandExecKernel::new(KernelSettings {
            sandbox,
            limits,
            ..base()
        })
        .unwrap()
    };
    let confined = kernel(SandboxMode::BestEffort, Limits::default());
    let confined_none = kernel(SandboxMode::BestEffort, Limits::none());
    // The parts: the rlimits alone (no niceness, no OOM score), and without the OOM score.
    let rlimits_only = kernel(
        SandboxMode::BestEffort,
        Limits {
            nice: 0,
            oom_first: false,
            ..Limits::default()
        },
    );
    let no_oom = kernel(
        SandboxMode::BestEffort,
        Limits {
            oom_first: false,
            ..Limits::default()
        },
    );
    let plain = kernel(SandboxMode::Off, Limits::default());
    let plain_none = kernel(SandboxMode::Off, Limits::none());
    println!("spawn /bin/true with the per-call limits vs none (N={n})");
    println!("  {}", confined.limits_status());
    let bin_true = argv(&["/bin/true"]);
    let run = |k: &CommandExecKernel| assert_eq!(k.run(&bin_true).exit_code, 0);
    for k in [
        &confined,
        &confined_none,
        &plain,
        &plain_none,
        &rlimits_only,
        &no_oom,
    ] {
        for _ in 0..50 {
            run(k);
        }
    }
    let s = side_by_side(
        n,
        &mut [
            &mut || run(&confined),
            &mut || run(&confined_none),
            &mut || run(&plain),
            &mut || run(&plain_none),
            &mut || run(&rlimits_only),
            &mut || run(&no_oom),
        ],
    );
    row("confined, no limits", &s[1], None);
    row(
        "confined, default limits",
        &s[0],
        Some(("confined, none", &s[1])),
    );
    row(
        "confined, rlimits only",
        &s[4],
        Some(("confined, none", &s[1])),
    );
    row(
        "confined, rlimits + nice 10",
        &s[5],
        Some(("confined, none", &s[1])),
    );
    row("unconfined, no limits", &s[3], None);
    row(
        "unconfined, default limits",
        &s[2],
        Some(("unconfined, none", &s[3])),
    );
}

/// What a cgroup per call costs: `/bin/true` through kernels with and without one, confined
/// and unconfined, interleaved; and what one cgroup's `mkdir`, open and `rmdir` cost (what
/// the pool of empty cgroups saves a call).
fn cgroup_section(n: usize) {
    use nanotool_runtime::kernel::CgroupMode;
    let kernel = |sandbox: SandboxMode, cgroup: CgroupMode| {
        CommandExecKernel::new(KernelSettings {
            sandbox,
            cgroup,
            ..KernelSettings::default()
        })
        .unwrap()
    };
    // `On`: where the host hands down no controller, `Auto` makes no cgroup for confined
    // calls (they cannot leave their group); the row measures what one costs all the same.
    let confined = kernel(SandboxMode::BestEffort, CgroupMode::On);
    let confined_off = kernel(SandboxMode::BestEffort, CgroupMode::Off);
    let plain = kernel(SandboxMode::Off, CgroupMode::On);
    let plain_off = kernel(SandboxMode::Off, CgroupMode::Off);
    println!("spawn /bin/true with a cgroup per call vs without (N={n})");
    println!("  {}", confined.limits_status().cgroup);
    let Some(folder) = confined.limits_status().cgroup.parent else {
        println!("  (no cgroup per call on this host: nothing to compare)");
        return;
    };
    let bin_true = argv(&["/bin/true"]);
    let run = |k: &CommandExecKernel| assert_eq!(k.run(&bin_true).exit_code, 0);
    for k in [&confined, &confined_off, &plain, &plain_off] {
        for _ in 0..50 {
            run(k);
        }
    }
    let scratch = folder.join("bench-scratch");
    let mut mkdir_rmdir = || {
        std::fs::create_dir(&scratch).unwrap();
        let dir = std::fs::File::open(&scratch).unwrap();
        let events = std::fs::File::open(scratch.join("cgroup.events")).unwrap();
        drop((dir, events));
        std::fs::remove_dir(&scratch).unwrap();
    };
    let s = side_by_side(
        n,
        &mut [
            &mut || run(&confined),
            &mut || run(&confined_off),
            &mut || run(&plain),
            &mut || run(&plain_off),
            &mut mkdir_rmdir,
        ],
    );
    row("confined, no cgroup", &s[1], None);
    row(
        "confined, a cgroup per call",
        &s[0],
        Some(("confined, none", &s[1])),
    );
    row("unconfined, no cgroup", &s[3], None);
    row(
        "unconfined, a cgroup per call",
        &s[2],
        Some(("unconfined, none", &s[3])),
    );
    row("a cgroup's mkdir + open + rmdir", &s[4], None);
}

/// What the confinement's parts cost a spawn: `/bin/true` confined, confined by a build
/// without filter rules for the machine (Landlock, capabilities, fds and the group only),
/// confined as on a Linux without Landlock (the filter then also carries the rules Landlock
/// would hold), confined with the temp dir on disk (no tmpfs, so no mount namespace to
/// enter), and unconfined, interleaved.
fn parts_section(n: usize) {
    let kernel = |sandbox: SandboxMode, abi: Option<u32>, filter: bool| {
        CommandExecKernel::new(KernelSettings {
            sandbox,
            landlock_abi_limit: abi,
            without_filter_rules: !filter,
            ..base()
        })
        .unwrap()
    };
    let full = kernel(SandboxMode::BestEffort, None, true);
    let no_filter = kernel(SandboxMode::BestEffort, None, false);
    let no_landlock = kernel(SandboxMode::BestEffort, Some(0), true);
    let plain = kernel(SandboxMode::Off, None, true);
    let on_disk = CommandExecKernel::new(KernelSettings {
        temp_size: None,
        ..base()
    })
    .unwrap();
    println!("what each part of the confinement costs a spawn of /bin/true (N={n})");
    for k in [&full, &no_filter, &no_landlock] {
        println!("  {}", k.sandbox_status());
    }
    println!("  {}", full.limits_status().temp_dir);
    let bin_true = argv(&["/bin/true"]);
    let run = |k: &CommandExecKernel| {
        let r = k.run(&bin_true);
        assert_eq!(r.exit_code, 0, "{}", r.text());
    };
    for _ in 0..50 {
        for k in [&full, &no_filter, &no_landlock, &plain, &on_disk] {
            run(k);
        }
    }
    let s = side_by_side(
        n,
        &mut [
            &mut || run(&full),
            &mut || run(&no_filter),
            &mut || run(&no_landlock),
            &mut || run(&plain),
            &mut || run(&on_disk),
        ],
    );
    row("unconfined", &s[3], None);
    row("confined", &s[0], Some(("unconfined", &s[3])));
    row("  without the filter", &s[1], Some(("unconfined", &s[3])));
    row(
        "  the filter alone (ABI 0)",
        &s[2],
        Some(("unconfined", &s[3])),
    );
    row(
        "  the temp dir on disk (no tmpfs)",
        &s[4],
        Some(("unconfined", &s[3])),
    );
    row(
        "  with the tmpfs namespace entered",
        &s[0],
        Some(("temp dir on disk", &s[4])),
    );
}

/// The PID namespace where it is the default (Landlock without its signal scope, ABI < 6,
/// played with `landlock_abi_limit`): a confined `/bin/true` in one (a reaper as its pid 1)
/// against the same call without, interleaved; `n` calls each, in `rounds` rounds.
fn pidns_section(n: usize, rounds: usize) {
    for abi in [2, 0] {
        let at = |pid_namespace| {
            CommandExecKernel::new(KernelSettings {
                landlock_abi_limit: Some(abi),
                pid_namespace,
                ..base()
            })
            .unwrap()
        };
        let (with, without) = (at(PidNamespaceMode::Auto), at(PidNamespaceMode::Off));
        println!(
            "PID namespace at Landlock ABI {abi} (N={n} x {rounds} rounds, interleaved): {}",
            with.spawn_status()
        );
        let bin_true = argv(&["/bin/true"]);
        for _ in 0..50 {
            with.run(&bin_true);
            without.run(&bin_true);
        }
        let mut ratios = Vec::new();
        for round in 0..rounds {
            let mut a = || assert_eq!(with.run(&bin_true).exit_code, 0);
            let mut b = || assert_eq!(without.run(&bin_true).exit_code, 0);
            let s = side_by_side(n, &mut [&mut a, &mut b]);
            if round == 0 {
                row(
                    "confined, PID namespace + reaper",
                    &s[0],
                    Some(("vs without", &s[1])),
                );
                row("confined, no PID namespace", &s[1], None);
            }
            ratios.push(s[0].median.as_secs_f64() / s[1].median.as_secs_f64());
        }
        ratios.sort_by(f64::total_cmp);
        println!(
            "  ratio per round: median {:.3}x, min {:.3}x, max {:.3}x",
            ratios[ratios.len() / 2],
            ratios[0],
            ratios[ratios.len() - 1]
        );
    }
}

/// The settings every comparison here starts from: no cgroup per call (it has a section of
/// its own, and `auto` makes one for an unconfined kernel but not for a confined one on a host
/// that hands down no controller, which would tilt a confined/unconfined ratio).
fn base() -> KernelSettings {
    KernelSettings {
        cgroup: nanotool_runtime::kernel::CgroupMode::Off,
        ..KernelSettings::default()
    }
}

/// The sections an argument may name.
const SECTIONS: [&str; 10] = [
    "spawn",
    "pidns",
    "parts",
    "flood",
    "syscalls",
    "timeout",
    "memory",
    "limits",
    "cgroup",
    "neighbours",
];

const USAGE: &str = "usage: cargo bench --bench bench_kernel [-- SECTION]
  SECTION: one of spawn, pidns, parts, flood, syscalls, timeout, memory, limits, cgroup, neighbours (every section when none is given)";

fn main() {
    // `cargo bench` adds `--bench` to the arguments.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let only = match args.as_slice() {
        [] => None,
        [help] if help == "--help" || help == "-h" => {
            println!("{USAGE}");
            return;
        }
        [section] if SECTIONS.contains(&section.as_str()) => Some(section.clone()),
        _ => {
            eprintln!("bench_kernel: no section {args:?}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let wants = |section: &str| only.as_deref().is_none_or(|o| o == section);
    let started = Instant::now();
    let kernel = CommandExecKernel::new(base()).unwrap();
    let plain = CommandExecKernel::new(KernelSettings {
        sandbox: SandboxMode::Off,
        ..base()
    })
    .unwrap();
    let namespaced = CommandExecKernel::new(KernelSettings {
        pid_namespace: PidNamespaceMode::On,
        ..base()
    })
    .unwrap();
    println!("{}", kernel.sandbox_status());
    println!("{}", namespaced.spawn_status());
    // Warm up: page cache, the thread's read buffer, the allocator, the sandbox's profile.
    for _ in 0..50 {
        kernel.run(&argv(&["/bin/true"]));
        namespaced.run(&argv(&["/bin/true"]));
        plain.run(&argv(&["/bin/true"]));
        raw_true();
    }
    let small = if wants("spawn") || wants("memory") {
        let s = spawn_section(
            &kernel,
            &namespaced,
            &plain,
            "spawn /bin/true, small process",
            1000,
            100,
        );
        println!();
        Some(s)
    } else {
        None
    };
    if wants("pidns") {
        pidns_section(200, 10);
        println!();
    }
    if wants("parts") {
        parts_section(1000);
        println!();
    }
    if wants("flood") {
        flood_section(&kernel, &plain, 7);
        println!();
    }
    if wants("syscalls") {
        syscall_section(&kernel, &plain, 9);
        println!();
    }
    if wants("timeout") {
        timeout_cancel_section(20);
        println!();
    }
    if wants("limits") {
        limits_section(1000);
        println!();
    }
    if wants("cgroup") {
        cgroup_section(1000);
        println!();
    }
    if wants("neighbours") {
        neighbours::section(1000);
        println!();
    }
    if let Some(small) = small.filter(|_| wants("memory")) {
        let mut figures = Vec::new();
        for (label, bytes, n_pre) in [("512 MiB", 512usize << 20, 40), ("4 GiB", 4usize << 30, 8)] {
            let memory = touch(bytes);
            let s = spawn_section(
                &kernel,
                &namespaced,
                &plain,
                &format!("spawn /bin/true, process holding {label} of touched memory"),
                500,
                n_pre,
            );
            figures.push((label, s));
            drop(memory);
            println!();
        }
        println!("kernel spawn median vs its small-process figure");
        for (label, (confined, plain)) in &figures {
            println!(
                "  confined   at {label:<8} {:.3} ms / {:.3} ms = {:.3}x",
                ms(confined.median),
                ms(small.0.median),
                confined.median.as_secs_f64() / small.0.median.as_secs_f64()
            );
            println!(
                "  unconfined at {label:<8} {:.3} ms / {:.3} ms = {:.3}x",
                ms(plain.median),
                ms(small.1.median),
                plain.median.as_secs_f64() / small.1.median.as_secs_f64()
            );
        }
        println!();
    }
    println!("whole bench: {:.1} s", started.elapsed().as_secs_f64());
}
