//! [`CancelHandle`]: ends a run from any thread, at once, by killing its process group.

use super::sys;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A cancel handle: `Send + Sync`, cheap to clone (an `Arc`); any thread may fire it.
///
/// Firing is for good: every run given a fired handle, running or yet to start, ends at once
/// (its process group killed) with [`ExecResult::cancelled`](super::ExecResult::cancelled) set.
#[derive(Clone)]
pub struct CancelHandle {
    pub(super) inner: Arc<CancelInner>,
}

pub(super) struct CancelInner {
    pub(super) fired: AtomicBool,
    /// Readable once fired; `None` if no eventfd could be made (the wait loop then polls the
    /// flag on a short tick).
    pub(super) event: Option<OwnedFd>,
}

impl CancelHandle {
    /// A new, unfired handle.
    pub fn new() -> Self {
        CancelHandle {
            inner: Arc::new(CancelInner {
                fired: AtomicBool::new(false),
                event: sys::eventfd().ok(),
            }),
        }
    }

    /// Fires the handle: every run given it ends, now or when it starts.
    pub fn cancel(&self) {
        self.inner.fired.store(true, Ordering::SeqCst);
        if let Some(fd) = &self.inner.event {
            sys::eventfd_fire(fd);
        }
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.inner.fired.load(Ordering::SeqCst)
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
