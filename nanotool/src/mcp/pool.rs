//! The worker pool that runs calls concurrently, leader/follower style. It knows two things
//! of the session it serves, through [`Jobs`]: read until the next job ("next job"), and run
//! one ("run job").
//!
//! The threads of a session take turns at reading: one reads (the leader) while the others
//! run calls or wait (followers). Invariants:
//!
//! 1. At most one thread holds the input: the reader and its line buffer live in
//!    [`PoolState::reader`] when no thread reads, and move to the thread that reads.
//! 2. A reader is always there for the next message, cancellations included (so the pool has
//!    one thread more than the jobs it runs at once): the leader that
//!    meets a job runs it itself only when another thread is idle to take over the reading
//!    (it hands the reader back and wakes one), and queues it otherwise. So no hop to
//!    another thread lies on a call's path when a thread is free, and a long call never
//!    stops the reading.
//! 3. A thread returns only once the input has ended and the queue is empty: every accepted
//!    job is run before [`run`] returns.
//! 4. An idle thread sleeps on a flag of its own, on a stack: a job handed over wakes the
//!    thread that went idle last (its stack and caches are still warm, where a condition
//!    variable would wake the one idle longest and cycle through every thread), and it is
//!    woken after the pool's lock is released, so it does not wake only to wait for the
//!    lock. The end of the input wakes them all.

use std::collections::VecDeque;
use std::io::{self, BufRead};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, Thread};

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
}

/// An idle thread: how to wake it.
struct Sleeper {
    thread: Thread,
    /// Set by the waker before it unparks the thread (a park may also end spuriously).
    woken: Arc<AtomicBool>,
}

impl Sleeper {
    fn wake(self) {
        self.woken.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

struct PoolState<J> {
    /// The input and the one line buffer, when no thread is reading: the buffer goes with
    /// the turn at reading, so the threads do not each keep a line's worth of memory.
    reader: Option<(Box<dyn BufRead + Send>, Vec<u8>)>,
    /// Jobs waiting for a thread.
    queue: VecDeque<J>,
    /// Threads waiting for work, the one that went idle last on top.
    idle: Vec<Sleeper>,
    /// The input ended (or failed).
    eof: bool,
    /// Why reading failed, if it did.
    error: Option<io::Error>,
}

/// Runs `jobs` over `input` until the input ends and every job has run, `workers` of them at
/// once: on `workers + 1` threads (named `mcp-N`), since one thread is always at the reading
/// while a job may come (invariant 2); returns why reading failed, if it did.
pub(super) fn run<S: Jobs>(
    jobs: &S,
    input: Box<dyn BufRead + Send>,
    workers: usize,
) -> io::Result<()> {
    let pool = Pool {
        state: Mutex::new(PoolState {
            reader: Some((input, Vec::new())),
            queue: VecDeque::new(),
            idle: Vec::new(),
            eof: false,
            error: None,
        }),
    };
    thread::scope(|scope| {
        let threads: Vec<_> = (0..workers.max(1) + 1)
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

fn lock<J>(pool: &Pool<J>) -> MutexGuard<'_, PoolState<J>> {
    pool.state.lock().unwrap_or_else(|e| e.into_inner())
}

/// Wakes every idle thread (the input ended), with the lock released.
fn wake_all<J>(mut st: MutexGuard<'_, PoolState<J>>) {
    let sleepers = std::mem::take(&mut st.idle);
    drop(st);
    sleepers.into_iter().for_each(Sleeper::wake);
}

fn worker<S: Jobs>(jobs: &S, pool: &Pool<S::Job>) {
    let woken = Arc::new(AtomicBool::new(false));
    let mut st = lock(pool);
    loop {
        if let Some((mut reader, mut line)) = st.reader.take() {
            drop(st);
            let turn = jobs.next_job(reader.as_mut(), &mut line);
            st = lock(pool);
            match turn {
                Turn::Job(job) => {
                    st.reader = Some((reader, line));
                    if let Some(next) = st.idle.pop() {
                        // Hand the reading over and run the job here.
                        drop(st);
                        next.wake();
                        jobs.run_job(job);
                        st = lock(pool);
                    } else {
                        st.queue.push_back(job);
                    }
                }
                Turn::Eof => {
                    st.eof = true;
                    wake_all(st);
                    st = lock(pool);
                }
                Turn::Failed(e) => {
                    st.error = Some(e);
                    st.eof = true;
                    wake_all(st);
                    st = lock(pool);
                }
            }
            continue;
        }
        if let Some(job) = st.queue.pop_front() {
            drop(st);
            jobs.run_job(job);
            st = lock(pool);
            continue;
        }
        if st.eof {
            return;
        }
        woken.store(false, Ordering::Relaxed);
        st.idle.push(Sleeper {
            thread: thread::current(),
            woken: woken.clone(),
        });
        drop(st);
        while !woken.load(Ordering::Acquire) {
            thread::park();
        }
        st = lock(pool);
    }
}

#[cfg(test)]
mod tests {
    use super::{Jobs, Turn, run};
    use std::io::{BufRead, BufReader, Write};
    use std::sync::{Condvar, Mutex, mpsc};
    use std::time::Duration;

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

    /// `wait-N` is a job that runs until the line `go-N` has been read (as a call runs until
    /// its cancellation is read); `go-N` is answered by the reader, as a cancellation is.
    struct Waits {
        released: Mutex<Vec<bool>>,
        changed: Condvar,
        started: Mutex<mpsc::Sender<usize>>,
        starved: Mutex<Vec<usize>>,
    }

    impl Jobs for Waits {
        type Job = usize;
        fn next_job(&self, reader: &mut dyn BufRead, line: &mut Vec<u8>) -> Turn<usize> {
            loop {
                line.clear();
                match reader.read_until(b'\n', line) {
                    Ok(0) => return Turn::Eof,
                    Ok(_) => {}
                    Err(e) => return Turn::Failed(e),
                }
                let text = String::from_utf8_lossy(line).trim().to_owned();
                if let Some(n) = text.strip_prefix("wait-") {
                    return Turn::Job(n.parse().unwrap());
                }
                let n: usize = text.strip_prefix("go-").unwrap().parse().unwrap();
                self.released.lock().unwrap()[n] = true;
                self.changed.notify_all();
            }
        }
        fn run_job(&self, n: usize) {
            self.started.lock().unwrap().send(n).unwrap();
            let released = self.released.lock().unwrap();
            // Bounded, so a pool that stops reading fails the test instead of hanging it.
            let (released, _) = self
                .changed
                .wait_timeout_while(released, Duration::from_secs(20), |r| !r[n])
                .unwrap();
            if !released[n] {
                self.starved.lock().unwrap().push(n);
            }
        }
    }

    #[test]
    fn a_running_job_never_stops_the_reading() {
        const ROUNDS: usize = 30;
        let (reader, mut writer) = std::io::pipe().unwrap();
        let (started_tx, started) = mpsc::channel();
        let waits = Waits {
            released: Mutex::new(vec![false; ROUNDS]),
            changed: Condvar::new(),
            started: Mutex::new(started_tx),
            starved: Mutex::new(Vec::new()),
        };
        std::thread::scope(|scope| {
            scope.spawn(move || {
                for n in 0..ROUNDS {
                    writer.write_all(format!("wait-{n}\n").as_bytes()).unwrap();
                    assert_eq!(started.recv().unwrap(), n);
                    writer.write_all(format!("go-{n}\n").as_bytes()).unwrap();
                }
            });
            run(&waits, Box::new(BufReader::new(reader)), 3).unwrap();
        });
        assert_eq!(waits.starved.into_inner().unwrap(), Vec::<usize>::new());
        assert!(waits.released.into_inner().unwrap().iter().all(|&r| r));
    }

    /// Each job waits until `want` jobs run at once (or a bound passes), and records how
    /// many it saw running.
    struct Together {
        want: usize,
        running: Mutex<usize>,
        changed: Condvar,
        most: Mutex<usize>,
    }

    impl Jobs for Together {
        type Job = ();
        fn next_job(&self, reader: &mut dyn BufRead, line: &mut Vec<u8>) -> Turn<()> {
            line.clear();
            match reader.read_until(b'\n', line) {
                Ok(0) => Turn::Eof,
                Ok(_) => Turn::Job(()),
                Err(e) => Turn::Failed(e),
            }
        }
        fn run_job(&self, (): ()) {
            let mut running = self.running.lock().unwrap();
            *running += 1;
            let mut most = self.most.lock().unwrap();
            *most = (*most).max(*running);
            drop(most);
            self.changed.notify_all();
            // Bounded: a pool that runs fewer at once fails the test instead of hanging it.
            let (mut running, _) = self
                .changed
                .wait_timeout_while(running, Duration::from_secs(10), |_| {
                    *self.most.lock().unwrap() < self.want
                })
                .unwrap();
            *running -= 1;
        }
    }

    #[test]
    fn as_many_jobs_run_at_once_as_there_are_workers() {
        for workers in [1, 2, 64] {
            let together = Together {
                want: workers,
                running: Mutex::new(0),
                changed: Condvar::new(),
                most: Mutex::new(0),
            };
            // The input stays open while the jobs run, as a client's does.
            let (reader, mut writer) = std::io::pipe().unwrap();
            std::thread::scope(|scope| {
                let together = &together;
                scope.spawn(move || {
                    writer
                        .write_all("job\n".repeat(workers).as_bytes())
                        .unwrap();
                    let running = together.running.lock().unwrap();
                    let _ = together.changed.wait_timeout_while(
                        running,
                        Duration::from_secs(10),
                        |_| *together.most.lock().unwrap() < together.want,
                    );
                    // The jobs end; then the input.
                    std::thread::sleep(Duration::from_millis(50));
                    drop(writer);
                });
                run(together, Box::new(BufReader::new(reader)), workers).unwrap();
            });
            assert_eq!(*together.most.lock().unwrap(), workers, "{workers} workers");
        }
    }
}
