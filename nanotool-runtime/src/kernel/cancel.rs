//! [`CancelHandle`]: ends a run from any thread, at once, by killing its process group; and,
//! for a handle made [`with_progress`](CancelHandle::with_progress), what the run has
//! printed so far.

use super::progress::Progress;
use super::sys;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering, fence};
use std::sync::{Arc, OnceLock};

/// A cancel handle: `Send + Sync`, cheap to clone (an `Arc`); any thread may fire it.
///
/// Firing is for good: every run given a fired handle, running or yet to start, ends at once
/// (its process group killed) with [`ExecResult::cancelled`](super::ExecResult::cancelled) set.
///
/// A handle holds no file descriptor until a run waits on it: the eventfd that wakes the
/// run's wait loop is made when the first run starts waiting, so handles of queued calls
/// cost memory only.
#[derive(Clone)]
pub struct CancelHandle {
    pub(super) inner: Arc<CancelInner>,
}

pub(super) struct CancelInner {
    pub(super) fired: AtomicBool,
    /// Readable once fired, made by the first run that waits ([`CancelHandle::event`]);
    /// `Some(None)` if no eventfd could be made (the wait loop then polls the flag on a short
    /// tick).
    pub(super) event: OnceLock<Option<OwnedFd>>,
    /// What the run has printed so far, for a handle that asks for it.
    pub(super) progress: Option<Arc<Progress>>,
}

impl CancelHandle {
    /// A new, unfired handle.
    pub fn new() -> Self {
        CancelHandle::make(None)
    }

    /// A new, unfired handle whose runs record their progress (bytes and last complete line
    /// of output) in `progress`, for another thread to read while they run.
    pub fn with_progress(progress: Arc<Progress>) -> Self {
        CancelHandle::make(Some(progress))
    }

    fn make(progress: Option<Arc<Progress>>) -> Self {
        CancelHandle {
            inner: Arc::new(CancelInner {
                fired: AtomicBool::new(false),
                event: OnceLock::new(),
                progress,
            }),
        }
    }

    /// Fires the handle: every run given it ends, now or when it starts.
    ///
    /// Async-signal-safe: it makes an atomic store and, once a run waits on the handle, one
    /// `write` to an eventfd (no lock, no allocation), so a signal handler may call it on a
    /// handle it can reach (a `static`), as `nanotool call` does for SIGINT, SIGTERM and
    /// SIGHUP. Restore `errno` around it in a handler.
    pub fn cancel(&self) {
        // Async-signal-safe, as documented: never lock, allocate or log here.
        self.inner.fired.store(true, Ordering::SeqCst);
        // Paired with the fence in `event`: either the waiter sees `fired`, or this sees its
        // eventfd.
        fence(Ordering::SeqCst);
        if let Some(Some(fd)) = self.inner.event.get() {
            sys::eventfd_fire(fd);
        }
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.inner.fired.load(Ordering::SeqCst)
    }

    /// The progress this handle's runs record, if it asked for it.
    pub fn progress(&self) -> Option<&Arc<Progress>> {
        self.inner.progress.as_ref()
    }

    /// The eventfd a waiting run polls, made on first use. The caller checks
    /// [`is_cancelled`](Self::is_cancelled) after this returns.
    pub(super) fn event(&self) -> Option<&OwnedFd> {
        let event = self.inner.event.get_or_init(|| sys::eventfd().ok());
        fence(Ordering::SeqCst);
        event.as_ref()
    }
}

impl Default for CancelHandle {
    fn default() -> Self {
        CancelHandle::new()
    }
}

impl std::fmt::Debug for CancelHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelHandle")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}
