//! Bounded capture of a command's output: the first bytes (the head), a ring of the last bytes
//! (the tail), and the count of everything; then rendering to text within the cap, cut on
//! UTF-8 boundaries, with a `[... N bytes omitted ...]` marker between head and tail.
//!
//! Memory is `cap + cap / 2` bytes at most, however much the command prints.

use super::progress::Progress;
use std::sync::Arc;

/// The marker between head and tail.
pub(super) fn marker(omitted: u64) -> String {
    format!("[... {omitted} bytes omitted ...]")
}

/// The head and tail of a byte stream, and its length, in one buffer of `cap` bytes at most:
/// the whole stream while it fits, then its first `cap / 2` bytes (the head) followed by a
/// ring of its last `cap - cap / 2` (the tail). At the moment the stream passes the cap, the
/// buffer's second half already holds the stream's last bytes in order, so the ring starts
/// full and nothing is copied twice.
#[derive(Debug)]
pub(super) struct Capture {
    cap: usize,
    buf: Vec<u8>,
    /// Where the next byte goes in the ring (an offset from `cap / 2`), once the stream has
    /// passed the cap.
    ring_pos: usize,
    total: u64,
    /// Where a run that reports its progress records it.
    pub(super) progress: Option<Arc<Progress>>,
}

impl Capture {
    /// An empty capture keeping `cap` bytes at most in its rendering.
    pub(super) fn new(cap: usize) -> Self {
        Capture {
            cap,
            buf: Vec::new(),
            ring_pos: 0,
            total: 0,
            progress: None,
        }
    }

    /// Bytes of memory the capture holds.
    #[cfg(test)]
    fn held(&self) -> usize {
        self.buf.capacity()
    }

    /// Bytes seen in all.
    pub(super) fn total(&self) -> u64 {
        self.total
    }

    /// Takes the next bytes of the stream.
    pub(super) fn push(&mut self, mut data: &[u8]) {
        let before = self.total;
        self.total += data.len() as u64;
        if let Some(progress) = &self.progress {
            progress.push(data);
        }
        if before < self.cap as u64 {
            let take = (self.cap - self.buf.len()).min(data.len());
            if self.buf.capacity() - self.buf.len() < take {
                // Doubling, from 64 KiB, never past the cap.
                let want = (self.buf.len() + take)
                    .max(self.buf.capacity() * 2)
                    .max(64 * 1024)
                    .min(self.cap);
                self.buf.reserve_exact(want - self.buf.len());
            }
            self.buf.extend_from_slice(&data[..take]);
            data = &data[take..];
        }
        if data.is_empty() {
            return;
        }
        // The buffer is full: its second half is the ring.
        let head = self.cap / 2;
        let ring = &mut self.buf[head..];
        let tail_cap = ring.len();
        if tail_cap == 0 {
            return;
        }
        if data.len() >= tail_cap {
            // The ring becomes exactly the end of this chunk, in order.
            ring.copy_from_slice(&data[data.len() - tail_cap..]);
            self.ring_pos = 0;
            return;
        }
        while !data.is_empty() {
            let n = (tail_cap - self.ring_pos).min(data.len());
            ring[self.ring_pos..self.ring_pos + n].copy_from_slice(&data[..n]);
            self.ring_pos = (self.ring_pos + n) % tail_cap;
            data = &data[n..];
        }
    }

    /// The text within the cap, and how many bytes of the stream it leaves out. The buffer
    /// becomes the text where the output is UTF-8 (the ring turned in place, the marker
    /// spliced between head and tail); only output that must be decoded lossily is copied.
    /// The capture keeps its total, and nothing else.
    pub(super) fn render(&mut self) -> (String, u64) {
        let mut buf = std::mem::take(&mut self.buf);
        let cap = self.cap;
        if self.total <= cap as u64 {
            return match String::from_utf8(buf) {
                Ok(text) => (text, 0),
                Err(e) => render(e.as_bytes(), &[], self.total, cap),
            };
        }
        let head = cap / 2;
        buf[head..].rotate_left(self.ring_pos);
        self.ring_pos = 0;
        // The head up to its last whole character; the tail from its first.
        let head_raw = match std::str::from_utf8(&buf[..head]) {
            Ok(_) => head,
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => return render(&buf[..head], &buf[head..], self.total, cap),
        };
        let skip = buf[head..]
            .iter()
            .take(3)
            .take_while(|b| (**b & 0xC0) == 0x80)
            .count();
        if std::str::from_utf8(&buf[head + skip..]).is_err() {
            return render(&buf[..head], &buf[head..], self.total, cap);
        }
        let tail_raw = buf.len() - head - skip;
        let omitted = self.total - head_raw as u64 - tail_raw as u64;
        let mut between = String::new();
        if head_raw > 0 && buf[head_raw - 1] != b'\n' {
            between.push('\n');
        }
        between.push_str(&marker(omitted));
        if tail_raw > 0 {
            between.push('\n');
        }
        buf.splice(head_raw..head + skip, between.bytes());
        match String::from_utf8(buf) {
            Ok(text) => (text, omitted),
            // Not reached: both parts and the marker are UTF-8.
            Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), omitted),
        }
    }
}

/// Renders a stream known by its first bytes (`prefix`, the first `min(total, cap)`) and its
/// last bytes (`suffix`, the last `min(total, cap - cap / 2)`), as text of at most `cap` bytes
/// plus the marker. Returns the text and the count of stream bytes left out.
pub(super) fn render(prefix: &[u8], suffix: &[u8], total: u64, cap: usize) -> (String, u64) {
    let whole = total <= cap as u64;
    if whole {
        // Everything fits unless lossy decoding grew it beyond the cap.
        let text = String::from_utf8_lossy(prefix);
        if text.len() <= cap {
            return (text.into_owned(), 0);
        }
    }
    let head_budget = cap / 2;
    let tail_budget = cap - head_budget;
    let (head, head_raw) = decode_head(prefix, head_budget, whole);
    let window: &[u8] = if whole {
        let start = head_raw.max(prefix.len().saturating_sub(tail_budget));
        &prefix[start..]
    } else {
        suffix
    };
    let (tail, tail_raw) = decode_tail(window, tail_budget);
    let omitted = total - head_raw as u64 - tail_raw as u64;
    if omitted == 0 {
        return (head + &tail, 0);
    }
    let mut out = String::with_capacity(head.len() + tail.len() + 40);
    out.push_str(&head);
    if !head.is_empty() && !head.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&marker(omitted));
    if !tail.is_empty() {
        out.push('\n');
        out.push_str(&tail);
    }
    (out, omitted)
}

/// Decodes the start of `bytes` into at most `budget` bytes of text, never splitting a
/// character; an invalid sequence becomes U+FFFD. `whole` says `bytes` is the entire stream
/// (else an incomplete sequence at its end is a character cut by the capture, and is left out).
/// Returns the text and the number of raw bytes it stands for.
fn decode_head(bytes: &[u8], budget: usize, whole: bool) -> (String, usize) {
    let mut out = String::new();
    let mut raw = 0usize;
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        let room = budget - out.len();
        if valid.len() > room {
            let mut end = room;
            while !valid.is_char_boundary(end) {
                end -= 1;
            }
            out.push_str(&valid[..end]);
            raw += end;
            return (out, raw);
        }
        out.push_str(valid);
        raw += valid.len();
        let invalid = chunk.invalid();
        if invalid.is_empty() {
            continue;
        }
        let at_end = raw + invalid.len() == bytes.len();
        if (at_end && !whole) || budget - out.len() < char::REPLACEMENT_CHARACTER.len_utf8() {
            return (out, raw);
        }
        out.push(char::REPLACEMENT_CHARACTER);
        raw += invalid.len();
    }
    (out, raw)
}

/// Decodes the end of `bytes` into at most `budget` bytes of text, starting on a character
/// boundary (leading continuation bytes belong to a character cut by the capture and are left
/// out). Returns the text and the number of raw bytes it stands for.
fn decode_tail(bytes: &[u8], budget: usize) -> (String, usize) {
    let skip = bytes
        .iter()
        .take(3)
        .take_while(|b| (**b & 0xC0) == 0x80)
        .count();
    let bytes = &bytes[skip..];
    if let Ok(text) = std::str::from_utf8(bytes)
        && text.len() <= budget
    {
        return (text.to_owned(), bytes.len());
    }
    // Decode forward, remembering where each unit (a character or one invalid sequence) starts
    // in the text and in the raw bytes; then keep the longest suffix within the budget.
    let mut out = String::new();
    let mut starts: Vec<(usize, usize)> = Vec::new();
    let mut raw = 0usize;
    for chunk in bytes.utf8_chunks() {
        for (i, c) in chunk.valid().char_indices() {
            starts.push((out.len(), raw + i));
            out.push(c);
        }
        raw += chunk.valid().len();
        if !chunk.invalid().is_empty() {
            starts.push((out.len(), raw));
            out.push(char::REPLACEMENT_CHARACTER);
            raw += chunk.invalid().len();
        }
    }
    let keep = starts
        .iter()
        .find(|(text_at, _)| out.len() - text_at <= budget)
        .copied()
        .unwrap_or((out.len(), raw));
    (out[keep.0..].to_owned(), raw - keep.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(chunks: &[&[u8]], cap: usize) -> (String, u64) {
        let mut c = Capture::new(cap);
        for chunk in chunks {
            c.push(chunk);
        }
        c.render()
    }

    #[test]
    fn small_output_is_kept_whole() {
        assert_eq!(
            capture(&[b"hello\n", b"world\n"], 2048),
            ("hello\nworld\n".into(), 0)
        );
        assert_eq!(capture(&[], 2048), (String::new(), 0));
    }

    #[test]
    fn exactly_the_cap_is_not_truncated() {
        let data = vec![b'x'; 16];
        assert_eq!(capture(&[&data], 16), ("x".repeat(16), 0));
    }

    #[test]
    fn long_output_keeps_head_and_tail_from_many_small_chunks() {
        let data: Vec<u8> = (0..1000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let chunks: Vec<&[u8]> = data.chunks(7).collect();
        let (text, omitted) = capture(&chunks, 100);
        let head = std::str::from_utf8(&data[..50]).unwrap();
        let tail = std::str::from_utf8(&data[950..]).unwrap();
        assert_eq!(omitted, 900);
        assert_eq!(text, format!("{head}\n[... 900 bytes omitted ...]\n{tail}"));
    }

    #[test]
    fn ring_wraps_correctly_with_odd_chunk_sizes() {
        for chunk_len in [1usize, 3, 49, 50, 51, 99, 100, 101, 333] {
            let data: Vec<u8> = (0..2000u32).map(|i| b'0' + (i % 10) as u8).collect();
            let chunks: Vec<&[u8]> = data.chunks(chunk_len).collect();
            let (text, omitted) = capture(&chunks, 100);
            assert_eq!(omitted, 1900, "chunk {chunk_len}");
            assert!(text.ends_with(std::str::from_utf8(&data[1950..]).unwrap()));
            assert!(text.starts_with(std::str::from_utf8(&data[..50]).unwrap()));
        }
    }

    #[test]
    fn multibyte_characters_are_never_split() {
        // 'é' is 2 bytes; with an odd budget a naive cut would split one.
        let data = "é".repeat(100);
        for cap in [1usize, 2, 3, 5, 7, 11, 64, 199] {
            let (text, omitted) = capture(&[data.as_bytes()], cap);
            assert!(!text.contains('\u{FFFD}'), "cap {cap}: {text:?}");
            let kept = text.chars().filter(|c| *c == 'é').count() as u64;
            assert_eq!(omitted + kept * 2, 200, "cap {cap}: {text:?}");
        }
    }

    #[test]
    fn invalid_utf8_is_lossy_and_bounded() {
        let data = vec![0xFFu8; 64];
        let (text, omitted) = capture(&[&data], 64);
        // 64 invalid bytes would render as 192 bytes: cut to the cap instead.
        let body: String = text.replace(&marker(omitted), "").replace('\n', "");
        assert!(body.len() <= 64, "{text:?}");
        assert!(body.chars().all(|c| c == '\u{FFFD}'));
        assert!(omitted > 0);
    }

    #[test]
    fn the_capture_holds_the_cap_at_most_whatever_the_stream() {
        for cap in [0usize, 1, 7, 100, 4096, 100_000] {
            let mut c = Capture::new(cap);
            let data: Vec<u8> = (0..50_000u32).map(|i| b'a' + (i % 26) as u8).collect();
            for _ in 0..20 {
                for chunk in data.chunks(7919) {
                    c.push(chunk);
                }
            }
            assert!(c.held() <= cap.max(1), "cap {cap}: {} bytes held", c.held());
            let (text, omitted) = c.render();
            assert_eq!(omitted > 0, cap < 1_000_000, "cap {cap}");
            assert!(
                text.len() <= cap + 64,
                "cap {cap}: {} bytes rendered",
                text.len()
            );
        }
    }

    #[test]
    fn zero_cap_keeps_only_the_marker() {
        assert_eq!(capture(&[b"abc"], 0), (marker(3), 3));
    }
}
