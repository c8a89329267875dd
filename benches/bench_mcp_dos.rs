//! What one hostile client costs `nanotool serve`: peak memory (VmHWM) and reply latency of
//!
//! 1. a `tools/call` naming an unknown tool of 4,000,000 characters, with 40 descriptor tools
//!    of 64-character names loaded, and a `ping` sent right behind it;
//! 2. 250 calls carrying a 4 MB argument each, sent while every worker is busy (so they
//!    queue), and a `ping` behind them.
//!
//! Each case runs in a fresh server process; the figures are read from `/proc/<pid>/status`.
//!
//! ```sh
//! cargo bench --bench bench_mcp_dos
//! # another build side by side (e.g. an older commit's):
//! NANOTOOL_BIN=/path/to/nanotool cargo bench --bench bench_mcp_dos
//! ```

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod common;
use common::nanotool_bin;

/// VmHWM (peak resident set) of `pid`, in MiB.
fn peak_rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    kb / 1024.0
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

fn line(v: &Value) -> Vec<u8> {
    let mut l = v.to_string().into_bytes();
    l.push(b'\n');
    l
}

fn call(id: usize, name: &str, arguments: Value) -> Vec<u8> {
    line(&json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": meta()}
    }))
}

fn ping(id: &str) -> Vec<u8> {
    line(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
}

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: mpsc::Receiver<(Instant, Value)>,
}

impl Server {
    fn start(work: &Path, cwd: &Path) -> Server {
        let mut child = Command::new(nanotool_bin())
            .arg("serve")
            .arg("--work")
            .arg(work)
            .arg("--cwd")
            .arg(cwd)
            .env("NANOTOOL_LOG", "off")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nanotool serve");
        let mut stdin = child.stdin.take().unwrap();
        let stdout: ChildStdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut l = String::new();
            loop {
                l.clear();
                if r.read_line(&mut l).unwrap_or(0) == 0 {
                    return;
                }
                let v: Value = serde_json::from_str(&l).expect("a JSON-RPC line");
                if tx.send((Instant::now(), v)).is_err() {
                    return;
                }
            }
        });
        // The handshake era, for `ping`.
        stdin
            .write_all(&line(
                &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}),
            ))
            .unwrap();
        stdin
            .write_all(&line(
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ))
            .unwrap();
        let (_, v) = rx.recv().unwrap();
        assert_eq!(v["id"], "init");
        Server {
            child,
            stdin: Some(stdin),
            replies: rx,
        }
    }

    /// Waits for the reply with `id`; returns when it arrived and the reply.
    fn wait_for(&self, id: &Value, others: &mut Vec<Value>) -> (Instant, Value) {
        loop {
            let (at, v) = self
                .replies
                .recv_timeout(Duration::from_secs(300))
                .expect("a reply in time");
            if &v["id"] == id {
                return (at, v);
            }
            others.push(v);
        }
    }

    fn finish(mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

fn descriptor(name: &str, command: &str) -> String {
    json!({"name": name, "description": "bench", "command": command}).to_string()
}

fn main() {
    let cwd = tempfile::tempdir().expect("temp dir");

    // Case 1: a 4,000,000-character unknown tool name, 40 tools of 64-character names.
    let work = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(work.path().join("tools")).unwrap();
    for i in 0..40 {
        let name = format!("{i:02}{}", "t".repeat(62));
        std::fs::write(
            work.path().join(format!("tools/{i:02}.tool.json")),
            descriptor(&name, "true"),
        )
        .unwrap();
    }
    let s = Server::start(work.path(), cwd.path());
    let pid = s.child.id();
    let idle = peak_rss_mib(pid);
    let long_name = "x".repeat(4_000_000);
    let mut stdin = s.stdin.as_ref().unwrap();
    let sent = Instant::now();
    stdin.write_all(&call(1, &long_name, json!({}))).unwrap();
    stdin.write_all(&ping("after-1")).unwrap();
    let mut others = Vec::new();
    let (at, v) = s.wait_for(&json!(1), &mut others);
    assert!(v["error"].is_object(), "an unknown tool is an error");
    let reply_bytes = v.to_string().len();
    let (ping_at, _) = s.wait_for(&json!("after-1"), &mut others);
    let peak = peak_rss_mib(pid);
    println!("case 1: tools/call of an unknown 4,000,000-character name, 40 tools of 64 chars");
    println!(
        "  reply {:8.1} ms ({} bytes); ping behind it {:8.1} ms; peak RSS {:7.1} MiB (idle {:.1} MiB)",
        (at - sent).as_secs_f64() * 1e3,
        reply_bytes,
        (ping_at - sent).as_secs_f64() * 1e3,
        peak,
        idle
    );
    s.finish();

    // Case 3: 250 calls with a 4 MB argument each, queued behind busy workers.
    let work = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(work.path().join("tools")).unwrap();
    std::fs::write(
        work.path().join("tools/sleep.tool.json"),
        json!({"name": "sleep", "description": "Sleep", "command": "sleep <seconds>",
               "arguments": {"seconds": {"type": "integer", "description": "s", "minimum": 0, "maximum": 60}}})
        .to_string(),
    )
    .unwrap();
    let mut s = Server::start(work.path(), cwd.path());
    let pid = s.child.id();
    let idle = peak_rss_mib(pid);
    let mut stdin = s.stdin.take().unwrap();
    let busy = 70;
    let big = 250;
    let pad = "p".repeat(4_000_000);
    let sent = Instant::now();
    let writer = thread::spawn(move || {
        for i in 0..busy {
            stdin
                .write_all(&call(10_000 + i, "sleep", json!({"seconds": 4})))
                .unwrap();
        }
        for i in 0..big {
            stdin
                .write_all(&call(
                    20_000 + i,
                    "sleep",
                    json!({"seconds": 0, "pad": pad}),
                ))
                .unwrap();
        }
        stdin.write_all(&ping("after-3")).unwrap();
        stdin
    });
    let mut others = Vec::new();
    let (ping_at, _) = s.wait_for(&json!("after-3"), &mut others);
    let stdin = writer.join().unwrap();
    while others.len() < busy + big {
        let (_, v) = s
            .replies
            .recv_timeout(Duration::from_secs(300))
            .expect("every call answered");
        others.push(v);
    }
    let last = Instant::now();
    let busy_errors = others
        .iter()
        .filter(|v| {
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("busy"))
        })
        .count();
    let peak = peak_rss_mib(pid);
    println!("case 3: {busy} calls of `sleep 4`, then {big} calls with a 4 MB argument each");
    println!(
        "  ping behind them {:8.1} ms; all answered after {:8.1} ms ({} refused as busy); peak RSS {:7.1} MiB (idle {:.1} MiB)",
        (ping_at - sent).as_secs_f64() * 1e3,
        (last - sent).as_secs_f64() * 1e3,
        busy_errors,
        peak,
        idle
    );
    drop(stdin);
    s.finish();
}
