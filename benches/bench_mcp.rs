//! What `nanotool serve` costs on top of the kernel: 1,000 sequential `tools/call` round trips
//! of a trivial descriptor tool (`true`) over stdio, against the same command run through the
//! kernel directly (and through `Toolbox::call` in process), interleaved call by call in one
//! run, beside a `ping` round trip (the transport's floor) and a bare spawn of `true` by this
//! client process (std's `Command::output`, no sandbox: what a client pays without a server);
//! then 32 concurrent calls, counted.
//!
//! ```sh
//! cargo bench --bench bench_mcp
//! NANOTOOL_BIN=/path/to/nanotool cargo bench --bench bench_mcp   # another build
//! ```

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nanotool::{CancelHandle, CommandExecKernel, KernelSettings, Toolbox};
use serde_json::{Value, json};

mod common;
use common::nanotool_bin;

const CALLS: usize = 1000;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

/// One `tools/call` request as one line, newline included: a client writes a message whole
/// (one `write`), as the SDKs do; `writeln!` on an unbuffered pipe would send the newline in
/// a second `write` and wake the server twice.
fn call(id: usize) -> Vec<u8> {
    let mut line = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": "nothing", "arguments": {},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    })
    .to_string();
    line.push('\n');
    line.into_bytes()
}

/// One `ping` (2025-11-25 era, after `initialize`) as one line: the protocol's floor, a round
/// trip through the same pipes and dispatcher with no tool behind it.
fn ping(id: usize) -> Vec<u8> {
    let mut line = json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();
    line.push('\n');
    line.into_bytes()
}

fn main() {
    let work = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(work.path().join("tools")).unwrap();
    std::fs::write(
        work.path().join("tools/nothing.tool.json"),
        r#"{"name": "nothing", "description": "Do nothing, successfully", "command": "true"}"#,
    )
    .unwrap();
    let cwd = tempfile::tempdir().expect("temp dir");

    let kernel = CommandExecKernel::new(KernelSettings {
        cwd: cwd.path().to_path_buf(),
        ..KernelSettings::default()
    })
    .expect("kernel");
    let argv = vec!["true".to_owned()];
    // The same tool through the toolbox in this process: the tool layer without the protocol.
    let mut toolbox = Toolbox::new(
        CommandExecKernel::new(KernelSettings {
            cwd: cwd.path().to_path_buf(),
            ..KernelSettings::default()
        })
        .expect("kernel"),
    );
    assert!(
        toolbox
            .load_descriptors(&work.path().join("tools"))
            .is_empty()
    );
    let no_args = json!({});

    let bin = nanotool_bin();
    let mut child = Command::new(&bin)
        .arg("serve")
        .arg("--work")
        .arg(work.path())
        .arg("--cwd")
        .arg(cwd.path())
        .env("NANOTOOL_LOG", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start nanotool serve");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();

    // Warm up both paths.
    for i in 0..20 {
        assert_eq!(kernel.run(&argv).exit_code, 0);
        stdin.write_all(&call(i)).unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
    }

    // The session also speaks the handshake era, for `ping`.
    stdin
        .write_all(
            format!(
                "{}\n{}\n",
                json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                       "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}),
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
            )
            .as_bytes(),
        )
        .unwrap();
    line.clear();
    stdout.read_line(&mut line).unwrap();

    let mut direct = Vec::with_capacity(CALLS);
    let mut pinged = Vec::with_capacity(CALLS);
    let mut tooled = Vec::with_capacity(CALLS);
    let mut served = Vec::with_capacity(CALLS);
    let mut bare = Vec::with_capacity(CALLS);
    let mut id = 1000;
    // One call of each kind in turn, the order rotating, so that load from elsewhere and
    // the after-effects of the previous call fall on all of them alike.
    for i in 0..CALLS {
        for k in 0..5 {
            match (i + k) % 5 {
                4 => {
                    let t = Instant::now();
                    let out = Command::new("true")
                        .current_dir(cwd.path())
                        .output()
                        .expect("spawn true");
                    bare.push(t.elapsed());
                    assert!(out.status.success());
                }
                3 => {
                    id += 1;
                    let t = Instant::now();
                    stdin.write_all(&ping(id)).unwrap();
                    line.clear();
                    stdout.read_line(&mut line).unwrap();
                    pinged.push(t.elapsed());
                    let v: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
                    assert_eq!(v["id"], id, "{v}");
                }
                0 => {
                    let t = Instant::now();
                    let r = kernel.run(&argv);
                    direct.push(t.elapsed());
                    assert_eq!(r.exit_code, 0, "{}", r.text());
                }
                1 => {
                    let cancel = CancelHandle::new();
                    let t = Instant::now();
                    let out = toolbox.call("nothing", &no_args, Some(&cancel)).unwrap();
                    tooled.push(t.elapsed());
                    assert!(!out.is_error, "{}", out.text);
                }
                _ => {
                    id += 1;
                    let t = Instant::now();
                    stdin.write_all(&call(id)).unwrap();
                    stdin.flush().unwrap();
                    line.clear();
                    stdout.read_line(&mut line).unwrap();
                    served.push(t.elapsed());
                    let v: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
                    assert_eq!(v["id"], id, "{v}");
                    assert_eq!(v["result"]["structuredContent"]["exit_code"], 0, "{v}");
                }
            }
        }
    }
    let (d, t, s, p, b) = (
        median(direct),
        median(tooled),
        median(served),
        median(pinged),
        median(bare),
    );
    let us = |x: Duration| x.as_secs_f64() * 1e6;
    println!(
        "{CALLS} sequential calls of `true` each way, interleaved call by call, order rotating:"
    );
    println!("  kernel direct (run)        median {:>8.1} µs/call", us(d));
    println!("  Toolbox::call, cancellable median {:>8.1} µs/call", us(t));
    println!(
        "  MCP tools/call over stdio  median {:>8.1} µs/call (round trip)",
        us(s)
    );
    println!(
        "  MCP ping over stdio        median {:>8.1} µs (round trip, no tool: the transport)",
        us(p)
    );
    println!(
        "  ratio MCP/kernel {:.3} (target <= 1.10); MCP/Toolbox {:.3}",
        s.as_secs_f64() / d.as_secs_f64(),
        s.as_secs_f64() / t.as_secs_f64()
    );
    println!(
        "  MCP - kernel {:.1} µs, of which the bare round trip (ping) {:.1} µs",
        us(s) - us(d),
        us(p)
    );
    println!(
        "  bare spawn by the client  median {:>8.1} µs/call (Command::output, unconfined)",
        us(b)
    );
    println!(
        "  the whole server per call (MCP round trip, confined) / bare spawn {:.3}",
        s.as_secs_f64() / b.as_secs_f64()
    );

    // 32 concurrent calls: all sent before any answer is read.
    let t = Instant::now();
    for i in 0..32 {
        stdin.write_all(&call(10_000 + i)).unwrap();
    }
    stdin.flush().unwrap();
    let mut ids = Vec::new();
    for _ in 0..32 {
        line.clear();
        stdout.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
        if v["result"]["isError"] == false {
            ids.push(v["id"].as_u64().unwrap());
        }
    }
    ids.sort_unstable();
    ids.dedup();
    println!(
        "32 concurrent calls: {}/32 completed in {:.1} ms",
        ids.len(),
        t.elapsed().as_secs_f64() * 1e3
    );

    drop(stdin);
    let status = child.wait().expect("wait for nanotool");
    assert!(status.success(), "nanotool serve exited {status}");
}
