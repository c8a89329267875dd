//! [`Progress`]: what a running command has printed so far (its byte count and its last
//! complete line), shared with another thread while the call runs. Only a run whose
//! [`CancelHandle`](super::CancelHandle) carries one records it: other runs pay one branch
//! per chunk read.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes of a line kept at most (the start of a longer line is kept).
pub const PROGRESS_LINE_BYTES: usize = 1024;

/// A running command's progress: bytes of output so far and the last complete line.
#[derive(Debug, Default)]
pub struct Progress {
    bytes: AtomicU64,
    lines: Mutex<Lines>,
}

#[derive(Debug, Default)]
struct Lines {
    /// The last complete line (without its newline), at most [`PROGRESS_LINE_BYTES`].
    last: Vec<u8>,
    /// The start of the line being written, at most [`PROGRESS_LINE_BYTES`].
    current: Vec<u8>,
    /// Whether a line has been completed yet.
    complete: bool,
}

impl Lines {
    fn extend(buf: &mut Vec<u8>, data: &[u8]) {
        let room = PROGRESS_LINE_BYTES.saturating_sub(buf.len());
        buf.extend_from_slice(&data[..room.min(data.len())]);
    }
}

impl Progress {
    /// An empty progress: nothing printed yet.
    pub fn new() -> Self {
        Progress::default()
    }

    /// Bytes of output (stdout and stderr together) so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// The last complete output line so far (lossy UTF-8, the start of a line longer than
    /// [`PROGRESS_LINE_BYTES`]), or `None` before the first newline.
    pub fn last_line(&self) -> Option<String> {
        let lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        lines
            .complete
            .then(|| String::from_utf8_lossy(&lines.last).into_owned())
    }

    /// Takes the next bytes of the output.
    pub(super) fn push(&self, data: &[u8]) {
        self.bytes.fetch_add(data.len() as u64, Ordering::Relaxed);
        let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        let lines = &mut *lines;
        let Some(end) = data.iter().rposition(|&b| b == b'\n') else {
            Lines::extend(&mut lines.current, data);
            return;
        };
        // The last complete line ends at `end`; it began after the newline before it, or in
        // an earlier chunk (then `current` holds its start).
        match data[..end].iter().rposition(|&b| b == b'\n') {
            Some(start) => {
                lines.last.clear();
                Lines::extend(&mut lines.last, &data[start + 1..end]);
            }
            None => {
                std::mem::swap(&mut lines.last, &mut lines.current);
                Lines::extend(&mut lines.last, &data[..end]);
            }
        }
        lines.complete = true;
        lines.current.clear();
        Lines::extend(&mut lines.current, &data[end + 1..]);
    }
}

#[cfg(test)]
mod tests {
    use super::{PROGRESS_LINE_BYTES, Progress};

    #[test]
    fn the_last_complete_line_across_chunks() {
        let p = Progress::new();
        p.push(b"partial");
        assert_eq!(p.last_line(), None);
        p.push(b" line\nnext");
        assert_eq!(p.last_line().as_deref(), Some("partial line"));
        p.push(b" one\na\nb\nc");
        assert_eq!(p.last_line().as_deref(), Some("b"));
        p.push(b"\n");
        assert_eq!(p.last_line().as_deref(), Some("c"));
        assert_eq!(p.bytes(), 28);
    }

    #[test]
    fn a_long_line_is_kept_bounded() {
        let p = Progress::new();
        p.push(&vec![b'x'; 3 * PROGRESS_LINE_BYTES]);
        p.push(&vec![b'y'; 3 * PROGRESS_LINE_BYTES]);
        p.push(b"\n");
        let line = p.last_line().unwrap();
        assert_eq!(line.len(), PROGRESS_LINE_BYTES);
        assert!(line.bytes().all(|b| b == b'x'));
    }
}
