//! Raw JSON-lines tests of the MCP server: the dispatcher in-process with hand-made tools
//! (framing, errors, both eras, paging, concurrency, cancellation, EOF), and the `nanotool
//! serve` binary end to end (stdout purity, EOF exit, killing a cancelled command's process,
//! a non-dumpable server).

mod common;

use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use nanotool::mcp::{McpServer, ServerOptions, ToolHost};
use nanotool::{CancelHandle, ExecResult, Tool, ToolContext, ToolOutput};
use serde_json::{Value, json};

/// Long enough that a hung server fails the test instead of hanging it; never a measurement.
const PATIENCE: Duration = Duration::from_secs(20);

const MODERN: &str = "2026-07-28";

// ---------------------------------------------------------------------------------------------
// Hand-made tools and host
// ---------------------------------------------------------------------------------------------

#[derive(Default)]
struct Probe {
    running: Mutex<usize>,
    changed: Condvar,
    saw_cancel: AtomicBool,
    calls: AtomicUsize,
}

enum Behaviour {
    /// Echoes its arguments as a command result.
    Echo,
    /// Refuses every call (614).
    Refuse,
    /// Blocks until cancelled.
    Block,
    /// Waits until another call runs at the same time; says whether one did.
    Overlap,
    /// Panics.
    Panic,
}

struct TestTool {
    name: String,
    behaviour: Behaviour,
    probe: Arc<Probe>,
}

impl Tool for TestTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        "a test tool"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"text": {"type": "string", "description": "any"}}, "additionalProperties": false})
    }
    fn call(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        self.probe.calls.fetch_add(1, Ordering::SeqCst);
        let ran = |output: String| ToolOutput {
            text: format!("exit: 0\noutput: {output}"),
            is_error: false,
            code: None,
            exec: Some(ExecResult {
                exit_code: 0,
                output,
                ..ExecResult::default()
            }),
            argv: None,
        };
        match self.behaviour {
            Behaviour::Echo => ran(args.to_string()),
            Behaviour::Refuse => ToolOutput {
                text: "error 614: argument `text`: not allowed; write plain words".into(),
                is_error: true,
                code: Some(614),
                exec: None,
                argv: None,
            },
            Behaviour::Block => {
                let deadline = Instant::now() + PATIENCE;
                while Instant::now() < deadline {
                    if ctx.cancel.is_some_and(|c| c.is_cancelled()) {
                        self.probe.saw_cancel.store(true, Ordering::SeqCst);
                        return ToolOutput {
                            text: "cancelled".into(),
                            is_error: true,
                            code: None,
                            exec: Some(ExecResult {
                                exit_code: 137,
                                cancelled: true,
                                ..ExecResult::default()
                            }),
                            argv: None,
                        };
                    }
                    thread::sleep(Duration::from_millis(5));
                }
                ran("never cancelled".into())
            }
            Behaviour::Overlap => {
                let mut running = self.probe.running.lock().unwrap();
                *running += 1;
                self.probe.changed.notify_all();
                let (guard, _) = self
                    .probe
                    .changed
                    .wait_timeout_while(running, PATIENCE, |r| *r < 2)
                    .unwrap();
                let overlapped = *guard >= 2;
                drop(guard);
                ran(if overlapped { "overlapped" } else { "alone" }.into())
            }
            Behaviour::Panic => panic!("deliberate test panic"),
        }
    }
}

struct TestHost {
    tools: Vec<Arc<dyn Tool>>,
    kernel: nanotool::CommandExecKernel,
}

impl ToolHost for TestHost {
    fn tools(&self) -> &[Arc<dyn Tool>] {
        &self.tools
    }
    fn call(&self, index: usize, args: &Value, cancel: &CancelHandle) -> ToolOutput {
        self.tools[index].call(
            args,
            &ToolContext {
                kernel: &self.kernel,
                cancel: Some(cancel),
            },
        )
    }
}

fn host(probe: &Arc<Probe>, extra: usize) -> Arc<TestHost> {
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    for (name, behaviour) in [
        ("echo", Behaviour::Echo),
        ("refuse", Behaviour::Refuse),
        ("block", Behaviour::Block),
        ("overlap", Behaviour::Overlap),
        ("explode", Behaviour::Panic),
    ] {
        tools.push(Arc::new(TestTool {
            name: name.into(),
            behaviour,
            probe: probe.clone(),
        }));
    }
    for i in 0..extra {
        tools.push(Arc::new(TestTool {
            name: format!("extra_{i:02}"),
            behaviour: Behaviour::Echo,
            probe: probe.clone(),
        }));
    }
    let kernel = nanotool::CommandExecKernel::new(nanotool::KernelSettings::default()).unwrap();
    Arc::new(TestHost { tools, kernel })
}

// ---------------------------------------------------------------------------------------------
// An in-process server over channels
// ---------------------------------------------------------------------------------------------

struct ChannelReader {
    rx: Receiver<Vec<u8>>,
    pending: Vec<u8>,
    pos: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos >= self.pending.len() {
            match self.rx.recv() {
                Ok(chunk) => {
                    self.pending = chunk;
                    self.pos = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.pending.len() - self.pos);
        buf[..n].copy_from_slice(&self.pending[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

struct ChannelWriter {
    tx: Sender<Vec<u8>>,
}

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let _ = self.tx.send(buf.to_vec());
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

struct Harness {
    input: Option<Sender<Vec<u8>>>,
    output: Receiver<Vec<u8>>,
    buffered: Vec<u8>,
    done: Receiver<io::Result<()>>,
}

impl Harness {
    fn start(host: Arc<TestHost>, options: ServerOptions) -> Harness {
        let (in_tx, in_rx) = mpsc::channel();
        let (out_tx, out_rx) = mpsc::channel();
        let (done_tx, done_rx) = mpsc::channel();
        thread::spawn(move || {
            let server = McpServer::new(host, options);
            let reader = ChannelReader {
                rx: in_rx,
                pending: Vec::new(),
                pos: 0,
            };
            let result = server.serve(reader, ChannelWriter { tx: out_tx });
            let _ = done_tx.send(result);
        });
        Harness {
            input: Some(in_tx),
            output: out_rx,
            buffered: Vec::new(),
            done: done_rx,
        }
    }

    fn send_raw(&self, bytes: &[u8]) {
        self.input.as_ref().unwrap().send(bytes.to_vec()).unwrap();
    }

    fn send(&self, message: Value) {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        self.send_raw(&line);
    }

    fn close(&mut self) {
        self.input = None;
    }

    /// The next line the server writes, parsed; panics after PATIENCE.
    fn recv(&mut self) -> Value {
        self.try_recv(PATIENCE)
            .expect("the server answered nothing in time")
    }

    fn try_recv(&mut self, wait: Duration) -> Option<Value> {
        let deadline = Instant::now() + wait;
        loop {
            if let Some(i) = self.buffered.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buffered.drain(..=i).collect();
                let text = std::str::from_utf8(&line[..i]).expect("stdout is UTF-8");
                return Some(serde_json::from_str(text).unwrap_or_else(|e| {
                    panic!("stdout line is not JSON ({e}): {text}");
                }));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(chunk) => self.buffered.extend_from_slice(&chunk),
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => {
                    assert!(self.buffered.is_empty(), "a partial line at the end");
                    return None;
                }
            }
        }
    }

    fn request(&mut self, message: Value) -> Value {
        self.send(message);
        self.recv()
    }

    fn wait_exit(&mut self) -> io::Result<()> {
        self.done
            .recv_timeout(PATIENCE)
            .expect("the server did not return after EOF")
    }
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "0"},
    })
}

fn req(id: Value, method: &str, mut params: Value) -> Value {
    if params.is_null() {
        params = json!({});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn modern(id: Value, method: &str, mut params: Value) -> Value {
    if params.is_null() {
        params = json!({});
    }
    params["_meta"] = modern_meta();
    req(id, method, params)
}

fn legacy_harness(probe: &Arc<Probe>) -> Harness {
    let mut h = Harness::start(host(probe, 0), ServerOptions::default());
    let init = h.request(req(
        json!(0),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    ));
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    h.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    h
}

fn error_code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}

// ---------------------------------------------------------------------------------------------
// Dispatcher tests
// ---------------------------------------------------------------------------------------------

#[test]
fn initialize_echoes_a_known_version_and_offers_the_latest_otherwise() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    let r = h.request(req(
        json!(1),
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}}),
    ));
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(r["result"]["capabilities"], json!({"tools": {}}));
    assert_eq!(r["result"]["serverInfo"]["name"], "nanotool");
    let r = h.request(req(
        json!(2),
        "initialize",
        json!({"protocolVersion": "1999-01-01", "capabilities": {}}),
    ));
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    let r = h.request(req(json!("p"), "ping", Value::Null));
    assert_eq!(r, json!({"jsonrpc": "2.0", "id": "p", "result": {}}));
}

#[test]
fn discover_answers_with_versions_capabilities_and_cache_hints() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    let r = h.request(modern(json!(1), "server/discover", Value::Null));
    let result = &r["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["supportedVersions"], json!([MODERN]));
    assert_eq!(result["capabilities"], json!({"tools": {}}));
    assert!(result["ttlMs"].as_u64().is_some());
    assert!(["public", "private"].contains(&result["cacheScope"].as_str().unwrap()));
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "nanotool"
    );
}

#[test]
fn modern_requests_need_meta_and_a_known_version() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    // No _meta and no initialize: -32602, saying what to add.
    let r = h.request(req(json!(1), "tools/list", Value::Null));
    assert_eq!(error_code(&r), -32602);
    let message = r["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("io.modelcontextprotocol/protocolVersion"),
        "{message}"
    );
    // server/discover without _meta: -32602 too.
    let r = h.request(req(json!(2), "server/discover", Value::Null));
    assert_eq!(error_code(&r), -32602);
    // A version without capabilities: -32602.
    let r = h.request(req(
        json!(3),
        "tools/list",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}),
    ));
    assert_eq!(error_code(&r), -32602);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("clientCapabilities")
    );
    // An unknown version: -32022 with what we speak and what was asked.
    let r = h.request(req(
        json!(4),
        "tools/list",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}),
    ));
    assert_eq!(error_code(&r), -32022);
    assert_eq!(
        r["error"]["data"],
        json!({"supported": [MODERN], "requested": "2099-01-01"})
    );
    // A handshake-era version is not served per request either.
    let r = h.request(req(
        json!(5),
        "server/discover",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25", "io.modelcontextprotocol/clientCapabilities": {}}}),
    ));
    assert_eq!(error_code(&r), -32022);
}

#[test]
fn malformed_frames_get_errors_and_the_server_keeps_serving() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    for (bad, code) in [
        (&b"{not json\n"[..], -32700),
        (b"\xff\xfe\n", -32700),
        (
            b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n",
            -32600,
        ),
        (b"42\n", -32600),
        (b"{\"id\":1,\"method\":\"ping\"}\n", -32600),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1}\n", -32600),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"ping\"}\n",
            -32600,
        ),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}\n", -32600),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":[1]}\n",
            -32602,
        ),
    ] {
        h.send_raw(bad);
        let r = h.recv();
        assert_eq!(
            error_code(&r),
            code,
            "for {:?}: {r}",
            String::from_utf8_lossy(bad)
        );
        assert!(!r["error"]["message"].as_str().unwrap().is_empty());
    }
    // Blank lines are ignored; the server still answers.
    h.send_raw(b"\n\r\n   \n");
    let r = h.request(req(json!(10), "ping", Value::Null));
    assert_eq!(r["id"], 10);
    assert_eq!(r["result"], json!({}));
}

#[test]
fn unknown_methods_are_method_not_found_and_notifications_get_no_answer() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    for method in [
        "resources/list",
        "prompts/list",
        "logging/setLevel",
        "subscriptions/listen",
        "nope",
    ] {
        let r = h.request(modern(json!(method), method, Value::Null));
        assert_eq!(error_code(&r), -32601, "{method}: {r}");
        assert_eq!(r["id"], method);
    }
    // Unknown notifications and a cancel for nothing: silence, then the next answer.
    h.send(json!({"jsonrpc": "2.0", "method": "notifications/whatever"}));
    h.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12345}}));
    h.send(json!({"jsonrpc": "2.0", "id": 5, "result": {}}));
    let r = h.request(req(json!(6), "ping", Value::Null));
    assert_eq!(r["id"], 6);
}

#[test]
fn oversized_lines_are_refused_without_ending_the_session() {
    let probe = Arc::new(Probe::default());
    let options = ServerOptions {
        max_line_bytes: 1024,
        ..ServerOptions::default()
    };
    let mut h = Harness::start(host(&probe, 0), options);
    // 64 KiB in pieces, no newline until the end.
    for _ in 0..64 {
        h.send_raw(&[b'x'; 1024]);
    }
    h.send_raw(b"\n");
    let r = h.recv();
    assert_eq!(error_code(&r), -32600);
    assert_eq!(r["id"], Value::Null);
    assert!(r["error"]["message"].as_str().unwrap().contains("1024"));
    let r = h.request(req(json!(1), "ping", Value::Null));
    assert_eq!(r["id"], 1);
}

#[test]
fn tools_list_pages_in_a_fixed_order_with_an_opaque_cursor() {
    let probe = Arc::new(Probe::default());
    let options = ServerOptions {
        page_size: 4,
        ..ServerOptions::default()
    };
    let mut h = Harness::start(host(&probe, 9), options);
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut params = json!({});
        if let Some(c) = &cursor {
            params["cursor"] = json!(c);
        }
        let r = h.request(modern(json!(pages), "tools/list", params));
        let result = &r["result"];
        assert_eq!(result["resultType"], "complete");
        assert!(result["ttlMs"].as_u64().is_some(), "{result}");
        assert!(result["cacheScope"].is_string());
        let tools = result["tools"].as_array().unwrap();
        assert!(tools.len() <= 4);
        for t in tools {
            names.push(t["name"].as_str().unwrap().to_owned());
            assert_eq!(t["inputSchema"]["type"], "object");
            assert_eq!(
                t["outputSchema"]["required"],
                json!(["exit_code", "output", "truncated", "timed_out", "confined"])
            );
        }
        pages += 1;
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, 4);
    let mut expected = vec!["echo", "refuse", "block", "overlap", "explode"]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
    expected.extend((0..9).map(|i| format!("extra_{i:02}")));
    assert_eq!(names, expected);
    // The same first page twice.
    let a = h.request(modern(json!("a"), "tools/list", Value::Null));
    let b = h.request(modern(json!("b"), "tools/list", Value::Null));
    assert_eq!(a["result"]["tools"], b["result"]["tools"]);
    // Bad cursors: -32602 saying what to send.
    for bad in [
        json!("nonsense"),
        json!("nt1.ff.0000000000000000"),
        json!(17),
        json!(""),
    ] {
        let r = h.request(modern(json!("bad"), "tools/list", json!({"cursor": bad})));
        assert_eq!(error_code(&r), -32602, "{bad}: {r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("nextCursor")
        );
    }
}

#[test]
fn legacy_results_carry_no_modern_fields() {
    let probe = Arc::new(Probe::default());
    let mut h = legacy_harness(&probe);
    let r = h.request(req(json!(1), "tools/list", Value::Null));
    assert!(r["result"]["tools"].is_array());
    assert!(r["result"].get("resultType").is_none());
    assert!(r["result"].get("ttlMs").is_none());
    let r = h.request(req(
        json!(2),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    ));
    assert_eq!(r["result"]["isError"], false);
    assert!(r["result"].get("resultType").is_none());
    // A request that repeats the negotiated version in `_meta` keeps the handshake rules.
    let r = h.request(req(
        json!(3),
        "tools/list",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25"}}),
    ));
    assert!(r["result"]["tools"].is_array(), "{r}");
    assert!(r["result"].get("resultType").is_none(), "{r}");
}

#[test]
fn tools_call_results_errors_and_refusals() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    // A good call: text content and structured content matching the output schema.
    let r = h.request(modern(
        json!(1),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    ));
    let result = &r["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["isError"], false);
    assert_eq!(result["content"][0]["type"], "text");
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("hi")
    );
    assert_eq!(
        result["structuredContent"],
        json!({"exit_code": 0, "output": "{\"text\":\"hi\"}", "truncated": false, "timed_out": false, "confined": false})
    );
    // Arguments left out: an empty object.
    let r = h.request(modern(json!(2), "tools/call", json!({"name": "echo"})));
    assert_eq!(r["result"]["structuredContent"]["output"], "{}");
    // A refusal: isError, the 614 text, no structured content.
    let r = h.request(modern(
        json!(3),
        "tools/call",
        json!({"name": "refuse", "arguments": {"text": "x"}}),
    ));
    assert_eq!(r["result"]["isError"], true);
    assert!(
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("614")
    );
    assert!(r["result"].get("structuredContent").is_none());
    // Unknown tool: -32602 with the closest names.
    let r = h.request(modern(json!(4), "tools/call", json!({"name": "ecko"})));
    assert_eq!(error_code(&r), -32602);
    assert!(r["error"]["message"].as_str().unwrap().contains("`echo`"));
    assert_eq!(r["error"]["data"]["closest"], json!(["echo"]));
    // Bad params: -32602 each, saying what to write.
    for params in [
        json!({}),
        json!({"name": 5}),
        json!({"name": "echo", "arguments": [1, 2]}),
        json!({"name": "echo", "arguments": "text=hi"}),
    ] {
        let r = h.request(modern(json!(5), "tools/call", params.clone()));
        assert_eq!(error_code(&r), -32602, "{params}: {r}");
    }
    // A tool that panics: an internal error for that call, and the server lives on.
    let r = h.request(modern(json!(6), "tools/call", json!({"name": "explode"})));
    assert_eq!(error_code(&r), -32603);
    let r = h.request(modern(json!(7), "tools/call", json!({"name": "echo"})));
    assert_eq!(r["result"]["isError"], false);
}

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
            r["result"]["structuredContent"]["output"], "overlapped",
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
                r["result"]["structuredContent"]["output"],
                json!({"text": format!("call {id}")}).to_string()
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

// ---------------------------------------------------------------------------------------------
// The `nanotool serve` binary
// ---------------------------------------------------------------------------------------------

use common::bin::nanotool_bin;

struct Served {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Served {
    fn start(work: &Path, cwd: &Path, configure: impl FnOnce(&mut Command)) -> Served {
        let mut cmd = Command::new(nanotool_bin());
        cmd.arg("serve")
            .arg("--work")
            .arg(work)
            .arg("--cwd")
            .arg(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        configure(&mut cmd);
        let mut child = cmd.spawn().expect("start nanotool serve");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Served {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next stdout line: it must be one JSON-RPC message.
    fn recv(&mut self) -> Value {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).unwrap();
        assert!(n > 0, "stdout ended");
        let v: Value = serde_json::from_str(line.trim_end_matches('\n'))
            .unwrap_or_else(|e| panic!("stdout carries something other than JSON ({e}): {line:?}"));
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        v
    }

    fn request(&mut self, message: Value) -> Value {
        self.send(&message);
        self.recv()
    }

    /// Closes stdin, waits for the exit, and returns (status, rest of stdout, stderr).
    fn finish(mut self) -> (std::process::ExitStatus, String, String) {
        drop(self.stdin.take());
        let (tx, rx) = mpsc::channel();
        let mut child = self.child;
        let mut stdout = self.stdout;
        thread::spawn(move || {
            let mut rest = String::new();
            let _ = stdout.read_to_string(&mut rest);
            let mut err = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            let status = child.wait().unwrap();
            let _ = tx.send((status, rest, err));
        });
        rx.recv_timeout(PATIENCE)
            .expect("nanotool serve did not exit after stdin closed")
    }
}

fn tools_dir(descriptors: &[(&str, Value)]) -> tempfile::TempDir {
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir(work.path().join("tools")).unwrap();
    for (name, body) in descriptors {
        std::fs::write(
            work.path().join("tools").join(format!("{name}.tool.json")),
            serde_json::to_string_pretty(body).unwrap(),
        )
        .unwrap();
    }
    work
}

fn sleep_descriptor() -> (&'static str, Value) {
    (
        "sleep",
        json!({
            "name": "sleep",
            "description": "Sleep a while",
            "command": "sleep <seconds>",
            "arguments": {"seconds": {"type": "integer", "description": "Seconds to sleep", "minimum": 0, "maximum": 3600}}
        }),
    )
}

fn true_descriptor() -> (&'static str, Value) {
    (
        "true",
        json!({"name": "nothing", "description": "Do nothing, successfully", "command": "true"}),
    )
}

/// Processes whose parent is `pid` and whose command line starts with `argv0`.
fn children_named(pid: u32, argv0: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(child) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let ppid: u32 = after
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        if ppid != pid {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{child}/cmdline")).unwrap_or_default();
        if cmdline.split(|&b| b == 0).next() == Some(argv0.as_bytes()) {
            found.push(child);
        }
    }
    found
}

fn process_alive(pid: u32) -> bool {
    // A zombie is dead for our purpose (it will be reaped); check the state letter.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rfind(')')
            .and_then(|i| stat[i + 2..].chars().next())
            .is_some_and(|state| state != 'Z' && state != 'X'),
        Err(_) => false,
    }
}

#[test]
fn binary_speaks_both_eras_and_keeps_stdout_pure() {
    let work = tools_dir(&[true_descriptor()]);
    let cwd = tempfile::tempdir().unwrap();
    let mut s = Served::start(work.path(), cwd.path(), |_| {});
    let r = s.request(modern(json!(1), "server/discover", Value::Null));
    assert_eq!(r["result"]["supportedVersions"], json!([MODERN]));
    let r = s.request(modern(json!(2), "tools/list", Value::Null));
    let names: Vec<&str> = r["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["grep", "find", "sed_print", "nothing"]);
    let r = s.request(modern(json!(3), "tools/call", json!({"name": "nothing"})));
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(r["result"]["structuredContent"]["exit_code"], 0);
    // Garbage in between, then the handshake era on the same process.
    s.send(&json!("just a string"));
    assert_eq!(error_code(&s.recv()), -32600);
    let r = s.request(req(
        json!(4),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
    ));
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let r = s.request(req(
        json!(5),
        "tools/call",
        json!({"name": "grep", "arguments": {"pattern": "x", "path": "../.."}}),
    ));
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(r["result"].get("structuredContent").is_none());
    let (status, rest, stderr) = s.finish();
    assert!(status.success(), "exit {status}; stderr: {stderr}");
    assert!(rest.is_empty(), "stdout after the last answer: {rest:?}");
    // The audit trail went to stderr.
    assert!(stderr.contains("nothing"), "{stderr}");
    assert!(stderr.contains("refused"), "{stderr}");
}

#[test]
fn binary_marks_a_failed_command_as_an_error_with_its_structured_result() {
    // A failed command is `isError: true`, and still carries `structuredContent`
    // (its exit code and output), unlike a refused call.
    let work = tools_dir(&[
        true_descriptor(),
        (
            "false",
            json!({"name": "fail", "description": "Fail", "command": "false"}),
        ),
        (
            "wc",
            json!({"name": "count_lines", "description": "Count lines", "command": "wc -l <file>",
                   "arguments": {"file": {"type": "path", "description": "File"}}}),
        ),
    ]);
    let cwd = tempfile::tempdir().unwrap();
    let mut s = Served::start(work.path(), cwd.path(), |_| {});
    let r = s.request(req(
        json!(1),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
    ));
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let r = s.request(req(json!(2), "tools/call", json!({"name": "fail"})));
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert_eq!(r["result"]["structuredContent"]["exit_code"], 1, "{r}");
    assert_eq!(r["result"]["structuredContent"]["timed_out"], false, "{r}");
    let r = s.request(req(
        json!(3),
        "tools/call",
        json!({"name": "count_lines", "arguments": {"file": "no-such-file"}}),
    ));
    assert_eq!(r["result"]["isError"], true, "{r}");
    let sc = &r["result"]["structuredContent"];
    assert_ne!(sc["exit_code"], 0, "{r}");
    assert!(
        sc["output"].as_str().unwrap().contains("no-such-file"),
        "{r}"
    );
    let r = s.request(req(json!(4), "tools/call", json!({"name": "nothing"})));
    assert_eq!(r["result"]["isError"], false, "{r}");
    let (status, _, stderr) = s.finish();
    assert!(status.success(), "exit {status}; stderr: {stderr}");
}

#[test]
fn binary_runs_32_concurrent_calls_and_exits_on_eof_after_them() {
    let work = tools_dir(&[true_descriptor()]);
    let cwd = tempfile::tempdir().unwrap();
    let mut s = Served::start(work.path(), cwd.path(), |_| {});
    for i in 0..32 {
        s.send(&modern(json!(i), "tools/call", json!({"name": "nothing"})));
    }
    let (status, rest, stderr) = s.finish();
    assert!(status.success(), "exit {status}; stderr: {stderr}");
    let mut ids: Vec<i64> = rest
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("one JSON message per line");
            assert_eq!(v["result"]["isError"], false, "{v}");
            v["id"].as_i64().unwrap()
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..32).collect::<Vec<_>>());
}

#[test]
fn binary_cancellation_kills_the_command() {
    let work = tools_dir(&[sleep_descriptor()]);
    let cwd = tempfile::tempdir().unwrap();
    let mut s = Served::start(work.path(), cwd.path(), |_| {});
    let server_pid = s.child.id();
    s.send(&modern(
        json!("nap"),
        "tools/call",
        json!({"name": "sleep", "arguments": {"seconds": 600}}),
    ));
    let deadline = Instant::now() + PATIENCE;
    let sleeper = loop {
        if let Some(&pid) = children_named(server_pid, "sleep").first() {
            break pid;
        }
        assert!(Instant::now() < deadline, "the sleep never started");
        thread::sleep(Duration::from_millis(10));
    };
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "nap"}}));
    let deadline = Instant::now() + PATIENCE;
    while process_alive(sleeper) {
        assert!(
            Instant::now() < deadline,
            "sleep {sleeper} still runs after the cancel"
        );
        thread::sleep(Duration::from_millis(10));
    }
    // No response for the cancelled call: the next line answers the ping.
    let r = s.request(req(json!("after"), "ping", Value::Null));
    assert_eq!(r["id"], "after");
    let (status, rest, _) = s.finish();
    assert!(status.success());
    assert!(rest.is_empty(), "{rest}");
}

#[test]
fn binary_is_not_dumpable_so_tools_cannot_read_its_environment() {
    let work = tools_dir(&[(
        "cat",
        json!({"name": "cat", "description": "Print a file", "command": "cat <file>",
               "arguments": {"file": {"type": "string", "description": "File to print"}}}),
    )]);
    let cwd = tempfile::tempdir().unwrap();
    // The server and its tools must not be root: root reads any process's environ.
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let world_readable = |p: &Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    if root {
        for p in [work.path(), &work.path().join("tools"), cwd.path()] {
            world_readable(p);
        }
        for entry in std::fs::read_dir(work.path().join("tools")).unwrap() {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(
                entry.unwrap().path(),
                std::fs::Permissions::from_mode(0o644),
            )
            .unwrap();
        }
    }
    let mut s = Served::start(work.path(), cwd.path(), |cmd| {
        cmd.env("NANOTOOL_TEST_SECRET", "hunter2-secret-value");
        if root {
            use std::os::unix::process::CommandExt;
            cmd.uid(65534).gid(65534);
        }
    });
    let pid = s.child.id();
    let r = s.request(modern(
        json!(1),
        "tools/call",
        json!({"name": "cat", "arguments": {"file": format!("/proc/{pid}/environ")}}),
    ));
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        !text.contains("hunter2"),
        "a tool read the server's environment: {text}"
    );
    assert_eq!(r["result"]["structuredContent"]["exit_code"], 1, "{r}");
    assert!(text.contains("Permission denied"), "{text}");
    let (status, _, stderr) = s.finish();
    assert!(status.success(), "{stderr}");
}

#[test]
fn binary_on_sigterm_kills_running_commands_and_exits() {
    let work = tools_dir(&[sleep_descriptor()]);
    let cwd = tempfile::tempdir().unwrap();
    // The commands' private temp dir is made under the server's TMPDIR: it must go too.
    let tmp = tempfile::tempdir().unwrap();
    let mut s = Served::start(work.path(), cwd.path(), |cmd| {
        cmd.env("TMPDIR", tmp.path());
    });
    let server_pid = s.child.id();
    s.send(&modern(
        json!(1),
        "tools/call",
        json!({"name": "sleep", "arguments": {"seconds": 600}}),
    ));
    let deadline = Instant::now() + PATIENCE;
    let sleeper = loop {
        if let Some(&pid) = children_named(server_pid, "sleep").first() {
            break pid;
        }
        assert!(Instant::now() < deadline, "the sleep never started");
        thread::sleep(Duration::from_millis(10));
    };
    // SAFETY: kill(2) on a child we started and have not reaped.
    assert_eq!(unsafe { libc::kill(server_pid as i32, libc::SIGTERM) }, 0);
    let (tx, rx) = mpsc::channel();
    let mut child = s.child;
    thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = rx
        .recv_timeout(PATIENCE)
        .expect("nanotool serve did not exit on SIGTERM")
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        status.code(),
        Some(128 + libc::SIGTERM),
        "{status:?} {:?}",
        status.signal()
    );
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        left.is_empty(),
        "the private temp dir outlived the server: {left:?}"
    );
    // The sleep's process group was killed, not orphaned.
    let deadline = Instant::now() + PATIENCE;
    while process_alive(sleeper) {
        assert!(
            Instant::now() < deadline,
            "sleep {sleeper} outlived the server"
        );
        thread::sleep(Duration::from_millis(10));
    }
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

// ---------------------------------------------------------------------------------------------
// One client must not stall or bloat the server
// ---------------------------------------------------------------------------------------------

/// The serialized size of a reply, in bytes.
fn reply_len(v: &Value) -> usize {
    v.to_string().len()
}

#[test]
fn an_unknown_tool_name_of_four_million_characters_gets_a_short_answer_and_no_suggestions() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 40), ServerOptions::default());
    let name = "x".repeat(4_000_000);
    h.send(modern(json!(1), "tools/call", json!({"name": name})));
    // A ping right behind it is answered too.
    h.send(req(json!("p"), "ping", Value::Null));
    let r = h.recv();
    assert_eq!(r["id"], 1, "{}", &r.to_string()[..200.min(reply_len(&r))]);
    assert_eq!(error_code(&r), -32602);
    assert!(
        reply_len(&r) < 16 * 1024,
        "the reply echoes the name whole: {} bytes",
        reply_len(&r)
    );
    assert_eq!(r["error"]["data"]["closest"], json!([]));
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("4000000"), "{message}");
    let r = h.recv();
    assert_eq!(r["id"], "p");
    // A name longer than any tool name can be gets no suggestions, even when it contains one.
    let r = h.request(modern(
        json!(2),
        "tools/call",
        json!({"name": format!("echo{}", "o".repeat(100))}),
    ));
    assert_eq!(r["error"]["data"]["closest"], json!([]), "{r}");
    // A near miss still gets its suggestion.
    let r = h.request(modern(json!(3), "tools/call", json!({"name": "ecoh"})));
    assert_eq!(r["error"]["data"]["closest"], json!(["echo"]), "{r}");
    assert_eq!(probe.calls.load(Ordering::SeqCst), 0);
}

#[test]
fn suggestion_work_is_bounded_by_the_longest_tool_name() {
    // Cheap whatever the length: no edit distance over a name longer than any tool's.
    let names = ["grep", "find", "sed_print"];
    let long = "g".repeat(1_000_000);
    assert!(nanotool_runtime::hint::closest(&long, names).is_empty());
    assert!(nanotool_runtime::hint::closest(&format!("grep{}", "x".repeat(70)), names).is_empty());
    assert_eq!(nanotool_runtime::hint::closest("gerp", names), vec!["grep"]);
}

#[test]
fn a_frame_with_a_duplicate_key_is_refused_and_runs_nothing() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    h.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"method\":\"tools/list\"}\n");
    let r = h.recv();
    assert_eq!(error_code(&r), -32600, "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("`method`"), "{message}");
    assert!(message.contains("twice"), "{message}");
    // Nested too: two tool names, or two values of one argument.
    h.send_raw(
        format!(
            "{}\n",
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","name":"refuse","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#
        )
        .as_bytes(),
    );
    assert_eq!(error_code(&h.recv()), -32600);
    h.send_raw(
        format!(
            "{}\n",
            r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","text":"b"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#
        )
        .as_bytes(),
    );
    assert_eq!(error_code(&h.recv()), -32600);
    assert_eq!(probe.calls.load(Ordering::SeqCst), 0);
    // The session goes on.
    let r = h.request(req(json!(12), "ping", Value::Null));
    assert_eq!(r["result"], json!({}));
}

#[test]
fn queued_and_running_requests_are_held_within_a_byte_budget() {
    let probe = Arc::new(Probe::default());
    let options = ServerOptions {
        workers: 2,
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

/// Lines from a child's stdout, through a channel, so a test can wait with a limit.
fn stdout_lines(stdout: BufReader<ChildStdout>) -> Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { return };
            let v: Value = serde_json::from_str(&line).expect("stdout carries JSON-RPC only");
            if tx.send(v).is_err() {
                return;
            }
        }
    });
    rx
}

#[test]
fn binary_answers_every_call_while_nobody_reads_its_stderr() {
    let work = tools_dir(&[]);
    let cwd = tempfile::tempdir().unwrap();
    // stderr is a pipe this test never reads until the end.
    let mut child = Command::new(nanotool_bin())
        .arg("serve")
        .arg("--work")
        .arg(work.path())
        .arg("--cwd")
        .arg(cwd.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let replies = stdout_lines(BufReader::new(child.stdout.take().unwrap()));
    let big = "b".repeat(4_000_000);
    for id in 1..=3 {
        // Refused (an unknown argument); the refusal is logged at WARN.
        let call = modern(
            json!(id),
            "tools/call",
            json!({"name": "grep", "arguments": {"pattern": "x", "junk": big}}),
        );
        writeln!(stdin, "{call}").unwrap();
    }
    writeln!(stdin, "{}", modern(json!(4), "tools/list", Value::Null)).unwrap();
    stdin.flush().unwrap();
    let mut ids = Vec::new();
    for _ in 0..4 {
        let r = replies
            .recv_timeout(PATIENCE)
            .expect("the server stopped answering while its stderr is full");
        if r["id"] != 4 {
            assert_eq!(r["result"]["isError"], true, "{}", &r.to_string()[..200]);
        }
        ids.push(r["id"].as_i64().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3, 4]);
    drop(stdin);
    // Now drain stderr: its lines are bounded, the arguments shortened with their length.
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut err = String::new();
        let _ = stderr.read_to_string(&mut err);
        let _ = tx.send(err);
    });
    let err = rx.recv_timeout(PATIENCE).expect("stderr ends");
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    for line in err.lines() {
        assert!(line.len() < 16 * 1024, "a log line of {} bytes", line.len());
    }
}
