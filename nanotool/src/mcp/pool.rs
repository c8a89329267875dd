//! The worker pool that runs calls concurrently, leader/follower style. It knows two things
//! of the session it serves, through [`Jobs`]: read until the next job ("next job"), and run
//! one ("run job").
//!
//! The threads of a session take turns at reading: one reads (the leader) while the others
//! run calls or wait (followers). Invariants:
//!
//! 1. At most one thread holds the input: the reader and its line buffer live in
//!    [`PoolState::reader`] when no thread reads, and move to the thread that reads.
//! 2. A reader is always there for the next message, cancellations included: the leader that
//!    meets a job runs it itself only when another thread is idle to take over the reading
//!    (it hands the reader back and wakes one), and queues it otherwise. So no hop to
//!    another thread lies on a call's path when a thread is free, and a long call never
//!    stops the reading.
//! 3. A thread returns only once the input has ended and the queue is empty: every accepted
//!    job is run before [`run`] returns.
//! 4. Threads sleep on one condition variable; a finished leader turn (a job handed over,
//!    the end of the input) wakes them.

use std::collections::VecDeque;
use std::io::{self, BufRead};
use std::sync::{Condvar, Mutex};
use std::thread;

/// What one turn at reading produced.
pub(super) enum Turn<J> {
    /// A job to run.
    Job(J),
    /// The input ended.
    Eof,
    /// Reading failed.
    Failed(io::Error),
}

/// What the pool runs: the session, seen through its two operations.
pub(super) trait Jobs: Sync {
    /// A job: one accepted call.
    type Job: Send;
    /// Reads (and answers what needs no job) until a job turns up or the input ends.
    fn next_job(&self, reader: &mut dyn BufRead, line: &mut Vec<u8>) -> Turn<Self::Job>;
    /// Runs one job to its answer.
    fn run_job(&self, job: Self::Job);
}

struct Pool<J> {
    state: Mutex<PoolState<J>>,
    wake: Condvar,
}

struct PoolState<J> {
    /// The input and the one line buffer, when no thread is reading: the buffer goes with
    /// the turn at reading, so the threads do not each keep a line's worth of memory.
    reader: Option<(Box<dyn BufRead + Send>, Vec<u8>)>,
    /// Jobs waiting for a thread.
    queue: VecDeque<J>,
    /// Threads waiting on `wake`.
    idle: usize,
    /// The input ended (or failed).
    eof: bool,
    /// Why reading failed, if it did.
    error: Option<io::Error>,
}

/// Runs `jobs` over `input` on `workers` threads (named `mcp-N`) until the input ends and
/// every job has run; returns why reading failed, if it did.
pub(super) fn run<S: Jobs>(
    jobs: &S,
    input: Box<dyn BufRead + Send>,
    workers: usize,
) -> io::Result<()> {
    let pool = Pool {
        state: Mutex::new(PoolState {
            reader: Some((input, Vec::new())),
            queue: VecDeque::new(),
            idle: 0,
            eof: false,
            error: None,
        }),
        wake: Condvar::new(),
    };
    thread::scope(|scope| {
        let threads: Vec<_> = (0..workers.max(1))
            .map(|i| {
                let pool = &pool;
                thread::Builder::new()
                    .name(format!("mcp-{i}"))
                    .spawn_scoped(scope, move || worker(jobs, pool))
            })
            .collect::<io::Result<_>>()?;
        for t in threads {
            let _ = t.join();
        }
        Ok::<(), io::Error>(())
    })?;
    let error = pool
        .state
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .error;
    error.map_or(Ok(()), Err)
}

fn worker<S: Jobs>(jobs: &S, pool: &Pool<S::Job>) {
    let mut st = pool.state.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if let Some((mut reader, mut line)) = st.reader.take() {
            drop(st);
            let turn = jobs.next_job(reader.as_mut(), &mut line);
            st = pool.state.lock().unwrap_or_else(|e| e.into_inner());
            match turn {
                Turn::Job(job) => {
                    st.reader = Some((reader, line));
                    if st.idle > 0 {
                        // Hand the reading over and run the job here.
                        pool.wake.notify_one();
                        drop(st);
                        jobs.run_job(job);
                        st = pool.state.lock().unwrap_or_else(|e| e.into_inner());
                    } else {
                        st.queue.push_back(job);
                    }
                }
                Turn::Eof => {
                    st.eof = true;
                    pool.wake.notify_all();
                }
                Turn::Failed(e) => {
                    st.error = Some(e);
                    st.eof = true;
                    pool.wake.notify_all();
                }
            }
            continue;
        }
        if let Some(job) = st.queue.pop_front() {
            drop(st);
            jobs.run_job(job);
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

#[cfg(test)]
mod tests {
    use super::{Jobs, Turn, run};
    use std::io::BufRead;
    use std::sync::Mutex;

    /// Each line is a job; running it records it.
    struct Lines(Mutex<Vec<String>>);

    impl Jobs for Lines {
        type Job = String;
        fn next_job(&self, reader: &mut dyn BufRead, line: &mut Vec<u8>) -> Turn<String> {
            line.clear();
            match reader.read_until(b'\n', line) {
                Ok(0) => Turn::Eof,
                Ok(_) => Turn::Job(String::from_utf8_lossy(line).trim().to_owned()),
                Err(e) => Turn::Failed(e),
            }
        }
        fn run_job(&self, job: String) {
            self.0.lock().unwrap().push(job);
        }
    }

    #[test]
    fn every_job_runs_once_before_run_returns() {
        let lines = Lines(Mutex::new(Vec::new()));
        let input: &'static [u8] = b"a\nb\nc\nd\n";
        run(&lines, Box::new(input), 3).unwrap();
        let mut ran = lines.0.into_inner().unwrap();
        ran.sort();
        assert_eq!(ran, ["a", "b", "c", "d"]);
    }
}
