//! [`Toolbox::call_async`]: a tool call as a future, for async hosts (tokio, async-std, smol,
//! or an executor of one's own).
//!
//! A call blocks while its command runs, so it never runs on the caller's executor thread: it
//! runs on a thread of its own ([`Toolbox::call_async`]) or on one the host gives
//! ([`Toolbox::call_async_with`], e.g. tokio's `spawn_blocking`), and the returned
//! [`ToolCall`] resolves when it is done. No runtime is needed to build or poll it: the worker
//! wakes the task's [`Waker`] and nothing else.
//!
//! - **Dropping the future cancels the call**: its [`CancelHandle`] fires, the kernel kills the
//!   command's process group at once (the same path as a timeout) and the worker thread is
//!   free again. So a timeout around the future (`tokio::time::timeout`, `select!`) really
//!   stops the command.
//! - **A panic in a tool stays in the call**: it is caught on the worker and the future
//!   resolves to [`CallError::Panicked`]; the host's runtime never sees it.
//! - The call goes through [`Toolbox::call`], so the host's deny list and every check of the
//!   tool hold exactly as for a blocking call.
//!
//! ```
//! use nanotool_runtime::{
//!     CommandExecKernel, CommandSpec, CommandTool, KernelSettings, SlotKind, SlotSpec, Toolbox,
//! };
//! use serde_json::json;
//! use std::sync::Arc;
//!
//! let mut toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings::default()).unwrap());
//! let spec = CommandSpec::new(
//!     "count_lines",
//!     "Count the lines of a file",
//!     "wc -l <file>",
//!     vec![SlotSpec::new("file", SlotKind::Path, "The file to count")],
//! )
//! .unwrap();
//! toolbox.register(CommandTool::new(spec)).unwrap();
//! let toolbox = Arc::new(toolbox);
//!
//! // Any executor polls it; this one is a few lines of std (see `block_on` below).
//! let out = block_on(toolbox.call_async("count_lines", json!({"file": "Cargo.toml"}))).unwrap();
//! assert!(out.text.starts_with("exit: 0"), "{}", out.text);
//!
//! // A refusal is an output the model reads, as for `Toolbox::call`.
//! let out = block_on(toolbox.call_async("count_lines", json!({"file": "/etc/shadow"}))).unwrap();
//! assert_eq!(out.code, Some(614));
//!
//! // An unknown name resolves at once, with suggestions.
//! let err = block_on(toolbox.call_async("count_line", json!({}))).unwrap_err();
//! assert_eq!(err.to_string(), "unknown tool `count_line`; did you mean `count_lines`?");
//!
//! # fn block_on<F: std::future::Future>(future: F) -> F::Output {
//! #     use std::task::{Context, Poll, Wake, Waker};
//! #     struct Unpark(std::thread::Thread);
//! #     impl Wake for Unpark {
//! #         fn wake(self: Arc<Self>) { self.0.unpark() }
//! #     }
//! #     let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
//! #     let mut cx = Context::from_waker(&waker);
//! #     let mut future = std::pin::pin!(future);
//! #     loop {
//! #         match future.as_mut().poll(&mut cx) {
//! #             Poll::Ready(out) => return out,
//! #             Poll::Pending => std::thread::park(),
//! #         }
//! #     }
//! # }
//! ```

use crate::kernel::CancelHandle;
use crate::tool::ToolOutput;
use crate::toolbox::{Toolbox, UnknownTool};
use serde_json::Value;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use thiserror::Error;

/// The work of one call, handed to the host's spawner by [`Toolbox::call_async_with`]: run it
/// once, on a thread where blocking is allowed. Dropping it unrun resolves the call to
/// [`CallError::NotRun`].
pub type BlockingJob = Box<dyn FnOnce() + Send + 'static>;

/// Why an async call has no [`ToolOutput`]. A refused call (614) and a failed command are not
/// errors here: they are outputs marked [`ToolOutput::is_error`], for the model to read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CallError {
    /// No tool has this name (the same error as [`Toolbox::call`], with suggestions).
    #[error(transparent)]
    UnknownTool(#[from] UnknownTool),
    /// The tool panicked; the panic was caught on the worker thread.
    #[error("tool `{tool}` panicked: {message}")]
    Panicked {
        /// The tool's name.
        tool: String,
        /// The panic's message, when it had one.
        message: String,
    },
    /// The host's spawner dropped the job without running it (or no thread could be started).
    #[error(
        "tool `{tool}` was never run: the spawner dropped the call (no thread could be started, or the runtime is shutting down)"
    )]
    NotRun {
        /// The tool's name.
        tool: String,
    },
}

/// The future of one call ([`Toolbox::call_async`]). `Send`, `Unpin` and `'static`: spawn it,
/// race it against a timer, or await it in place. Dropping it before it resolves cancels the
/// call and kills the command's process group.
#[must_use = "a call is cancelled when its future is dropped"]
pub struct ToolCall {
    shared: Arc<Shared>,
    cancel: CancelHandle,
    /// The result was handed out (or the call never started).
    finished: bool,
}

impl std::fmt::Debug for ToolCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCall")
            .field("done", &self.shared.lock().result.is_some())
            .field("finished", &self.finished)
            .field("cancel", &self.cancel)
            .finish()
    }
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    result: Option<Result<ToolOutput, CallError>>,
    waker: Option<Waker>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stores the result (the first one only) and wakes the task waiting on it.
    fn complete(&self, result: Result<ToolOutput, CallError>) {
        let waker = {
            let mut state = self.lock();
            if state.result.is_some() {
                return;
            }
            state.result = Some(result);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl ToolCall {
    fn ready(result: Result<ToolOutput, CallError>) -> Self {
        let shared = Arc::new(Shared::default());
        shared.complete(result);
        ToolCall {
            shared,
            cancel: CancelHandle::new(),
            finished: false,
        }
    }

    /// The call's cancel handle: firing it ends the call as dropping the future does, and the
    /// future then resolves to an output marked cancelled (`exit: 130`).
    pub fn cancel_handle(&self) -> &CancelHandle {
        &self.cancel
    }
}

impl Future for ToolCall {
    type Output = Result<ToolOutput, CallError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.shared.lock();
        if let Some(result) = state.result.take() {
            drop(state);
            self.finished = true;
            return Poll::Ready(result);
        }
        assert!(!self.finished, "a ToolCall was polled after it resolved");
        match &mut state.waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

impl Drop for ToolCall {
    fn drop(&mut self) {
        if !self.finished {
            // Still running (or not started): end it. A finished run ignores the handle.
            self.cancel.cancel();
        }
    }
}

/// One call's work, moved onto the worker thread.
struct Job {
    toolbox: Arc<Toolbox>,
    name: String,
    args: Value,
    cancel: CancelHandle,
    shared: Arc<Shared>,
    ran: bool,
}

impl Job {
    fn run(mut self) {
        self.ran = true;
        if self.cancel.is_cancelled() {
            // The future is gone: nobody waits for a result, and a code tool would still run.
            return;
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            self.toolbox
                .call(&self.name, &self.args, Some(&self.cancel))
        }));
        let result = match outcome {
            Ok(result) => result.map_err(CallError::from),
            Err(panic) => Err(CallError::Panicked {
                tool: self.name.clone(),
                message: panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(a panic without a message)".to_owned()),
            }),
        };
        self.shared.complete(result);
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if !self.ran {
            self.shared.complete(Err(CallError::NotRun {
                tool: std::mem::take(&mut self.name),
            }));
        }
    }
}

impl Toolbox {
    /// Calls the tool named `name` with `args` as a future, on a thread of nanotool's own
    /// (threads are kept for a few seconds after a call, so a busy host does not pay a thread
    /// start per call): the caller's executor thread never blocks. Dropping the future cancels the call (the
    /// command's process group is killed). See the [module](crate::async_call) for an example.
    ///
    /// Resolves like [`Toolbox::call`] (a refusal or a failed command is an output marked as
    /// an error), or to a [`CallError`] for an unknown name (at once, no thread started) or a
    /// tool that panicked.
    pub fn call_async(self: &Arc<Self>, name: &str, args: Value) -> ToolCall {
        self.call_async_with(name, args, pool::submit)
    }

    /// Like [`call_async`](Self::call_async), but the blocking work is handed to `spawn`,
    /// which must run it once on a thread where blocking is allowed. `spawn` is called before
    /// this returns, on the caller's thread (inside the runtime, for tokio's `spawn_blocking`).
    /// With tokio:
    ///
    /// ```no_run
    /// # async fn f(toolbox: std::sync::Arc<nanotool_runtime::Toolbox>) {
    /// let out = toolbox
    ///     .call_async_with("count_lines", serde_json::json!({"file": "Cargo.toml"}), |job| {
    ///         tokio::task::spawn_blocking(job);
    ///     })
    ///     .await;
    /// # }
    /// ```
    ///
    /// A spawner that drops the job unrun (a runtime shutting down) resolves the call to
    /// [`CallError::NotRun`]; it never hangs.
    pub fn call_async_with<S>(self: &Arc<Self>, name: &str, args: Value, spawn: S) -> ToolCall
    where
        S: FnOnce(BlockingJob),
    {
        if self.get(name).is_none() {
            return ToolCall::ready(Err(CallError::UnknownTool(UnknownTool {
                name: name.to_owned(),
                suggestions: self.closest_names(name),
            })));
        }
        let shared = Arc::new(Shared::default());
        let cancel = CancelHandle::new();
        let job = Job {
            toolbox: Arc::clone(self),
            name: name.to_owned(),
            args,
            cancel: cancel.clone(),
            shared: Arc::clone(&shared),
            ran: false,
        };
        spawn(Box::new(move || job.run()));
        ToolCall {
            shared,
            cancel,
            finished: false,
        }
    }
}

/// The threads [`Toolbox::call_async`] runs calls on: one per call in flight, started on
/// demand and kept for [`pool::KEEP_ALIVE`] once idle.
mod pool {
    use super::BlockingJob;
    use std::collections::VecDeque;
    use std::sync::{Condvar, Mutex, MutexGuard};
    use std::time::Duration;

    /// How long an idle thread waits for another call before it ends.
    pub const KEEP_ALIVE: Duration = Duration::from_secs(10);

    struct State {
        queue: VecDeque<BlockingJob>,
        /// Threads waiting for a job.
        idle: usize,
    }

    static STATE: Mutex<State> = Mutex::new(State {
        queue: VecDeque::new(),
        idle: 0,
    });
    static READY: Condvar = Condvar::new();

    fn lock() -> MutexGuard<'static, State> {
        STATE.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `job` on an idle thread, or on a new one when every thread is busy. A thread that
    /// cannot start drops the job (the call resolves to `NotRun`).
    pub fn submit(job: BlockingJob) {
        let mut state = lock();
        state.queue.push_back(job);
        // Each queued job has a waiting thread of its own, or gets a new one.
        if state.idle >= state.queue.len() {
            READY.notify_one();
            return;
        }
        drop(state);
        let started = std::thread::Builder::new()
            .name("nanotool-call".to_owned())
            .spawn(work);
        if started.is_err() {
            // Nobody will take it: drop the newest job, which is this call's or one like it.
            let job = lock().queue.pop_back();
            drop(job);
        }
    }

    fn work() {
        let mut state = lock();
        loop {
            if let Some(job) = state.queue.pop_front() {
                drop(state);
                // Job::run catches a tool's panic: the thread lives on.
                job();
                state = lock();
                continue;
            }
            state.idle += 1;
            let (guard, wait) = READY
                .wait_timeout(state, KEEP_ALIVE)
                .unwrap_or_else(|e| e.into_inner());
            state = guard;
            state.idle -= 1;
            if wait.timed_out() && state.queue.is_empty() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_call_is_send_unpin_and_static() {
        fn assert_future<T: Future + Send + Unpin + 'static>() {}
        assert_future::<ToolCall>();
    }
}
