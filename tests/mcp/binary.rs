//! The `nanotool serve` binary end to end: stdout carries only protocol messages, EOF and
//! SIGTERM end it after (or by killing) the commands it runs, a cancelled command's process
//! is killed, the server is not dumpable, and nobody reading its stderr never stalls it.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::bin::nanotool_bin;
use crate::common::{MODERN, PATIENCE, error_code, modern, req};

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
    // By default a result is its text alone: what Claude Code and Codex show the model.
    assert_eq!(
        r["result"]["content"][0]["text"], "exit: 0\noutput: ",
        "{r}"
    );
    assert!(r["result"].get("structuredContent").is_none(), "{r}");
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
    // Structured results are asked for.
    let mut s = Served::start(work.path(), cwd.path(), |cmd| {
        cmd.arg("--structured-content");
    });
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
    assert!(text.starts_with("exit: 1\n"), "{r}");
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
    // Only the user's own folder (`nanotool-<uid>`, kept like `/run/user/<uid>`) may stay,
    // and nothing of the server's inside it.
    // SAFETY: geteuid cannot fail.
    let own = format!("nanotool-{}", unsafe { libc::geteuid() });
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .flat_map(|p| {
            if p.file_name().is_some_and(|n| n == own.as_str()) {
                std::fs::read_dir(&p)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .collect()
            } else {
                vec![p]
            }
        })
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

/// Under a 1,024-file limit, 20,000 pipelined calls each get one answer: a result, or a
/// "server busy" error saying to retry; none fails for want of a file descriptor (a queued
/// call holds none).
#[test]
fn twenty_thousand_pipelined_calls_under_a_small_fd_limit() {
    use std::os::unix::process::CommandExt;
    const CALLS: usize = 20_000;
    let work = tools_dir(&[true_descriptor()]);
    let cwd = tempfile::tempdir().unwrap();
    let mut served = Served::start(work.path(), cwd.path(), |cmd| {
        // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                let limit = libc::rlimit {
                    rlim_cur: 1024,
                    rlim_max: 1024,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    });
    let mut stdin = served.stdin.take().unwrap();
    let writer = thread::spawn(move || {
        let mut batch = String::new();
        for i in 0..CALLS {
            let call = modern(json!(i), "tools/call", json!({"name": "nothing"}));
            batch.push_str(&call.to_string());
            batch.push('\n');
        }
        stdin.write_all(batch.as_bytes()).unwrap();
        stdin.flush().unwrap();
        stdin
    });
    let mut seen = vec![false; CALLS];
    let (mut results, mut busy) = (0, 0);
    for _ in 0..CALLS {
        let reply = served.recv();
        let text = reply.to_string();
        assert!(
            !text.contains("Too many open files") && !text.contains("EMFILE"),
            "a call failed for want of a file descriptor: {text}"
        );
        let id = reply["id"].as_u64().expect("every reply names its call") as usize;
        assert!(!seen[id], "a second reply to call {id}");
        seen[id] = true;
        if reply.get("result").is_some() {
            assert_eq!(reply["result"]["isError"], false, "{text}");
            results += 1;
        } else {
            let message = reply["error"]["message"].as_str().unwrap();
            assert!(
                message.contains("busy") && message.contains("retry"),
                "{text}"
            );
            busy += 1;
        }
    }
    assert!(results > 0, "no call ran");
    eprintln!("{results} results, {busy} busy");
    served.stdin = Some(writer.join().unwrap());
    let (status, rest, _) = served.finish();
    assert!(status.success(), "{status:?}");
    assert_eq!(rest, "", "nothing after the last reply");
}
