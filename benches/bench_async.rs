//! Benchmark of `Toolbox::call_async`, every figure measured side by side in one run:
//!
//! 1. a call of a tool that runs `/bin/true`: blocking `Toolbox::call` vs `call_async` (a
//!    nanotool's own threads, awaited by a minimal executor) vs `call_async_with` on tokio's blocking
//!    pool (awaited on a tokio runtime), interleaved call by call; medians and ratios;
//! 2. the delay from dropping a running call's future to its process group being gone
//!    (`kill(-pgid, 0)` answering `ESRCH`): median and p90.
//!
//! `cargo bench --bench bench_async [-- N]` (N calls of each kind, default 2000).

use nanotool::{Access, CommandExecKernel, KernelSettings, Tool, ToolContext, ToolOutput, Toolbox};
use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

/// Runs a fixed argv given as `{"argv": [...]}` (a benchmark fixture, not a safe tool).
struct Run;

impl Tool for Run {
    fn name(&self) -> &str {
        "run"
    }
    fn description(&self) -> &str {
        "Run a fixed argv"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn call(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        let argv: Vec<String> = args["argv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_owned())
            .collect();
        ToolOutput::from_exec(ctx.kernel.run_as(&argv, Access::READ_ONLY, ctx.cancel))
    }
}

struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

fn block_on<F: Future + Unpin>(mut future: F) -> F::Output {
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(out) = Pin::new(&mut future).poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}

fn quantile(samples: &mut [Duration], q: f64) -> Duration {
    samples.sort();
    samples[((samples.len() - 1) as f64 * q).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The pid of the process whose command line is exactly `argv`, once it exists.
fn find_process(argv: &[String]) -> i32 {
    let wanted: Vec<u8> = argv
        .iter()
        .flat_map(|a| [a.as_bytes(), b"\0"].concat())
        .collect();
    loop {
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|p| p.parse().ok()) else {
                continue;
            };
            if std::fs::read(format!("/proc/{pid}/cmdline"))
                .ok()
                .as_deref()
                == Some(&wanted)
            {
                return pid;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn group_exists(pgid: i32) -> bool {
    // SAFETY: kill with signal 0 only checks for the existence of the group.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

fn main() {
    // `cargo bench` adds `--bench` to the arguments.
    let n: usize = std::env::args()
        .skip(1)
        .find(|a| a != "--bench")
        .and_then(|a| a.parse().ok())
        .unwrap_or(2000);
    let mut toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings::default()).unwrap());
    toolbox.register(Run).unwrap();
    let toolbox = Arc::new(toolbox);
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let true_args = json!({"argv": ["/bin/true"]});

    // Warm up every path (the sandbox's profile, tokio's pool, the page cache).
    for _ in 0..50 {
        toolbox.call("run", &true_args, None).unwrap();
        block_on(toolbox.call_async("run", true_args.clone())).unwrap();
    }

    let (mut sync, mut thread, mut pool) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        let t = Instant::now();
        let out = toolbox.call("run", &true_args, None).unwrap();
        sync.push(t.elapsed());
        assert!(!out.is_error, "{}", out.text);

        let t = Instant::now();
        let out = block_on(toolbox.call_async("run", true_args.clone())).unwrap();
        thread.push(t.elapsed());
        assert!(!out.is_error, "{}", out.text);

        let t = Instant::now();
        let out = tokio
            .block_on(async {
                toolbox
                    .call_async_with("run", true_args.clone(), |job| {
                        tokio::task::spawn_blocking(job);
                    })
                    .await
            })
            .unwrap();
        pool.push(t.elapsed());
        assert!(!out.is_error, "{}", out.text);
    }
    let sync_median = quantile(&mut sync, 0.5);
    let thread_median = quantile(&mut thread, 0.5);
    let pool_median = quantile(&mut pool, 0.5);
    println!("/bin/true, {n} calls of each, interleaved (medians):");
    println!(
        "  Toolbox::call                         {:.3} ms",
        ms(sync_median)
    );
    println!(
        "  call_async (nanotool's threads)       {:.3} ms  ratio {:.3}",
        ms(thread_median),
        thread_median.as_secs_f64() / sync_median.as_secs_f64()
    );
    println!(
        "  call_async_with (tokio spawn_blocking) {:.3} ms  ratio {:.3}",
        ms(pool_median),
        pool_median.as_secs_f64() / sync_median.as_secs_f64()
    );

    // Drop to group gone.
    let rounds = (n / 10).max(20);
    let mut delays = Vec::new();
    for i in 0..rounds {
        let argv = vec!["sleep".to_owned(), format!("1000.{i}")];
        let mut call = toolbox.call_async("run", json!({ "argv": argv }));
        let noop = Waker::noop();
        assert!(
            Pin::new(&mut call)
                .poll(&mut Context::from_waker(noop))
                .is_pending()
        );
        let pgid = find_process(&argv);
        let t = Instant::now();
        drop(call);
        while group_exists(pgid) {
            // Leave the cores to the worker that kills and reaps (a 2-core machine).
            std::thread::yield_now();
        }
        delays.push(t.elapsed());
    }
    let median = quantile(&mut delays, 0.5);
    let p90 = quantile(&mut delays, 0.9);
    println!(
        "drop of the future -> process group gone, {rounds} calls: median {:.3} ms, p90 {:.3} ms",
        ms(median),
        ms(p90)
    );
}
