//! The `neighbours` section of `bench_kernel`: what one call does to the calls beside it.
//!
//! 8 threads each make [`section`]'s number of short confined calls (`/bin/true`, the default
//! limits) in a loop, measured alone, then beside one other call that
//!
//! - floods its output (`head -c 1G /dev/zero`, again and again, the kernel's output cap);
//! - spins 64 processes on the CPU (a `sh` that starts 64 busy loops);
//! - is a fork bomb, bounded by a v1 pids cgroup this bench makes (`pids.max` [`BOMB_PIDS`])
//!   and moves the bomb's starting thread into, so every process of the bomb is counted
//!   there: first with the cgroup to the bomb alone (what a per-call pids limit gives), then
//!   with the 8 callers' threads in it too (one bound for the agent and its commands, as a
//!   container's pids limit or `RLIMIT_NPROC` of one user is).
//!
//! Each row gives the callers' median and p99 per call, the ratio of that p99 to the p99
//! alone, and how many of their calls failed, with the first failure's text. The bomb rows
//! also give how many forks the cgroup refused and how many of the bomb's processes were
//! left once its call returned (the bench then kills them and checks the cgroup is empty
//! before removing it). Without a v1 pids hierarchy the bench can write to (not root, or
//! cgroup v2 only), the bomb rows are skipped, saying why: the bench never runs an unbounded
//! bomb.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nanotool_runtime::{CancelHandle, CommandExecKernel, ExecResult, KernelSettings};

use super::{argv, ms};

/// Threads making short calls.
const CALLERS: usize = 8;

/// Processes the bomb's cgroup may hold (the bench's own bound on the bomb).
const BOMB_PIDS: u32 = 300;

/// The v1 pids hierarchy.
const PIDS_ROOT: &str = "/sys/fs/cgroup/pids";

/// The name of this bench's cgroups, and the tag of the processes it starts (in their argv,
/// as `$0` of `sh -c`), so a leftover can be found by its command line.
const TAG: &str = "nanotool-bench-neighbours";

/// The callers' figures in one case.
struct Figures {
    median: Duration,
    p99: Duration,
    calls: usize,
    failed: usize,
    first_failure: Option<String>,
}

fn figures(results: Vec<(Vec<Duration>, usize, Option<String>)>) -> Figures {
    let mut times = Vec::new();
    let mut failed = 0;
    let mut first_failure = None;
    for (t, f, first) in results {
        times.extend(t);
        failed += f;
        if first_failure.is_none() {
            first_failure = first;
        }
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    Figures {
        median: at(0.5),
        p99: at(0.99),
        calls: times.len(),
        failed,
        first_failure,
    }
}

/// Runs `neighbour` on a thread of its own (it gets the handle that stops it), lets it get
/// going, then the 8 callers (each in `callers_in`, if given); when they are done, runs
/// `probe` (the neighbour still running), stops the neighbour, and returns the callers'
/// figures, what the neighbour reported and what the probe saw.
fn beside<R: Send, P>(
    kernel: &CommandExecKernel,
    calls: usize,
    callers_in: Option<&PidsCgroup>,
    neighbour: impl FnOnce(&CancelHandle) -> R + Send,
    probe: impl FnOnce() -> P,
) -> (Figures, R, P) {
    let stop = CancelHandle::new();
    let bin_true = argv(&["/bin/true"]);
    std::thread::scope(|scope| {
        let stop_ref = &stop;
        let other = scope.spawn(move || neighbour(stop_ref));
        // Let the neighbour reach its stride (a flood its speed, a bomb its bound).
        std::thread::sleep(Duration::from_millis(500));
        let callers: Vec<_> = (0..CALLERS)
            .map(|_| {
                let bin_true = &bin_true;
                scope.spawn(move || {
                    if let Some(cgroup) = callers_in {
                        cgroup
                            .enter_thread()
                            .expect("move a caller into the cgroup");
                    }
                    let mut times = Vec::with_capacity(calls);
                    let mut failed = 0;
                    let mut first = None;
                    for _ in 0..calls {
                        let t = Instant::now();
                        let r = kernel.run(bin_true);
                        times.push(t.elapsed());
                        if r.exit_code != 0 || r.start_error.is_some() {
                            failed += 1;
                            first.get_or_insert_with(|| one_line(&r));
                        }
                    }
                    if let Some(cgroup) = callers_in {
                        cgroup.leave_thread().expect("move a caller back");
                    }
                    (times, failed, first)
                })
            })
            .collect();
        // The neighbour is stopped whatever became of the callers, so a failing caller
        // cannot leave a bomb running.
        let results: Vec<_> = callers.into_iter().map(|c| c.join()).collect();
        let seen = probe();
        stop.cancel();
        let other = other.join().expect("the neighbour thread");
        let results = results
            .into_iter()
            .map(|r| r.expect("a caller thread"))
            .collect();
        (figures(results), other, seen)
    })
}

fn one_line(r: &ExecResult) -> String {
    r.text().lines().take(3).collect::<Vec<_>>().join(" | ")
}

fn report(label: &str, f: &Figures, alone: Option<&Figures>, note: &str) {
    let ratio = alone
        .map(|a| {
            format!(
                "  p99 {:>6.2}x alone, median {:>5.2}x",
                f.p99.as_secs_f64() / a.p99.as_secs_f64(),
                f.median.as_secs_f64() / a.median.as_secs_f64()
            )
        })
        .unwrap_or_default();
    println!(
        "  {label:<30} median {:>8.3} ms   p99 {:>8.3} ms{ratio}   failed {}/{}",
        ms(f.median),
        ms(f.p99),
        f.failed,
        f.calls
    );
    if let Some(first) = &f.first_failure {
        println!("  {:<30} first failure: {first}", "");
    }
    if !note.is_empty() {
        println!("  {:<30} {note}", "");
    }
}

/// Processes whose command line carries `tag` (the bench's own: `sh -c SCRIPT tag`).
fn tagged(tag: &str) -> Vec<i32> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.split(|&b| b == 0).any(|arg| arg == tag.as_bytes()))
        })
        .collect()
}

/// The section: the callers alone and beside each neighbour, `calls` calls per caller.
pub(super) fn section(calls: usize) {
    let kernel = CommandExecKernel::new(KernelSettings::default()).unwrap();
    // The neighbours' kernel: the same, with a timeout they do not reach (they are cancelled).
    let long = CommandExecKernel::new(KernelSettings {
        timeout: Duration::from_secs(600),
        ..KernelSettings::default()
    })
    .unwrap();
    println!(
        "neighbours: {CALLERS} threads x {calls} confined calls of /bin/true (default limits), alone and beside one other call"
    );
    println!("  {}", kernel.limits_status());
    for _ in 0..20 {
        kernel.run(&argv(&["/bin/true"]));
    }

    let (alone, (), ()) = beside(&kernel, calls, None, |_| (), || ());
    report("alone", &alone, None, "");

    let flood = argv(&["head", "-c", "1073741824", "/dev/zero"]);
    let started = Instant::now();
    let (f, (floods, bytes), took) = beside(
        &kernel,
        calls,
        None,
        |stop| {
            let (mut n, mut bytes) = (0u32, 0u64);
            while !stop.is_cancelled() {
                let r = long.run_cancellable(&flood, stop);
                n += 1;
                bytes += r.total_bytes;
            }
            (n, bytes)
        },
        || started.elapsed(),
    );
    report(
        "beside a 1 GiB flood",
        &f,
        Some(&alone),
        &format!(
            "{floods} floods ran (the last cancelled), {:.1} GiB drained in {:.1} s",
            bytes as f64 / (1u64 << 30) as f64,
            took.as_secs_f64()
        ),
    );

    let spin_tag = format!("{TAG}-spinner-{}", std::process::id());
    let spinner = vec![
        "sh".to_owned(),
        "-c".to_owned(),
        "i=0; while [ $i -lt 64 ]; do (while :; do :; done) & i=$((i+1)); done; wait".to_owned(),
        spin_tag.clone(),
    ];
    let started = Instant::now();
    let (f, r, (running, cpu, took)) = beside(
        &kernel,
        calls,
        None,
        |stop| long.run_cancellable(&spinner, stop),
        || {
            let spinning = tagged(&spin_tag);
            let cpu = spinning.iter().map(|&pid| cpu_seconds(pid)).sum::<f64>();
            (spinning.len(), cpu, started.elapsed())
        },
    );
    let left = tagged(&spin_tag);
    report(
        "beside 64 CPU spinners",
        &f,
        Some(&alone),
        &format!(
            "{running} spinner processes used {cpu:.1} CPU-s in {:.1} s; the call: {}; its processes left after it returned: {}",
            took.as_secs_f64(),
            if r.cancelled {
                "cancelled at the end".to_owned()
            } else {
                one_line(&r)
            },
            left.len()
        ),
    );
    kill_all(&left);

    for shared in [false, true] {
        // A cgroup per row, so its peak and its refusals are the row's own.
        let cgroup = match PidsCgroup::create(BOMB_PIDS) {
            Ok(cgroup) => cgroup,
            Err(e) => {
                println!(
                    "  fork bomb rows skipped: no pids cgroup to bound the bomb with ({PIDS_ROOT}: {e}); the bench never runs an unbounded bomb"
                );
                return;
            }
        };
        let bomb_tag = format!("{TAG}-bomb-{}", std::process::id());
        // Every process forks again and again, a failed fork included: the bomb holds its
        // bound for as long as its call runs (a shell's bomb dies down when its first
        // process fails to fork). Each process also stops by itself after two minutes, so
        // a bench killed meanwhile leaves no bomb behind for long.
        let bomb = vec![
            "perl".to_owned(),
            "-e".to_owned(),
            "my $end = time + 120; fork while time < $end".to_owned(),
            bomb_tag.clone(),
        ];
        let refused_before = cgroup.refused();
        let (f, (runs, peak, full, samples), alive) = beside(
            &kernel,
            calls,
            shared.then_some(&cgroup),
            |stop| {
                std::thread::scope(|scope| {
                    // How full the bound was while the bomb ran, every 10 ms.
                    let sampler = scope.spawn(|| {
                        let mut samples = Vec::new();
                        while !stop.is_cancelled() {
                            samples.extend(cgroup.current());
                            std::thread::sleep(Duration::from_millis(10));
                        }
                        samples
                    });
                    cgroup.enter_thread().expect("move the bomb's thread");
                    let mut runs = 0;
                    while !stop.is_cancelled() {
                        long.run_cancellable(&bomb, stop);
                        runs += 1;
                    }
                    cgroup.leave_thread().expect("move the bomb's thread back");
                    let samples = sampler.join().expect("the sampler");
                    let full = samples
                        .iter()
                        .filter(|&&n| n * 10 >= u64::from(BOMB_PIDS) * 9)
                        .count();
                    (runs, cgroup.peak(), full, samples.len())
                })
            },
            || cgroup.procs().len(),
        );
        let left = cgroup.procs();
        let killed = cgroup.kill_all();
        let label = if shared {
            "beside a fork bomb, one bound"
        } else {
            "beside a fork bomb, own bound"
        };
        report(
            label,
            &f,
            Some(&alone),
            &format!(
                "pids.max {BOMB_PIDS}{}; at 90 % of it or more in {full} of {samples} samples, {alive} processes at the end; forks refused {}, bomb calls {runs}, peak {}; processes left after its call: {}, then {} after the bench's kill",
                if shared {
                    ", the callers' threads in it too"
                } else {
                    ""
                },
                cgroup.refused() - refused_before,
                peak.map_or("n/a".to_owned(), |p| p.to_string()),
                left.len(),
                killed
            ),
        );
    }
}

/// User and system CPU time of process `pid` so far, in seconds (0 when it is gone).
fn cpu_seconds(pid: i32) -> f64 {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // Fields after the command name (which ends with the last `)`): utime is the 12th, stime
    // the 13th, in clock ticks.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    ticks as f64 / hz
}

fn kill_all(pids: &[i32]) {
    let own = std::process::id() as i32;
    for &pid in pids.iter().filter(|&&p| p != own && p > 1) {
        // SAFETY: kill has no memory effects; the pids are the bench's own tagged processes.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

/// A v1 pids cgroup of this bench, under the one this process is in; removed on drop, after
/// killing whatever is left in it.
struct PidsCgroup {
    dir: PathBuf,
    parent: PathBuf,
}

impl PidsCgroup {
    fn create(max: u32) -> io::Result<PidsCgroup> {
        let own = fs::read_to_string("/proc/self/cgroup")?
            .lines()
            .find_map(|l| {
                let mut parts = l.splitn(3, ':');
                let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
                controllers
                    .split(',')
                    .any(|c| c == "pids")
                    .then(|| path.trim_start_matches('/').to_owned())
            })
            .ok_or_else(|| io::Error::other("this process is in no v1 pids cgroup"))?;
        let parent = Path::new(PIDS_ROOT).join(own);
        // Leftovers of an earlier run that was killed: emptied and removed first.
        if let Ok(entries) = fs::read_dir(&parent) {
            for e in entries.flatten() {
                if e.file_name().to_string_lossy().starts_with(TAG) {
                    let old = PidsCgroup {
                        dir: e.path(),
                        parent: parent.clone(),
                    };
                    old.kill_all();
                    drop(old);
                }
            }
        }
        let dir = parent.join(format!("{TAG}-{}", std::process::id()));
        fs::create_dir(&dir)?;
        let cgroup = PidsCgroup { dir, parent };
        fs::write(cgroup.dir.join("pids.max"), max.to_string())?;
        Ok(cgroup)
    }

    fn write_tid(dir: &Path) -> io::Result<()> {
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        fs::write(dir.join("tasks"), tid.to_string())
    }

    /// Moves the calling thread in: what it starts from now on is counted here.
    fn enter_thread(&self) -> io::Result<()> {
        PidsCgroup::write_tid(&self.dir)
    }

    /// Moves the calling thread back where it was.
    fn leave_thread(&self) -> io::Result<()> {
        PidsCgroup::write_tid(&self.parent)
    }

    /// The processes in it.
    fn procs(&self) -> Vec<i32> {
        fs::read_to_string(self.dir.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// The processes (and threads) it counts now (`pids.current`).
    fn current(&self) -> Option<u64> {
        fs::read_to_string(self.dir.join("pids.current"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Forks it refused (the `max` count of `pids.events`).
    fn refused(&self) -> u64 {
        fs::read_to_string(self.dir.join("pids.events"))
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("max ")?.trim().parse().ok())
            .unwrap_or(0)
    }

    /// The most processes it held at once, where the kernel counts it (`pids.peak`).
    fn peak(&self) -> Option<u64> {
        fs::read_to_string(self.dir.join("pids.peak"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Kills what is in it until it is empty; returns how many are left (0 unless a process
    /// outlived 100 rounds of `SIGKILL`).
    fn kill_all(&self) -> usize {
        for _ in 0..100 {
            let procs = self.procs();
            if procs.is_empty() {
                return 0;
            }
            kill_all(&procs);
            std::thread::sleep(Duration::from_millis(10));
        }
        self.procs().len()
    }
}

impl Drop for PidsCgroup {
    fn drop(&mut self) {
        let left = self.kill_all();
        if let Err(e) = fs::remove_dir(&self.dir) {
            eprintln!(
                "bench_kernel: could not remove {} ({e}; {left} processes left in it)",
                self.dir.display()
            );
        }
    }
}
