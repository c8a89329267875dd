//! The toolchains a team gives a coding agent, run confined as a new user runs them: npm, pip,
//! Python's test runners and the project's own modules, cargo, git against a remote over
//! loopback, a test suite serving on 127.0.0.1 under `"network": "local"`, and a linter that
//! writes a cache in a read-only tool (which fails, and says why and what would allow it).
//! Every tool is a descriptor loaded by the loader and called through the one validator and a
//! real kernel.
//!
//! A row whose binary (or module) is not installed here is skipped and named: `go vet` when
//! there is no `go`, `python3 -m pytest` when pytest cannot be imported (it is not installed
//! offline: no venv can fetch it here).

use nanotool_runtime::{
    CODE_INVALID_DESCRIPTOR, CommandExecKernel, CommandTool, DescriptorLoader, KernelSettings,
    Tool, ToolContext, ToolOutput,
};
use serde_json::{Value, json};
use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn load(descriptor: Value) -> Result<CommandTool, nanotool_runtime::DescriptorError> {
    let name = descriptor["name"].as_str().unwrap().to_owned();
    DescriptorLoader::new()
        .parse(
            Path::new(&format!("{name}.tool.json")),
            &serde_json::to_vec(&descriptor).unwrap(),
        )
        .map(CommandTool::new)
}

fn tool(name: &str, command: &str, extra: Value) -> CommandTool {
    let mut d =
        json!({"name": name, "description": format!("The {name} tool"), "command": command});
    for (k, v) in extra.as_object().unwrap() {
        d[k] = v.clone();
    }
    load(d).unwrap_or_else(|e| panic!("`{name}` ({command}) must load: {e}"))
}

/// Whether `binary` is on this process's PATH.
fn has(binary: &str) -> bool {
    Command::new(binary)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A kernel in `root` whose commands may read the toolchains the rows' binaries resolve to
/// (a host adds them with `--sandbox-read`: rustup's `~/.cargo` and `~/.rustup`, pyenv).
fn kernel(root: &Path, binaries: &[&str]) -> CommandExecKernel {
    let settings = KernelSettings {
        cwd: root.to_path_buf(),
        max_output: 64 * 1024,
        ..KernelSettings::default()
    };
    let probe = CommandExecKernel::new(settings.clone()).unwrap();
    let mut read: Vec<PathBuf> = Vec::new();
    for binary in binaries {
        for path in probe
            .unreadable_binary(binary)
            .map(|u| u.add)
            .unwrap_or_default()
        {
            if !read.contains(&path) {
                read.push(path);
            }
        }
    }
    CommandExecKernel::new(KernelSettings {
        sandbox_read: read,
        ..settings
    })
    .unwrap()
}

fn call(kernel: &CommandExecKernel, tool: &CommandTool, args: Value) -> ToolOutput {
    tool.call(
        &args,
        &ToolContext {
            kernel,
            cancel: None,
        },
    )
}

fn exit_and_output(out: &ToolOutput) -> (i32, String) {
    let exec = out
        .exec
        .as_ref()
        .unwrap_or_else(|| panic!("no command ran: {}", out.text));
    (exec.exit_code, exec.output.clone())
}

/// Asserts the call ran confined, exited 0 and printed `want`.
fn passes(kernel: &CommandExecKernel, what: &str, out: &ToolOutput, want: &str) {
    let (code, output) = exit_and_output(out);
    assert_eq!(code, 0, "{what}: {}", out.text);
    assert!(
        output.contains(want),
        "{what}: `{want}` not in {}",
        out.text
    );
    if kernel.sandbox_status().enforced() {
        assert!(out.exec.as_ref().unwrap().confined, "{what} ran unconfined");
    }
}

/// A workspace with a Python project: a package, tests, scripts with siblings, a planted
/// `json.py`.
fn python_project(root: &Path) {
    write(root, "report.py", "def total(xs):\n    return sum(xs)\n");
    write(root, "tests/__init__.py", "");
    write(
        root,
        "tests/test_report.py",
        "import unittest\nimport report\n\nclass T(unittest.TestCase):\n    def test_total(self):\n        self.assertEqual(report.total([1, 2]), 3)\n",
    );
    write(root, "myapp/__init__.py", "");
    write(
        root,
        "myapp/__main__.py",
        "from myapp import core\nprint(core.greeting())\n",
    );
    write(
        root,
        "myapp/core.py",
        "def greeting():\n    return 'myapp-ran'\n",
    );
    write(root, "scripts/helper.py", "VALUE = 'sibling-imported'\n");
    write(
        root,
        "scripts/report.py",
        "import helper\nprint(helper.VALUE)\n",
    );
    // The planted module: `python3 -m json.tool` must never import it.
    write(
        root,
        "json.py",
        "print('PLANTED-JSON-RAN')\nimport sys\nsys.exit(0)\n",
    );
    write(root, "data.json", "{\"a\": [1, 2]}\n");
    // A linter that keeps a cache in the workspace, as ruff, mypy and pytest do.
    write(
        root,
        "tools/lint.py",
        "import os\nos.makedirs('.lint_cache', exist_ok=True)\nopen('.lint_cache/state', 'w').write('x')\nprint('lint ok')\n",
    );
}

#[test]
fn python_runs_the_projects_code_and_never_a_planted_stdlib_module() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    python_project(root);
    let k = kernel(root, &["python3"]);
    let unittest = tool(
        "unit_tests",
        "python3 -m unittest -v tests.test_report",
        json!({}),
    );
    passes(
        &k,
        "python3 -m unittest",
        &call(&k, &unittest, json!({})),
        "OK",
    );
    let discover = tool(
        "unit_discover",
        "python3 -m unittest discover -s tests -t .",
        json!({}),
    );
    passes(
        &k,
        "unittest discover",
        &call(&k, &discover, json!({})),
        "OK",
    );
    let app = tool("run_app", "python3 -m myapp", json!({}));
    passes(
        &k,
        "python3 -m myapp",
        &call(&k, &app, json!({})),
        "myapp-ran",
    );
    let script = tool("report", "python3 scripts/report.py", json!({}));
    passes(
        &k,
        "a script importing a sibling",
        &call(&k, &script, json!({})),
        "sibling-imported",
    );
    // The planted json.py: the stdlib module runs, the plant never does.
    let pretty = tool(
        "json_pretty",
        "python3 -m json.tool <file>",
        json!({"arguments": {"file": {"type": "path", "description": "File"}}}),
    );
    let out = call(&k, &pretty, json!({"file": "data.json"}));
    passes(&k, "python3 -m json.tool", &out, "\"a\": [");
    assert!(!out.text.contains("PLANTED"), "{}", out.text);
    // pytest, where it can be imported (it is not installed offline here otherwise).
    let pytest_present = Command::new("python3")
        .args(["-c", "import pytest"])
        .output()
        .is_ok_and(|o| o.status.success());
    if pytest_present {
        let pytest = tool(
            "pytest",
            "python3 -m pytest -q -p no:cacheprovider tests",
            json!({}),
        );
        passes(
            &k,
            "python3 -m pytest",
            &call(&k, &pytest, json!({})),
            "passed",
        );
    } else {
        eprintln!("skipped: python3 -m pytest (pytest cannot be imported here)");
    }
    // pip: the installed packages.
    let pip_list = tool("pip_list", "python3 -m pip list", json!({}));
    passes(&k, "pip list", &call(&k, &pip_list, json!({})), "pip");
}

#[test]
fn a_linter_writing_its_cache_in_a_read_only_tool_is_told_what_would_allow_it() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    python_project(root);
    let k = kernel(root, &["python3"]);
    if !k.sandbox_status().enforced() {
        return;
    }
    let lint = tool("lint", "python3 tools/lint.py", json!({}));
    let out = call(&k, &lint, json!({}));
    let exec = out.exec.as_ref().unwrap();
    assert_ne!(exec.exit_code, 0, "{}", out.text);
    assert!(
        !root.join(".lint_cache").exists(),
        "the read-only tool wrote"
    );
    let note = exec
        .sandbox_note
        .as_deref()
        .unwrap_or_else(|| panic!("no explanation: {}", out.text));
    assert!(note.contains("\"writes\": true"), "{note}");
    assert!(
        out.text.contains(note),
        "the text carries the line: {}",
        out.text
    );
    // The same tool declaring `writes` runs, and a call that fails for its own reasons gets
    // no line.
    let lint_w = tool("lint_w", "python3 tools/lint.py", json!({"writes": true}));
    passes(
        &k,
        "lint with writes",
        &call(&k, &lint_w, json!({})),
        "lint ok",
    );
    let fails = tool(
        "fails",
        "python3 -c <code>",
        json!({"arguments": {"code": {"type": "enum", "enum": ["import sys; print('no such thing'); sys.exit(3)"], "description": "c"}}}),
    );
    let out = call(
        &k,
        &fails,
        json!({"code": "import sys; print('no such thing'); sys.exit(3)"}),
    );
    let exec = out.exec.as_ref().unwrap();
    assert_eq!(exec.exit_code, 3, "{}", out.text);
    assert_eq!(exec.sandbox_note, None, "{}", out.text);
}

#[test]
fn the_private_home_is_empty_writable_and_removed_with_the_kernel() {
    let ws = tempfile::tempdir().unwrap();
    let k = kernel(ws.path(), &["python3"]);
    if !k.sandbox_status().enforced() {
        return;
    }
    let probe = tool("home_probe", "python3 tools/home.py", json!({}));
    write(
        ws.path(),
        "tools/home.py",
        "import os\nh = os.environ['HOME']\nc = os.environ['XDG_CACHE_HOME']\nprint('home=' + h)\nprint('cache=' + c)\nos.makedirs(c + '/x', exist_ok=True)\nopen(c + '/x/f', 'w').write('made')\nprint('wrote')\n",
    );
    let out = call(&k, &probe, json!({}));
    passes(&k, "the private home", &out, "wrote");
    let output = &out.exec.as_ref().unwrap().output;
    let home = output
        .lines()
        .find_map(|l| l.strip_prefix("home="))
        .unwrap()
        .to_owned();
    assert_ne!(Some(home.as_str()), std::env::var("HOME").ok().as_deref());
    assert!(Path::new(&home).is_dir(), "{output}");
    assert!(output.contains(&format!("cache={home}/")), "{output}");
    drop(k);
    assert!(
        !Path::new(&home).exists(),
        "the private home outlived its kernel"
    );
}

#[test]
fn cargo_metadata_and_cargo_test_of_a_tiny_crate_run_confined() {
    if !has("cargo") {
        eprintln!("skipped: cargo is not installed");
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    write(
        root,
        "Cargo.toml",
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    write(
        root,
        "src/lib.rs",
        "pub fn two() -> u32 { 2 }\n#[cfg(test)]\nmod tests { #[test] fn it() { assert_eq!(super::two(), 2); } }\n",
    );
    write(
        root,
        "Cargo.lock",
        "version = 3\n\n[[package]]\nname = \"tiny\"\nversion = \"0.1.0\"\n",
    );
    let k = kernel(root, &["cargo"]);
    let metadata = tool(
        "cargo_metadata",
        "cargo metadata --format-version 1 --no-deps --offline",
        json!({}),
    );
    passes(
        &k,
        "cargo metadata",
        &call(&k, &metadata, json!({})),
        "\"name\":\"tiny\"",
    );
    let test = tool(
        "cargo_test",
        "cargo test --offline",
        json!({"writes": true}),
    );
    passes(
        &k,
        "cargo test",
        &call(&k, &test, json!({})),
        "test result: ok",
    );
}

#[test]
fn go_vet_runs_confined_where_go_is_installed() {
    if !has("go") {
        eprintln!("skipped: go is not installed");
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    write(root, "go.mod", "module tiny\n\ngo 1.20\n");
    write(root, "main.go", "package main\n\nfunc main() {}\n");
    let k = kernel(root, &["go"]);
    let vet = tool("go_vet", "go vet ./...", json!({}));
    let out = call(&k, &vet, json!({}));
    assert_eq!(exit_and_output(&out).0, 0, "{}", out.text);
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A `git daemon` on 127.0.0.1 serving `base`, killed on drop.
struct Daemon(std::process::Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn git_fetches_and_pushes_over_loopback_from_a_network_tool_only() {
    let served = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    git(
        served.path(),
        &["init", "-q", "--bare", "-b", "main", "remote.git"],
    );
    let root = ws.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["config", "user.email", "t@example.com"]);
    git(root, &["config", "user.name", "T"]);
    write(root, "a.txt", "one\n");
    git(root, &["add", "a.txt"]);
    git(root, &["commit", "-q", "-m", "one"]);
    let port = free_port();
    // `git-daemon` itself (the `git daemon` wrapper would leave it running when killed).
    let exec_path = git(root, &["--exec-path"]).trim().to_owned();
    let daemon = Daemon(
        Command::new(Path::new(&exec_path).join("git-daemon"))
            .args([
                "--reuseaddr",
                "--export-all",
                "--enable=receive-pack",
                "--listen=127.0.0.1",
                &format!("--port={port}"),
                &format!("--base-path={}", served.path().display()),
                &served.path().display().to_string(),
            ])
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    // Wait until it listens.
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let url = format!("git://127.0.0.1:{port}/remote.git");
    git(root, &["remote", "add", "origin", &url]);
    let k = kernel(root, &["git"]);
    let push = tool(
        "git_push",
        "git push -u origin <branch>",
        json!({"writes": true, "network": true, "arguments": {"branch": {"type": "string", "description": "Branch", "pattern": "^[a-z]+$"}}}),
    );
    passes(
        &k,
        "git push",
        &call(&k, &push, json!({"branch": "main"})),
        "main",
    );
    assert!(
        git(
            &served.path().join("remote.git"),
            &["log", "--oneline", "main"]
        )
        .contains("one"),
        "the push did not arrive"
    );
    let fetch = tool(
        "git_fetch",
        "git fetch --prune origin",
        json!({"writes": true, "network": true}),
    );
    passes(&k, "git fetch", &call(&k, &fetch, json!({})), "");
    // An offline tool keeps the `file` transport only.
    let offline = tool("git_ls_remote", "git ls-remote origin", json!({}));
    let out = call(&k, &offline, json!({}));
    assert_ne!(exit_and_output(&out).0, 0, "{}", out.text);
    assert!(out.text.contains("not allowed"), "{}", out.text);
    // Nor does a network tool take `ext::` or a planted `core.sshCommand`.
    let marker = served.path().join("ext-ran");
    git(
        root,
        &[
            "remote",
            "add",
            "evil",
            &format!("ext::sh -c touch% {}", marker.display()),
        ],
    );
    let fetch_evil = tool(
        "git_fetch_evil",
        "git fetch evil",
        json!({"writes": true, "network": true}),
    );
    let out = call(&k, &fetch_evil, json!({}));
    assert_ne!(exit_and_output(&out).0, 0, "{}", out.text);
    git(
        root,
        &[
            "config",
            "core.sshCommand",
            &format!("touch {}", marker.display()),
        ],
    );
    git(root, &["remote", "add", "viassh", "ssh://127.0.0.1/x.git"]);
    let fetch_ssh = tool(
        "git_fetch_ssh",
        "git fetch viassh",
        json!({"writes": true, "network": true}),
    );
    let out = call(&k, &fetch_ssh, json!({}));
    assert_ne!(exit_and_output(&out).0, 0, "{}", out.text);
    git(root, &["config", "protocol.ext.allow", "always"]);
    let out = call(&k, &fetch_evil, json!({}));
    assert_ne!(exit_and_output(&out).0, 0, "{}", out.text);
    assert!(!marker.exists(), "a planted program ran");
    drop(daemon);
}

const SERVE_AND_CONNECT: &str = r#"
import socket, sys, threading
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
port = srv.getsockname()[1]
def serve():
    c, _ = srv.accept()
    c.sendall(b"pong")
    c.close()
threading.Thread(target=serve).start()
c = socket.create_connection(("127.0.0.1", port))
print("local:", c.recv(4).decode())
try:
    six = socket.socket(socket.AF_INET6)
    six.bind(("::1", 0))
    print("v6: bound")
except OSError as e:
    print("v6:", e)
outside = int(sys.argv[1])
try:
    socket.create_connection(("127.0.0.1", outside), timeout=2)
    print("outside: reached")
except OSError as e:
    print("outside: refused", e)
"#;

#[test]
fn a_test_suite_serves_and_connects_on_a_private_loopback_under_network_local() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    write(root, "tests/serve.py", SERVE_AND_CONNECT);
    // A server of the host's on 127.0.0.1: the tool must never reach it.
    let host = TcpListener::bind("127.0.0.1:0").unwrap();
    host.set_nonblocking(true).unwrap();
    let port = host.local_addr().unwrap().port();
    let k = kernel(root, &["python3"]);
    let suite = tool(
        "serve_suite",
        "python3 tests/serve.py <port>",
        json!({"network": "local", "arguments": {"port": {"type": "integer", "description": "Port", "minimum": 1, "maximum": 65535}}}),
    );
    let out = call(&k, &suite, json!({"port": port}));
    if !k.sandbox_status().enforced() {
        return;
    }
    if out.text.contains("which this host cannot give") {
        // Where the host refuses a network namespace, the call says so and nothing runs.
        assert!(out.text.contains("\"network\": \"local\""), "{}", out.text);
        return;
    }
    passes(&k, "a local test suite", &out, "local: pong");
    assert!(out.text.contains("outside: refused"), "{}", out.text);
    assert!(
        host.accept().is_err(),
        "the tool reached a server of the host"
    );
    // Without the declaration, the same suite cannot even bind, and is told what to declare.
    let offline = tool(
        "serve_offline",
        "python3 tests/serve.py <port>",
        json!({"arguments": {"port": {"type": "integer", "description": "Port", "minimum": 1, "maximum": 65535}}}),
    );
    let out = call(&k, &offline, json!({"port": port}));
    let exec = out.exec.as_ref().unwrap();
    assert_ne!(exec.exit_code, 0, "{}", out.text);
    let note = exec
        .sandbox_note
        .as_deref()
        .unwrap_or_else(|| panic!("{}", out.text));
    assert!(note.contains("\"network\": \"local\""), "{note}");
}

#[test]
fn network_takes_true_false_or_local_and_nothing_else() {
    for ok in [json!(true), json!(false), json!("local")] {
        load(json!({"name": "t", "description": "d", "command": "true", "network": ok})).unwrap();
    }
    let err = load(json!({"name": "t", "description": "d", "command": "true", "network": "lan"}))
        .unwrap_err();
    assert_eq!(err.code(), CODE_INVALID_DESCRIPTOR);
    assert!(err.to_string().contains("\"local\""), "{err}");
}

#[test]
fn a_tool_that_lists_processes_is_refused_when_it_is_built_and_says_why() {
    for command in ["ps aux", "top -bn1", "pgrep <name>", "pidof <name>"] {
        let args = if command.contains('<') {
            json!({"arguments": {"name": {"type": "string", "description": "n"}}})
        } else {
            json!({})
        };
        let mut d = json!({"name": "procs", "description": "d", "command": command});
        for (k, v) in args.as_object().unwrap() {
            d[k] = v.clone();
        }
        let err = load(d).unwrap_err();
        assert_eq!(err.code(), CODE_INVALID_DESCRIPTOR, "{command}");
        assert!(err.to_string().contains("/proc"), "{command}: {err}");
    }
}
