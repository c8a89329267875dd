//! Progress of a long call: `notifications/progress` for a `tools/call` whose request carries
//! `params._meta.progressToken`. A [`Ticker`] beside the call sends one after
//! [`FIRST_AFTER`], then at most one per [`EVERY`], each holding the token, the elapsed whole
//! seconds as `progress` (strictly increasing: ticks are a second apart at least) and a
//! `message` with the elapsed time, the bytes of output so far and the last complete output
//! line (at most [`LINE_CHARS`] characters, misleading characters shown as `U+XXXX`).
//!
//! A notification is sent under the ticker's lock, and stopping the ticker (when the call
//! ends, or when the client cancels it) takes that lock: once [`Ticker::stop`] returns, no
//! notification of the call follows, so none comes after its result or its cancellation.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use nanotool_runtime::Progress;
use nanotool_runtime::slot::is_forbidden_char;
use serde_json::{Value, json};

/// The first notification comes this long after the call started.
pub(super) const FIRST_AFTER: Duration = Duration::from_secs(1);
/// Then at most one per this interval.
pub(super) const EVERY: Duration = Duration::from_secs(1);
/// Characters of the last output line a message holds at most.
pub(super) const LINE_CHARS: usize = 200;

/// The clock of one call's notifications; stopped for good by [`Ticker::stop`].
#[derive(Debug, Default)]
pub(super) struct Ticker {
    stopped: Mutex<bool>,
    wake: Condvar,
}

impl Ticker {
    /// Stops the ticker; waits for a notification being sent, and no other follows.
    pub(super) fn stop(&self) {
        let mut stopped = self.stopped.lock().unwrap_or_else(|e| e.into_inner());
        *stopped = true;
        self.wake.notify_all();
    }

    /// Calls `send` with the elapsed time at each tick, under the lock, until stopped.
    pub(super) fn run(&self, mut send: impl FnMut(Duration)) {
        let started = Instant::now();
        let mut next = started + FIRST_AFTER;
        let mut stopped = self.stopped.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            while !*stopped {
                let now = Instant::now();
                if now >= next {
                    break;
                }
                stopped = self
                    .wake
                    .wait_timeout(stopped, next - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            if *stopped {
                return;
            }
            send(started.elapsed());
            next = Instant::now() + EVERY;
        }
    }
}

/// The `notifications/progress` message for `token` at `elapsed`.
pub(super) fn notification(token: &Value, elapsed: Duration, progress: &Progress) -> Value {
    let secs = elapsed.as_secs();
    let mut message = format!("running for {secs} s, {} bytes of output", progress.bytes());
    if let Some(line) = progress.last_line() {
        message.push_str("; last line: ");
        message.push_str(&visible(&line, LINE_CHARS));
    }
    json!({
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": token, "progress": secs, "message": message},
    })
}

/// `line` as a model may see it: at most `max` characters (then `…`), a tab as a space, and
/// every character that makes text read differently than it is (controls, Unicode
/// whitespace other than the space, format characters such as bidi controls) as `U+XXXX`.
pub(super) fn visible(line: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in line.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        match c {
            '\t' => out.push(' '),
            c if c == '\n' || is_forbidden_char(c) => {
                out.push_str(&format!("U+{:04X}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

/// The progress token of a request, if it carries one (a string or a number).
pub(super) fn token(params: &serde_json::Map<String, Value>) -> Option<Value> {
    match params.get("_meta")?.get("progressToken")? {
        v @ (Value::String(_) | Value::Number(_)) => Some(v.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::visible;

    #[test]
    fn misleading_characters_are_shown_and_the_line_is_bounded() {
        assert_eq!(
            visible("a\u{202e}b\rc\td\u{1b}[31m", 100),
            "aU+202EbU+000Dc dU+001B[31m"
        );
        assert_eq!(
            visible(&"é".repeat(300), 200),
            format!("{}…", "é".repeat(200))
        );
    }
}
