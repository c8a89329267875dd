//! `Toolbox::call_async`: a call as a future on tokio and on a minimal executor written here;
//! dropping the future kills the command's process group; a panicking tool never reaches the
//! host's runtime; a spawner that drops the job never hangs the call; the host deny list holds.
//!
//! Waits are hang detectors (generous watchdogs that fail the test), never timing claims.

use nanotool_runtime::toolbox::UnknownTool;
use nanotool_runtime::{
    Access, CallError, CommandExecKernel, CommandSpec, CommandTool, KernelSettings, SlotKind,
    SlotSpec, Tool, ToolCall, ToolContext, ToolOutput, Toolbox,
};
use serde_json::{Value, json};
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// A death or a result that has not come after this long is a hang.
#[path = "common/group.rs"]
mod group;
use group::{assert_group_dies, group_members, wait_for_pids};

const WATCHDOG: Duration = Duration::from_secs(20);

/// A tool whose command starts a group member in the background, writes the leader's and the
/// member's pids to `pids` (the leader's `$$` is the group's id), then sleeps: a command that
/// only a cancel ends.
struct Hang;

impl Tool for Hang {
    fn name(&self) -> &str {
        "hang"
    }
    fn description(&self) -> &str {
        "Start a group member and sleep"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn access(&self) -> Access {
        Access {
            writes: true,
            network: false,
            ..Access::READ_ONLY
        }
    }
    fn call(&self, _args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        let script = "sleep 100 & echo $$ $! > pids.tmp; mv pids.tmp pids; sleep 100";
        let argv = ["sh", "-c", script].map(String::from);
        ToolOutput::from_exec(ctx.kernel.run_as(&argv, self.access(), ctx.cancel))
    }
}

/// A tool that panics.
struct Panics;

impl Tool for Panics {
    fn name(&self) -> &str {
        "panics"
    }
    fn description(&self) -> &str {
        "Panic"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn call(&self, _args: &Value, _ctx: &ToolContext<'_>) -> ToolOutput {
        panic!("the tool broke");
    }
}

/// A tool that records the thread it ran on.
struct WhereAmI(Mutex<Option<ThreadId>>);

impl Tool for WhereAmI {
    fn name(&self) -> &str {
        "where_am_i"
    }
    fn description(&self) -> &str {
        "Record the thread"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn call(&self, _args: &Value, _ctx: &ToolContext<'_>) -> ToolOutput {
        *self.0.lock().unwrap() = Some(std::thread::current().id());
        ToolOutput {
            text: "here".into(),
            is_error: false,
            code: None,
            exit_meaning: None,
            exec: None,
            output_at: None,
            argv: None,
        }
    }
}

fn toolbox_in(dir: &Path) -> Toolbox {
    let kernel = CommandExecKernel::new(KernelSettings {
        cwd: dir.to_path_buf(),
        ..KernelSettings::default()
    })
    .unwrap();
    let mut toolbox = Toolbox::new(kernel);
    toolbox
        .register(CommandTool::new(
            CommandSpec::new(
                "count_lines",
                "Count the lines of a file",
                "wc -l <file>",
                vec![SlotSpec::new("file", SlotKind::Path, "The file")],
            )
            .unwrap(),
        ))
        .unwrap();
    toolbox.register(Hang).unwrap();
    toolbox.register(Panics).unwrap();
    toolbox
}

fn fixture() -> (tempfile::TempDir, Arc<Toolbox>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("three.txt"), "a\nb\nc\n").unwrap();
    let toolbox = Arc::new(toolbox_in(dir.path()));
    (dir, toolbox)
}

// --- a minimal executor: one future, woken by unparking the thread ---

struct Unpark {
    thread: std::thread::Thread,
    woken: std::sync::atomic::AtomicUsize,
}

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.woken.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.thread.unpark();
    }
}

/// Polls `future` to completion on this thread, parking between polls; fails after the
/// watchdog. Returns the output and how many times the future woke the task.
fn block_on<F: Future + Unpin>(mut future: F) -> (F::Output, usize) {
    let unpark = Arc::new(Unpark {
        thread: std::thread::current(),
        woken: Default::default(),
    });
    let waker = Waker::from(Arc::clone(&unpark));
    let mut cx = Context::from_waker(&waker);
    let until = Instant::now() + WATCHDOG;
    loop {
        if let Poll::Ready(out) = Pin::new(&mut future).poll(&mut cx) {
            return (out, unpark.woken.load(std::sync::atomic::Ordering::SeqCst));
        }
        assert!(Instant::now() < until, "the future never resolved");
        std::thread::park_timeout(Duration::from_millis(200));
    }
}

// --- tokio ---

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_call_resolves_to_the_output() {
    let (_dir, toolbox) = fixture();
    let out = toolbox
        .call_async("count_lines", json!({"file": "three.txt"}))
        .await
        .unwrap();
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.starts_with("exit: 0\n"), "{}", out.text);
    assert!(out.text.contains("3 ./three.txt"), "{}", out.text);
}

#[tokio::test(flavor = "current_thread")]
async fn the_call_runs_off_the_executor_thread() {
    let dir = tempfile::tempdir().unwrap();
    let mut toolbox = toolbox_in(dir.path());
    let tool = Arc::new(WhereAmI(Mutex::new(None)));
    toolbox.register_arc(tool.clone()).unwrap();
    let toolbox = Arc::new(toolbox);
    let out = toolbox.call_async("where_am_i", json!({})).await.unwrap();
    assert_eq!(out.text, "here");
    let ran_on = tool.0.lock().unwrap().expect("the tool ran");
    assert_ne!(ran_on, std::thread::current().id());
}

#[tokio::test(flavor = "current_thread")]
async fn a_current_thread_runtime_keeps_running_tasks_while_a_call_blocks() {
    let (_dir, toolbox) = fixture();
    let call = toolbox.call_async("hang", json!({}));
    // If the call ran on this (only) thread, this task could never run.
    let other = tokio::spawn(async { 42 });
    assert_eq!(other.await.unwrap(), 42);
    drop(call);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_drops_the_future_and_kills_the_process_group() {
    let (dir, toolbox) = fixture();
    let call = toolbox.call_async("hang", json!({}));
    let path = dir.path().to_path_buf();
    let pids = tokio::task::spawn_blocking(move || wait_for_pids(&path));
    let timed_out = tokio::time::timeout(Duration::from_millis(300), call).await;
    assert!(
        timed_out.is_err(),
        "the hanging call returned: {timed_out:?}"
    );
    let (pgid, _member) = pids.await.unwrap();
    tokio::task::spawn_blocking(move || assert_group_dies(pgid))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn call_async_with_runs_on_tokios_blocking_pool() {
    let (_dir, toolbox) = fixture();
    let out = toolbox
        .call_async_with("count_lines", json!({"file": "three.txt"}), |job| {
            tokio::task::spawn_blocking(job);
        })
        .await
        .unwrap();
    assert!(out.text.contains("3 ./three.txt"), "{}", out.text);
}

#[tokio::test(flavor = "current_thread")]
async fn a_panicking_tool_is_an_error_and_the_runtime_goes_on() {
    let (_dir, toolbox) = fixture();
    for spawner in ["thread", "spawn_blocking"] {
        let call = if spawner == "thread" {
            toolbox.call_async("panics", json!({}))
        } else {
            toolbox.call_async_with("panics", json!({}), |job| {
                tokio::task::spawn_blocking(job);
            })
        };
        let err = call.await.unwrap_err();
        assert_eq!(
            err,
            CallError::Panicked {
                tool: "panics".into(),
                message: "the tool broke".into()
            },
            "{spawner}"
        );
        assert_eq!(err.to_string(), "tool `panics` panicked: the tool broke");
    }
    // The runtime, and the toolbox, are still fine.
    let out = toolbox
        .call_async("count_lines", json!({"file": "three.txt"}))
        .await
        .unwrap();
    assert!(!out.is_error, "{}", out.text);
}

#[tokio::test(flavor = "current_thread")]
async fn a_spawner_that_drops_the_job_resolves_to_not_run() {
    let (_dir, toolbox) = fixture();
    let err = toolbox
        .call_async_with("count_lines", json!({"file": "three.txt"}), drop)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        CallError::NotRun {
            tool: "count_lines".into()
        }
    );
}

// --- the minimal executor ---

#[test]
fn a_minimal_executor_drives_a_call() {
    let (_dir, toolbox) = fixture();
    let (out, woken) = block_on(toolbox.call_async("count_lines", json!({"file": "three.txt"})));
    let out = out.unwrap();
    assert!(out.text.contains("3 ./three.txt"), "{}", out.text);
    // Resolved by a wake-up, not by the executor's polling: at most one wake per call.
    assert!(woken <= 1, "woken {woken} times");
}

#[test]
fn dropping_a_polled_future_kills_the_process_group() {
    let (dir, toolbox) = fixture();
    let mut call = toolbox.call_async("hang", json!({}));
    let waker = Waker::noop();
    assert!(
        Pin::new(&mut call)
            .poll(&mut Context::from_waker(waker))
            .is_pending()
    );
    let (pgid, member) = wait_for_pids(dir.path());
    assert!(group_members(pgid).contains(&member));
    drop(call);
    assert_group_dies(pgid);
}

#[test]
fn dropping_a_future_never_polled_kills_the_process_group_too() {
    let (dir, toolbox) = fixture();
    let call = toolbox.call_async("hang", json!({}));
    let (pgid, _member) = wait_for_pids(dir.path());
    drop(call);
    assert_group_dies(pgid);
}

#[test]
fn the_cancel_handle_ends_the_call_with_a_cancelled_output() {
    let (dir, toolbox) = fixture();
    let call = toolbox.call_async("hang", json!({}));
    let cancel = call.cancel_handle().clone();
    let dir_path = dir.path().to_path_buf();
    let canceller = std::thread::spawn(move || {
        let (pgid, _) = wait_for_pids(&dir_path);
        cancel.cancel();
        pgid
    });
    let (out, _) = block_on(call);
    let out = out.unwrap();
    assert!(out.is_error);
    assert!(
        out.text.starts_with("exit: 130\ncancelled\n"),
        "{}",
        out.text
    );
    assert_group_dies(canceller.join().unwrap());
}

#[test]
fn an_unknown_tool_resolves_at_once_with_suggestions() {
    let (_dir, toolbox) = fixture();
    let mut call: ToolCall = toolbox.call_async("count_line", json!({}));
    let ready = Pin::new(&mut call).poll(&mut Context::from_waker(Waker::noop()));
    let Poll::Ready(Err(CallError::UnknownTool(unknown))) = ready else {
        panic!("not an unknown tool at once: {ready:?}");
    };
    assert_eq!(
        unknown,
        UnknownTool {
            name: "count_line".into(),
            suggestions: vec!["count_lines".into()]
        }
    );
}

#[test]
fn refusals_and_the_host_deny_list_hold() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("three.txt"), "a\nb\nc\n").unwrap();
    let mut toolbox = toolbox_in(dir.path());
    let shared = Arc::new(toolbox_in(dir.path()));
    let (refused, _) = block_on(shared.call_async("count_lines", json!({"file": "../etc/passwd"})));
    let refused = refused.unwrap();
    assert_eq!(refused.code, Some(614));
    assert!(
        refused.text.starts_with("error 614: argument `file`"),
        "{}",
        refused.text
    );

    // Denied after registration: every call, async too, is refused.
    toolbox.deny_binaries(["wc"]);
    let toolbox = Arc::new(toolbox);
    let (out, _) = block_on(toolbox.call_async("count_lines", json!({"file": "three.txt"})));
    let out = out.unwrap();
    assert_eq!(out.code, Some(614));
    assert!(out.text.contains("host's deny list"), "{}", out.text);
}
