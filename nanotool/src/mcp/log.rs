//! The log sink of `nanotool serve`: a bounded queue and a thread of its own, so that logging
//! never makes an answer wait.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

/// The longest line a [`LogWriter`] passes on; a longer one is cut, with its length.
pub const MAX_LOG_LINE: usize = 16 * 1024;

/// A log sink that never makes the code that logs wait: lines go to a bounded queue in
/// memory, and one thread of their own writes them to the sink (stderr, in `nanotool
/// serve`). When the sink stalls (a client that never reads the server's stderr), the queue
/// fills and further lines are dropped and counted, and a note of how many were lost is
/// written once the sink moves again. No lock is held while the sink is written, so a stalled
/// sink can lose log lines but never holds up an answer.
///
/// Its writers plug into a `tracing` subscriber (`.with_writer(move || pipe.writer())`).
#[derive(Clone)]
pub struct LogPipe {
    queue: Arc<LogQueue>,
}

impl std::fmt::Debug for LogPipe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogPipe")
            .field("max_bytes", &self.queue.max_bytes)
            .finish()
    }
}

pub(super) struct LogQueue {
    pub(super) state: Mutex<LogState>,
    pub(super) changed: Condvar,
    pub(super) max_bytes: usize,
}

#[derive(Default)]
pub(super) struct LogState {
    pub(super) lines: VecDeque<Vec<u8>>,
    pub(super) bytes: usize,
    /// Lines dropped since the last note.
    pub(super) unnoted: u64,
    /// Lines dropped in all.
    pub(super) dropped_total: u64,
    /// The writing thread holds a line.
    pub(super) writing: bool,
}

impl LogPipe {
    /// A pipe to this process's stderr, holding at most `max_bytes` of waiting lines.
    pub fn stderr(max_bytes: usize) -> io::Result<LogPipe> {
        LogPipe::with_sink(io::stderr(), max_bytes)
    }

    /// A pipe to `sink`, holding at most `max_bytes` of waiting lines; the thread that writes
    /// them lives as long as the process.
    pub fn with_sink<W: Write + Send + 'static>(sink: W, max_bytes: usize) -> io::Result<LogPipe> {
        let queue = Arc::new(LogQueue {
            state: Mutex::new(LogState::default()),
            changed: Condvar::new(),
            max_bytes,
        });
        let drained = queue.clone();
        thread::Builder::new()
            .name("log".into())
            .spawn(move || drain_log(&drained, sink))?;
        Ok(LogPipe { queue })
    }

    /// A writer for one log line (or a few): what it was given is queued when it is flushed
    /// or dropped, never waiting for the sink.
    pub fn writer(&self) -> LogWriter {
        LogWriter {
            queue: self.queue.clone(),
            line: Vec::new(),
            seen: 0,
        }
    }

    /// Lines dropped because the sink did not keep up.
    pub fn dropped(&self) -> u64 {
        self.queue
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .dropped_total
    }

    /// Waits up to `wait` for every queued line to be written; tells whether they were.
    pub fn flush(&self, wait: Duration) -> bool {
        let state = self.queue.state.lock().unwrap_or_else(|e| e.into_inner());
        let (state, _) = self
            .queue
            .changed
            .wait_timeout_while(state, wait, |s| !s.lines.is_empty() || s.writing)
            .unwrap_or_else(|e| e.into_inner());
        state.lines.is_empty() && !state.writing
    }
}

impl LogQueue {
    pub(super) fn push(&self, line: Vec<u8>) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.bytes + line.len() > self.max_bytes {
            state.unnoted += 1;
            state.dropped_total += 1;
            return;
        }
        state.bytes += line.len();
        state.lines.push_back(line);
        self.changed.notify_all();
    }
}

pub(super) fn drain_log<W: Write>(queue: &LogQueue, mut sink: W) {
    loop {
        let (line, dropped) = {
            let mut state = queue.state.lock().unwrap_or_else(|e| e.into_inner());
            while state.lines.is_empty() {
                state = queue.changed.wait(state).unwrap_or_else(|e| e.into_inner());
            }
            let line = state.lines.pop_front().unwrap_or_default();
            state.bytes -= line.len();
            state.writing = true;
            (line, std::mem::take(&mut state.unnoted))
        };
        // The lock is released: a sink that blocks here holds up no one else.
        if dropped > 0 {
            let note = format!("[{dropped} log lines dropped: the log was not being read]\n");
            let _ = sink.write_all(note.as_bytes());
        }
        let _ = sink.write_all(&line);
        let _ = sink.flush();
        let mut state = queue.state.lock().unwrap_or_else(|e| e.into_inner());
        state.writing = false;
        queue.changed.notify_all();
    }
}

/// One writer of a [`LogPipe`]: it gathers what it is given (at most [`MAX_LOG_LINE`]
/// bytes) and queues it on flush or drop.
pub struct LogWriter {
    queue: Arc<LogQueue>,
    line: Vec<u8>,
    /// Bytes given since the last flush, kept or not.
    seen: usize,
}

impl std::fmt::Debug for LogWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogWriter")
            .field("pending", &self.line.len())
            .finish()
    }
}

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = MAX_LOG_LINE.saturating_sub(self.line.len());
        self.line.extend_from_slice(&buf[..buf.len().min(room)]);
        self.seen += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.line.is_empty() {
            return Ok(());
        }
        let mut line = std::mem::take(&mut self.line);
        if self.seen > line.len() {
            // Cut on a character boundary, and say how long it was.
            let keep = match std::str::from_utf8(&line) {
                Ok(_) => line.len(),
                Err(e) => e.valid_up_to(),
            };
            line.truncate(keep);
            line.extend_from_slice(format!("… [log line cut: {} bytes]\n", self.seen).as_bytes());
        }
        self.seen = 0;
        self.queue.push(line);
        Ok(())
    }
}

impl Drop for LogWriter {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}
