//! Calls in flight, in-process: they run concurrently and the reader never waits for one,
//! cancellation stops a call and sends no response, EOF waits for the calls in flight, ids
//! are unique, memory stays within its budget, and a stalled log never blocks a writer.

use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use nanotool::mcp::ServerOptions;
use serde_json::{Value, json};

use crate::common::{
    Harness, PATIENCE, Probe, error_code, host, legacy_harness, modern, reply_len, req,
};

#[test]
fn calls_run_concurrently_and_the_reader_never_waits_for_one() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    // Two calls that each wait for the other: they finish only if they overlap.
    h.send(modern(
        json!("o1"),
        "tools/call",
        json!({"name": "overlap"}),
    ));
    h.send(modern(
        json!("o2"),
        "tools/call",
        json!({"name": "overlap"}),
    ));
    let mut seen = Vec::new();
    for _ in 0..2 {
        let r = h.recv();
        assert_eq!(
            r["result"]["content"][0]["text"], "exit: 0\noutput: overlapped",
            "{r}"
        );
        seen.push(r["id"].as_str().unwrap().to_owned());
    }
    seen.sort();
    assert_eq!(seen, ["o1", "o2"]);
    // A blocked call does not hold up other requests.
    h.send(modern(
        json!("blocked"),
        "tools/call",
        json!({"name": "block"}),
    ));
    let r = h.request(modern(json!("list"), "tools/list", Value::Null));
    assert_eq!(r["id"], "list");
    h.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "blocked"}}));
}

#[test]
fn thirty_two_concurrent_calls_all_complete() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    for i in 0..32 {
        h.send(modern(
            json!(i),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": format!("call {i}")}}),
        ));
    }
    let mut ids: Vec<i64> = (0..32)
        .map(|_| {
            let r = h.recv();
            let id = r["id"].as_i64().unwrap();
            assert_eq!(
                r["result"]["content"][0]["text"],
                format!("exit: 0\noutput: {}", json!({"text": format!("call {id}")}))
            );
            id
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..32).collect::<Vec<_>>());
    assert_eq!(probe.calls.load(Ordering::SeqCst), 32);
}

#[test]
fn a_cancelled_call_is_stopped_and_gets_no_response() {
    for (era, id) in [("legacy", json!(41)), ("modern", json!("c-1"))] {
        let probe = Arc::new(Probe::default());
        let mut h = if era == "legacy" {
            legacy_harness(&probe)
        } else {
            Harness::start(host(&probe, 0), ServerOptions::default())
        };
        let call = json!({"name": "block"});
        h.send(if era == "legacy" {
            req(id.clone(), "tools/call", call)
        } else {
            modern(id.clone(), "tools/call", call)
        });
        // Wait until the call runs, then cancel it.
        let deadline = Instant::now() + PATIENCE;
        while probe.calls.load(Ordering::SeqCst) == 0 {
            assert!(Instant::now() < deadline, "the call never started");
            thread::sleep(Duration::from_millis(2));
        }
        h.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "test"}}));
        // The next message is the answer to the ping: nothing came for the cancelled call.
        let r = h.request(req(json!("after"), "ping", Value::Null));
        assert_eq!(r["id"], "after", "{era}: {r}");
        let deadline = Instant::now() + PATIENCE;
        while !probe.saw_cancel.load(Ordering::SeqCst) {
            assert!(
                Instant::now() < deadline,
                "{era}: the tool never saw the cancel"
            );
            thread::sleep(Duration::from_millis(2));
        }
        h.close();
        h.wait_exit().unwrap();
        // After EOF and exit: still nothing for the cancelled call.
        assert_eq!(h.try_recv(Duration::from_millis(50)), None, "{era}");
    }
}

#[test]
fn eof_waits_for_calls_in_flight_then_returns() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    for i in 0..8 {
        h.send(modern(json!(i), "tools/call", json!({"name": "echo"})));
    }
    // A last line without a newline is still a message.
    h.send_raw(br#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#);
    h.close();
    h.wait_exit().unwrap();
    let mut ids = Vec::new();
    while let Some(r) = h.try_recv(Duration::from_millis(50)) {
        ids.push(r["id"].to_string());
    }
    ids.sort();
    assert_eq!(ids.len(), 9, "{ids:?}");
    assert!(ids.contains(&"\"last\"".to_string()));
}

#[test]
fn duplicate_ids_in_flight_are_refused() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    h.send(modern(json!(7), "tools/call", json!({"name": "block"})));
    let r = h.request(modern(json!(7), "tools/call", json!({"name": "echo"})));
    assert_eq!(error_code(&r), -32600);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already in use")
    );
    h.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}),
    );
    h.close();
    h.wait_exit().unwrap();
}

#[test]
fn the_reader_stays_free_when_every_worker_is_busy() {
    let probe = Arc::new(Probe::default());
    let options = ServerOptions {
        workers: 2,
        ..ServerOptions::default()
    };
    let mut h = Harness::start(host(&probe, 0), options);
    for id in ["b1", "b2", "b3"] {
        h.send(modern(json!(id), "tools/call", json!({"name": "block"})));
    }
    // Answered although calls fill the pool.
    let r = h.request(req(json!("ping"), "ping", Value::Null));
    assert_eq!(r["id"], "ping");
    for id in ["b1", "b2", "b3"] {
        h.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}}));
    }
    let r = h.request(modern(json!("e"), "tools/call", json!({"name": "echo"})));
    assert_eq!(r["id"], "e", "{r}");
    assert_eq!(r["result"]["isError"], false);
    h.close();
    h.wait_exit().unwrap();
    assert_eq!(h.try_recv(Duration::from_millis(50)), None);
}

#[test]
fn queued_and_running_requests_are_held_within_a_byte_budget() {
    let probe = Arc::new(Probe::default());
    // One call at a time: the block runs, the echoes queue behind it.
    let options = ServerOptions {
        workers: 1,
        max_request_bytes: 1_000_000,
        ..ServerOptions::default()
    };
    let mut h = Harness::start(host(&probe, 0), options);
    h.send(modern(json!("b"), "tools/call", json!({"name": "block"})));
    // Wait until the block runs, so the calls below queue behind it.
    let deadline = Instant::now() + PATIENCE;
    while probe.calls.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "the blocking call never started");
        thread::sleep(Duration::from_millis(5));
    }
    let text = "t".repeat(300_000);
    for i in 1..=5 {
        h.send(modern(
            json!(i),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": text}}),
        ));
    }
    // Three fit in the budget and wait; the fourth and fifth are refused at once.
    for id in [4, 5] {
        let r = h.recv();
        assert_eq!(r["id"], id, "{}", &r.to_string()[..200.min(reply_len(&r))]);
        assert_eq!(error_code(&r), -32603);
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.contains("busy"), "{message}");
        assert!(message.contains("retry"), "{message}");
    }
    let r = h.request(req(json!("p"), "ping", Value::Null));
    assert_eq!(r["id"], "p");
    h.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "b"}}));
    let mut answered: Vec<i64> = (0..3).map(|_| h.recv()["id"].as_i64().unwrap()).collect();
    answered.sort_unstable();
    assert_eq!(answered, [1, 2, 3]);
    // Their bytes are released: a big call fits again.
    let r = h.request(modern(
        json!(6),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": text}}),
    ));
    assert_eq!(r["result"]["isError"], false, "{}", &r.to_string()[..200]);
    h.close();
    h.wait_exit().unwrap();
}

#[test]
fn a_request_is_held_at_its_parsed_size_not_only_its_line_length() {
    // Small numbers in an array cost more parsed than written: 2 bytes a line, 32 bytes held.
    let probe = Arc::new(Probe::default());
    let options = ServerOptions {
        workers: 2,
        max_request_bytes: 4_000_000,
        ..ServerOptions::default()
    };
    let mut h = Harness::start(host(&probe, 0), options);
    h.send(modern(json!("b"), "tools/call", json!({"name": "block"})));
    let deadline = Instant::now() + PATIENCE;
    while probe.calls.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "the blocking call never started");
        thread::sleep(Duration::from_millis(5));
    }
    // 300,000 zeros: a 600 KB line, about 10 MB parsed.
    let zeros = vec![0; 300_000];
    h.send(modern(
        json!(1),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": zeros}}),
    ));
    let r = h.recv();
    assert_eq!(r["id"], 1);
    assert_eq!(error_code(&r), -32603, "{}", &r.to_string()[..200]);
    h.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "b"}}));
    h.close();
    h.wait_exit().unwrap();
}

/// A sink that never returns from a write until released: a stderr nobody drains.
struct Stalled {
    release: Arc<(Mutex<bool>, Condvar)>,
    written: Arc<AtomicUsize>,
}

impl Write for Stalled {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let (lock, cv) = &*self.release;
        let mut released = lock.lock().unwrap();
        while !*released {
            released = cv.wait(released).unwrap();
        }
        self.written.fetch_add(buf.len(), Ordering::SeqCst);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_stalled_log_sink_loses_lines_but_never_blocks_a_writer() {
    let release = Arc::new((Mutex::new(false), Condvar::new()));
    let written = Arc::new(AtomicUsize::new(0));
    let log = nanotool::mcp::LogPipe::with_sink(
        Stalled {
            release: release.clone(),
            written: written.clone(),
        },
        64 * 1024,
    )
    .unwrap();
    // Many threads log big lines at once while the sink is stuck; none of them waits.
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let log = log.clone();
            thread::spawn(move || {
                for _ in 0..100 {
                    let mut w = log.writer();
                    w.write_all(&vec![b'x'; 100_000]).unwrap();
                    w.write_all(b"\n").unwrap();
                }
            })
        })
        .collect();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for t in threads {
            t.join().unwrap();
        }
        let _ = tx.send(());
    });
    rx.recv_timeout(PATIENCE)
        .expect("a writer blocked on a stalled log sink");
    assert!(log.dropped() > 0);
    // Released, the sink gets what was kept (bounded) and a note of what was lost.
    {
        let (lock, cv) = &*release;
        *lock.lock().unwrap() = true;
        cv.notify_all();
    }
    assert!(log.flush(PATIENCE));
    let total = written.load(Ordering::SeqCst);
    assert!(total > 0 && total < 1024 * 1024, "{total} bytes written");
}
