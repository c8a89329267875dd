//! What the MCP tests share: hand-made tools and a host that records what ran ([`Probe`]),
//! and an in-process server driven over channels ([`Harness`]), with the JSON-RPC helpers;
//! the official Python SDK's clients and what they call ([`run_sdk_client`]); the `nanotool`
//! binary's path comes from the workspace's shared helpers ([`bin`]).

#[path = "../common/bin.rs"]
pub(crate) mod bin;

use std::ffi::OsStr;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use nanotool::mcp::{McpServer, ServerOptions, ToolHost};
use nanotool::{CancelHandle, ExecResult, Tool, ToolContext, ToolOutput};
use serde_json::{Value, json};

/// Long enough that a hung server fails the test instead of hanging it; never a measurement.
pub(crate) const PATIENCE: Duration = Duration::from_secs(20);

pub(crate) const MODERN: &str = "2026-07-28";

#[derive(Default)]
pub(crate) struct Probe {
    pub(crate) running: Mutex<usize>,
    pub(crate) changed: Condvar,
    pub(crate) saw_cancel: AtomicBool,
    pub(crate) calls: AtomicUsize,
}

pub(crate) enum Behaviour {
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

pub(crate) struct TestTool {
    pub(crate) name: String,
    pub(crate) behaviour: Behaviour,
    pub(crate) probe: Arc<Probe>,
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
        let ran = |output: String| {
            ToolOutput::from_exec(ExecResult {
                exit_code: 0,
                output,
                ..ExecResult::default()
            })
        };
        match self.behaviour {
            Behaviour::Echo => ran(args.to_string()),
            Behaviour::Refuse => ToolOutput {
                text: "error 614: argument `text`: not allowed; write plain words".into(),
                is_error: true,
                code: Some(614),
                exit_meaning: None,
                exec: None,
                output_at: None,
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
                            exit_meaning: None,
                            exec: Some(ExecResult {
                                exit_code: 137,
                                cancelled: true,
                                ..ExecResult::default()
                            }),
                            output_at: None,
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

pub(crate) struct TestHost {
    pub(crate) tools: Vec<Arc<dyn Tool>>,
    pub(crate) kernel: nanotool::CommandExecKernel,
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

pub(crate) fn host(probe: &Arc<Probe>, extra: usize) -> Arc<TestHost> {
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

pub(crate) struct ChannelReader {
    pub(crate) rx: Receiver<Vec<u8>>,
    pub(crate) pending: Vec<u8>,
    pub(crate) pos: usize,
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

pub(crate) struct ChannelWriter {
    pub(crate) tx: Sender<Vec<u8>>,
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

pub(crate) struct Harness {
    pub(crate) input: Option<Sender<Vec<u8>>>,
    pub(crate) output: Receiver<Vec<u8>>,
    pub(crate) buffered: Vec<u8>,
    pub(crate) done: Receiver<io::Result<()>>,
}

impl Harness {
    pub(crate) fn start(host: Arc<TestHost>, options: ServerOptions) -> Harness {
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

    pub(crate) fn send_raw(&self, bytes: &[u8]) {
        self.input.as_ref().unwrap().send(bytes.to_vec()).unwrap();
    }

    pub(crate) fn send(&self, message: Value) {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        self.send_raw(&line);
    }

    pub(crate) fn close(&mut self) {
        self.input = None;
    }

    /// The next line the server writes, parsed; panics after PATIENCE.
    pub(crate) fn recv(&mut self) -> Value {
        self.try_recv(PATIENCE)
            .expect("the server answered nothing in time")
    }

    pub(crate) fn try_recv(&mut self, wait: Duration) -> Option<Value> {
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

    pub(crate) fn request(&mut self, message: Value) -> Value {
        self.send(message);
        self.recv()
    }

    pub(crate) fn wait_exit(&mut self) -> io::Result<()> {
        self.done
            .recv_timeout(PATIENCE)
            .expect("the server did not return after EOF")
    }
}

pub(crate) fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "0"},
    })
}

pub(crate) fn req(id: Value, method: &str, mut params: Value) -> Value {
    if params.is_null() {
        params = json!({});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

pub(crate) fn modern(id: Value, method: &str, mut params: Value) -> Value {
    if params.is_null() {
        params = json!({});
    }
    params["_meta"] = modern_meta();
    req(id, method, params)
}

pub(crate) fn legacy_harness(probe: &Arc<Probe>) -> Harness {
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

pub(crate) fn error_code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}

/// The serialized size of a reply, in bytes.
pub(crate) fn reply_len(v: &Value) -> usize {
    v.to_string().len()
}

/// The python with the official MCP SDK the real-client tests drive: `NANOTOOL_TEST_PYTHON`,
/// which `scripts/test` sets after installing `mcp` 2.3.0 in `.venv`. Without it these tests
/// fail and say so (they never skip).
pub(crate) fn sdk_python() -> PathBuf {
    match std::env::var_os("NANOTOOL_TEST_PYTHON") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => panic!(
            "NANOTOOL_TEST_PYTHON is not set: these tests drive the server with the official MCP \
             Python SDK. Run scripts/test (it creates .venv, installs mcp==2.3.0 and sets the \
             variable), or set NANOTOOL_TEST_PYTHON to a python that has `mcp` 2.3.0 installed."
        ),
    }
}

/// What the SDK clients call: a `sleep <seconds>` descriptor written in `tools`, and a cwd
/// holding `hay.txt`, a file to find.
pub(crate) fn sleep_tool_and_haystack(tools: &Path) -> tempfile::TempDir {
    std::fs::write(
        tools.join("sleep.tool.json"),
        r#"{
  "name": "sleep",
  "description": "Sleep a number of seconds",
  "command": "sleep <seconds>",
  "arguments": {
    "seconds": { "type": "integer", "description": "Seconds to sleep", "minimum": 0, "maximum": 3600 }
  }
}
"#,
    )
    .unwrap();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(
        cwd.path().join("hay.txt"),
        "hay\nneedle in a haystack\nhay\n",
    )
    .unwrap();
    cwd
}

/// Runs the SDK client `tests/python/<script>` with `args` under [`sdk_python`]; it must
/// succeed and print `ok: <ok>`.
pub(crate) fn run_sdk_client(script: &str, args: &[&OsStr], ok: &str) {
    let python = sdk_python();
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(script);
    let out = Command::new(&python)
        .arg(&script)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{} failed ({ok}): {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        script.display(),
        out.status
    );
    assert!(stdout.contains(&format!("ok: {ok}")), "{stdout}");
}
