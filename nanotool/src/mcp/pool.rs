//! The worker pool that runs calls concurrently, leader/follower style.
//!
//! The threads of a session take turns at reading: one reads (the leader) while the others
//! run calls or wait (followers). Invariants:
//!
//! 1. At most one thread holds the input: the reader and its line buffer live in
//!    [`PoolState::reader`] when no thread reads, and move to the thread that reads.
//! 2. A reader is always there for the next message, cancellations included: the leader that
//!    meets a `tools/call` runs it itself only when another thread is idle to take over the
//!    reading (it hands the reader back and wakes one), and queues it otherwise. So no hop to
//!    another thread lies on a call's path when a thread is free, and a long call never
//!    stops the reading.
//! 3. A thread returns only once the input has ended and the queue is empty: every accepted
//!    call is run (or dropped as cancelled) before [`super::McpServer::serve`] returns.
//! 4. Threads sleep on one condition variable; a finished leader turn (a call handed over,
//!    the end of the input) wakes them.

use std::collections::VecDeque;
use std::io::{self, BufRead};
use std::sync::{Condvar, Mutex};

use super::Session;
use super::call::Job;

/// The threads of a session take turns at reading: one reads while the others run calls or
/// wait. The reader that meets a `tools/call` runs it itself when another thread is idle to
/// take over the reading (so no hop to another thread lies on the call's path), and queues
/// it otherwise; either way a reader is always there for the next message, cancellations
/// included.
pub(super) struct Pool {
    pub(super) state: Mutex<PoolState>,
    pub(super) wake: Condvar,
}

pub(super) struct PoolState {
    /// The input and the one line buffer, when no thread is reading: the buffer goes with
    /// the turn at reading, so the threads do not each keep a line's worth of memory.
    pub(super) reader: Option<(Box<dyn BufRead + Send>, Vec<u8>)>,
    /// Calls waiting for a thread.
    pub(super) queue: VecDeque<Job>,
    /// Threads waiting on `wake`.
    pub(super) idle: usize,
    /// The input ended (or failed).
    pub(super) eof: bool,
    /// Why reading failed, if it did.
    pub(super) error: Option<io::Error>,
}

impl Pool {
    /// A pool whose first reader will read `input`.
    pub(super) fn new(input: Box<dyn BufRead + Send>) -> Self {
        Pool {
            state: Mutex::new(PoolState {
                reader: Some((input, Vec::new())),
                queue: VecDeque::new(),
                idle: 0,
                eof: false,
                error: None,
            }),
            wake: Condvar::new(),
        }
    }

    /// Why reading failed, if it did (once the threads are done).
    pub(super) fn take_error(&self) -> Option<io::Error> {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .error
            .take()
    }
}

/// What one turn at reading produced.
pub(super) enum Read1 {
    /// A call to run.
    Call(Job),
    /// The input ended.
    Eof,
    /// Reading failed.
    Failed(io::Error),
}

pub(super) fn pool_thread(session: &Session, pool: &Pool) {
    let mut st = pool.state.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if let Some((mut reader, mut line)) = st.reader.take() {
            drop(st);
            let turn = session.read_one(reader.as_mut(), &mut line);
            st = pool.state.lock().unwrap_or_else(|e| e.into_inner());
            match turn {
                Read1::Call(job) => {
                    st.reader = Some((reader, line));
                    if st.idle > 0 {
                        // Hand the reading over and run the call here.
                        pool.wake.notify_one();
                        drop(st);
                        session.shared.run(job);
                        st = pool.state.lock().unwrap_or_else(|e| e.into_inner());
                    } else {
                        st.queue.push_back(job);
                    }
                }
                Read1::Eof => {
                    st.eof = true;
                    pool.wake.notify_all();
                }
                Read1::Failed(e) => {
                    st.error = Some(e);
                    st.eof = true;
                    pool.wake.notify_all();
                }
            }
            continue;
        }
        if let Some(job) = st.queue.pop_front() {
            drop(st);
            session.shared.run(job);
            st = pool.state.lock().unwrap_or_else(|e| e.into_inner());
            continue;
        }
        if st.eof {
            return;
        }
        st.idle += 1;
        st = pool.wake.wait(st).unwrap_or_else(|e| e.into_inner());
        st.idle -= 1;
    }
}
