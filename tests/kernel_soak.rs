//! Soak test of `CommandExecKernel`: 1,000 calls over 8 threads on one kernel, mixing normal
//! exits, background grandchildren, timeouts, cancels and output floods. Afterwards: every
//! call answered as its kind says, no zombie child, no leaked fd, and no live process left in
//! any of the process groups the calls made.

use nanotool_runtime::{CancelHandle, CommandExecKernel, ExecResult, KernelSettings};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const CALLS: usize = 1000;
const THREADS: usize = 8;
/// A group member or a call that has not ended after this long is a hang.
const WATCHDOG: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    True,
    Exit3,
    Grandchild,
    Timeout,
    Cancel,
    Flood,
}

const KINDS: [Kind; 10] = [
    Kind::True,
    Kind::Exit3,
    Kind::Grandchild,
    Kind::True,
    Kind::Timeout,
    Kind::Exit3,
    Kind::Cancel,
    Kind::Flood,
    Kind::Grandchild,
    Kind::True,
];

fn sh(script: &str) -> Vec<String> {
    ["sh", "-c", script].iter().map(|s| s.to_string()).collect()
}

/// One line of /proc/<pid>/stat: (state, ppid, pgrp).
fn proc_stat(pid: i32) -> Option<(char, i32, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, ppid, pgrp))
}

fn all_pids() -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// Whether any live (not zombie, not dead) process is in group `pgid`. `kill(-pgid, 0)`
/// failing with ESRCH proves none; when it succeeds, the group may hold only zombies that a
/// non-reaping init keeps, so /proc decides.
fn group_has_live_member(pgid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    if unsafe { libc::kill(-pgid, 0) } == -1
        && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
    {
        return false;
    }
    all_pids().into_iter().any(|pid| {
        matches!(proc_stat(pid), Some((state, _, pgrp)) if pgrp == pgid && state != 'Z' && state != 'X')
    })
}

fn first_pid(output: &str) -> Option<i32> {
    output.lines().next()?.trim().parse().ok()
}

/// The kernels every thread shares: one with the default timeout, one that times out fast.
struct Kernels {
    normal: CommandExecKernel,
    short: CommandExecKernel,
}

fn run_one(kernels: &Kernels, kind: Kind, canceller: &mpsc::Sender<CancelHandle>) -> ExecResult {
    let kernel = &kernels.normal;
    match kind {
        Kind::True => kernel.run(&["true".to_string()]),
        Kind::Exit3 => kernel.run(&sh("echo $$; echo err >&2; exit 3")),
        Kind::Grandchild => kernel.run(&sh("echo $$; sleep 100 & echo $!")),
        Kind::Timeout => kernels.short.run(&sh("echo $$; sleep 5 & sleep 5")),
        Kind::Cancel => {
            let handle = CancelHandle::new();
            canceller.send(handle.clone()).unwrap();
            kernel.run_cancellable(&sh("echo $$; sleep 5 & sleep 5"), &handle)
        }
        Kind::Flood => kernel.run(&sh("echo $$; head -c 16777216 /dev/zero")),
    }
}

fn check_answer(kind: Kind, r: &ExecResult) {
    match kind {
        Kind::True | Kind::Grandchild => assert_eq!(r.exit_code, 0, "{kind:?}: {r:?}"),
        Kind::Exit3 => {
            assert_eq!(r.exit_code, 3, "{r:?}");
            assert!(r.output.ends_with("\nerr\n"), "{r:?}");
        }
        Kind::Timeout => assert!(r.timed_out && r.exit_code == 124, "{r:?}"),
        Kind::Cancel => assert!(r.cancelled && r.exit_code == 130, "{r:?}"),
        Kind::Flood => {
            assert_eq!(r.exit_code, 0, "{r:?}");
            assert!(r.truncated && r.total_bytes > 16_777_216, "{r:?}");
            // The cap, plus the marker line naming what was omitted.
            let cap = nanotool_runtime::kernel::DEFAULT_MAX_OUTPUT;
            assert!(r.output.len() < cap + 200, "{}", r.output.len());
        }
    }
}

#[test]
fn a_thousand_mixed_calls_over_eight_threads_leave_nothing_behind() {
    // Only the timeout calls get the short timeout: a loaded machine must not turn a normal
    // call into a timeout.
    let kernels = Arc::new(Kernels {
        normal: CommandExecKernel::new(KernelSettings::default()).unwrap(),
        short: CommandExecKernel::new(KernelSettings {
            timeout: Duration::from_millis(200),
            ..KernelSettings::default()
        })
        .unwrap(),
    });
    // Each kernel builds its sandbox's profile on its first call (the Landlock ruleset and
    // `/dev/null`, held for the kernel's life): count fds after that.
    kernels.normal.run(&["true".to_string()]);
    kernels.short.run(&["true".to_string()]);
    let fds_before = std::fs::read_dir("/proc/self/fd").unwrap().count();

    // One thread fires every cancel a little after its run was handed over.
    let (cancel_tx, cancel_rx) = mpsc::channel::<CancelHandle>();
    let canceller = std::thread::spawn(move || {
        for handle in cancel_rx {
            std::thread::sleep(Duration::from_millis(20));
            handle.cancel();
        }
    });

    let (done_tx, done_rx) = mpsc::channel::<(Kind, ExecResult)>();
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let kernels = Arc::clone(&kernels);
            let cancel_tx = cancel_tx.clone();
            let done_tx = done_tx.clone();
            std::thread::spawn(move || {
                for i in (t..CALLS).step_by(THREADS) {
                    let kind = KINDS[i % KINDS.len()];
                    let r = run_one(&kernels, kind, &cancel_tx);
                    done_tx.send((kind, r)).unwrap();
                }
            })
        })
        .collect();
    drop(cancel_tx);
    drop(done_tx);

    let mut answers = Vec::with_capacity(CALLS);
    let until = Instant::now() + WATCHDOG;
    while answers.len() < CALLS {
        let left = until.saturating_duration_since(Instant::now());
        match done_rx.recv_timeout(left) {
            Ok(answer) => answers.push(answer),
            Err(_) => panic!(
                "only {} of {CALLS} calls answered: a call hangs",
                answers.len()
            ),
        }
    }
    for w in workers {
        w.join().unwrap();
    }
    canceller.join().unwrap();

    let mut groups = Vec::new();
    for (kind, r) in &answers {
        check_answer(*kind, r);
        if let Some(pgid) = first_pid(&r.output) {
            groups.push(pgid);
        }
    }
    assert!(
        groups.len() >= CALLS / 2,
        "too few groups recorded: {}",
        groups.len()
    );

    let fds_after = std::fs::read_dir("/proc/self/fd").unwrap().count();
    assert_eq!(fds_after, fds_before, "fds leaked");

    let me = std::process::id() as i32;
    let zombies: Vec<i32> = all_pids()
        .into_iter()
        .filter(|pid| matches!(proc_stat(*pid), Some(('Z', ppid, _)) if ppid == me))
        .collect();
    assert_eq!(zombies, Vec::<i32>::new(), "zombie children left");

    // SIGKILL is asynchronous: give the last members a moment to die (a hang detector).
    let until = Instant::now() + WATCHDOG;
    for pgid in groups {
        while group_has_live_member(pgid) {
            assert!(
                Instant::now() < until,
                "group {pgid} still has a live process"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
