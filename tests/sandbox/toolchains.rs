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

/// Where `binary` is on this process's PATH.
fn on_path(binary: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(binary))
        .find(|p| p.is_file())
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
    kernel_writing(root, binaries, Vec::new())
}

/// [`kernel`], with host-added write paths.
fn kernel_writing(root: &Path, binaries: &[&str], write: Vec<PathBuf>) -> CommandExecKernel {
    let settings = KernelSettings {
        cwd: root.to_path_buf(),
        max_output: 64 * 1024,
        // A hang detector, not a measurement: node and pip take tens of seconds on an
        // emulated machine (the real kernels' runs).
        timeout: std::time::Duration::from_secs(300),
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
        sandbox_write: write,
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
    (exec.exit_code, out.output().unwrap_or_default().to_owned())
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
    let output = out.output().unwrap();
    let home = output
        .lines()
        .find_map(|l| l.strip_prefix("home="))
        .unwrap()
        .to_owned();
    assert_ne!(Some(home.as_str()), std::env::var("HOME").ok().as_deref());
    assert!(output.contains(&format!("cache={home}/")), "{output}");
    // Inside the kernel's temp dir: in its tmpfs where there is one, which only commands see;
    // on disk elsewhere, where the agent sees what the call made.
    let tmp = k.sandbox_tmpdir().unwrap().to_path_buf();
    assert!(Path::new(&home).starts_with(&tmp), "{output}");
    let tmpfs = matches!(
        k.limits_status().temp_dir,
        nanotool_runtime::TempDirStatus::Tmpfs { .. }
    );
    assert_eq!(
        Path::new(&home).join(".cache/x/f").is_file(),
        !tmpfs,
        "{output}"
    );
    drop(k);
    assert!(!tmp.exists(), "the private home outlived its kernel");
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

/// A workspace with an npm project whose scripts run node, as `npm test`, `npm run build` and
/// `npm run lint` do in a team's repository.
fn npm_project(root: &Path) {
    write(
        root,
        "package.json",
        r#"{"name": "tiny", "version": "1.0.0", "private": true,
  "scripts": {
    "test": "node test.js",
    "build": "node -e \"require('fs').mkdirSync('dist', {recursive: true}); require('fs').writeFileSync('dist/out.js', '1'); console.log('built')\"",
    "lint": "node -e \"console.log('lint clean')\""
  }}
"#,
    );
    write(
        root,
        "test.js",
        "const assert = require('assert');\nassert.strictEqual(1 + 1, 2);\nconsole.log('tests ok');\n",
    );
}

/// The public certificate bundle npm may be told to read (`cafile`), where this system has one.
fn certificate_bundle() -> Option<&'static str> {
    [
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/pki/tls/certs/ca-bundle.crt",
    ]
    .into_iter()
    .find(|p| Path::new(p).is_file())
}

#[test]
fn npm_runs_the_projects_scripts_confined() {
    if !has("npm") {
        eprintln!("skipped: npm is not installed");
        return;
    }
    // (tool, command, declarations, what the output shows)
    let rows: &[(&str, &str, Value, &str)] = &[
        ("npm_test", "npm test", json!({}), "tests ok"),
        (
            "npm_test_w",
            "npm test",
            json!({"writes": true}),
            "tests ok",
        ),
        ("npm_lint", "npm run lint", json!({}), "lint clean"),
        (
            "npm_build",
            "npm run build",
            json!({"writes": true}),
            "built",
        ),
    ];
    // Each row twice: as the project is, and with a `cafile` naming the system's public
    // certificate bundle, as a host's global npmrc often sets it (a proxy's CA added to the
    // system store). npm reads that file when it loads its configuration, before any script,
    // and dies (exit 243, nothing printed) when it cannot.
    let mut cafiles = vec![None];
    match certificate_bundle() {
        Some(bundle) => cafiles.push(Some(bundle)),
        None => eprintln!("skipped: npm with a cafile (no public certificate bundle here)"),
    }
    for cafile in cafiles {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        npm_project(root);
        if let Some(bundle) = cafile {
            write(root, ".npmrc", &format!("cafile={bundle}\n"));
        }
        let k = kernel(root, &["npm", "node"]);
        for (name, command, extra, want) in rows {
            let t = tool(name, command, extra.clone());
            let what = format!("{command} (cafile: {cafile:?})");
            passes(&k, &what, &call(&k, &t, json!({})), want);
        }
        assert!(
            root.join("dist/out.js").is_file(),
            "npm run build wrote nothing"
        );
    }
}

#[test]
fn every_tool_reads_the_public_certificates_and_never_the_private_keys() {
    let Some(bundle) = certificate_bundle() else {
        eprintln!("skipped: no public certificate bundle here");
        return;
    };
    let ws = tempfile::tempdir().unwrap();
    let k = kernel(ws.path(), &["cat", "ls"]);
    if !k.sandbox_status().enforced() {
        return;
    }
    let public = tool("read_certs", &format!("cat {bundle}"), json!({}));
    passes(
        &k,
        "the public certificate bundle",
        &call(&k, &public, json!({})),
        "-----BEGIN CERTIFICATE-----",
    );
    // The private keys beside them stay out of reach, for every profile.
    let private = Path::new("/etc/ssl/private");
    if !private.is_dir() {
        eprintln!("skipped: the private-key half (no /etc/ssl/private here)");
        return;
    }
    for extra in [json!({}), json!({"writes": true, "network": true})] {
        let t = tool("read_keys", "ls /etc/ssl/private", extra.clone());
        let out = call(&k, &t, json!({}));
        let (code, output) = exit_and_output(&out);
        assert_ne!(code, 0, "{extra}: {}", out.text);
        assert!(
            output.contains("Permission denied"),
            "{extra}: {}",
            out.text
        );
    }
}

#[test]
fn npm_dying_on_a_refusal_with_nothing_printed_is_explained() {
    if !has("npm") {
        eprintln!("skipped: npm is not installed");
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = ws.path();
    npm_project(root);
    // A `cafile` outside what commands may read: npm exits 243 (EACCES as libuv numbers it,
    // -13) before it has set up its own error output.
    write(outside.path(), "ca.pem", "not a certificate\n");
    write(
        root,
        ".npmrc",
        &format!("cafile={}\n", outside.path().join("ca.pem").display()),
    );
    let k = kernel(root, &["npm", "node"]);
    if !k.sandbox_status().enforced() {
        return;
    }
    let t = tool("npm_test", "npm test", json!({}));
    let out = call(&k, &t, json!({}));
    let exec = out.exec.as_ref().unwrap();
    assert_eq!(exec.exit_code, 243, "{}", out.text);
    let note = exec
        .sandbox_note
        .as_deref()
        .unwrap_or_else(|| panic!("no explanation: {}", out.text));
    assert!(note.contains("--sandbox-read DIR"), "{note}");
    assert!(out.text.contains(note), "{}", out.text);
}

/// Writes `dist/tinypkg-0.1.0-py3-none-any.whl`, a minimal wheel (a zip of the package and its
/// metadata), with the system's Python outside the sandbox.
fn write_wheel(root: &Path) {
    let script = r#"
import sys, zipfile
files = {
    "tinypkg/__init__.py": "VALUE = 1\n",
    "tinypkg-0.1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 0.1.0\n",
    "tinypkg-0.1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = "".join(f"{n},,\n" for n in files) + "tinypkg-0.1.0.dist-info/RECORD,,\n"
files["tinypkg-0.1.0.dist-info/RECORD"] = record
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for name, text in files.items():
        z.writestr(name, text)
"#;
    fs::create_dir_all(root.join("dist")).unwrap();
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(root.join("dist/tinypkg-0.1.0-py3-none-any.whl"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A local source package, built by its pyproject's backend (setuptools).
fn python_package(root: &Path) {
    write(
        root,
        "pyproject.toml",
        "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"tinysrc\"\nversion = \"0.2.0\"\n",
    );
    write(root, "tinysrc/__init__.py", "");
}

const PIP_INSTALL_SOURCE: &str =
    "python3 -m pip install --dry-run --no-index --no-build-isolation --no-deps .";

#[test]
fn pip_lists_and_resolves_local_packages_confined() {
    let python = Command::new("python3")
        .args(["-m", "pip", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !python {
        eprintln!("skipped: python3 -m pip is not available");
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    write_wheel(root);
    python_package(root);
    let mut binaries = vec!["python3"];
    if has("pip") {
        binaries.push("pip");
    }
    // pyenv's shims run `pyenv rehash` after any `pip install`, a dry run included, which
    // writes the shims folder: a host that runs pip through them lets commands write it.
    let shims: Vec<PathBuf> = binaries
        .iter()
        .filter_map(|b| on_path(b))
        .filter_map(|p| Some(p.parent()?.to_path_buf()))
        .filter(|dir| dir.ends_with(".pyenv/shims"))
        .take(1)
        .collect();
    let k = kernel_writing(root, &binaries, shims);
    // (tool, command, declarations, what the output shows); offline: `--no-index`
    // everywhere. An install, even a dry run, is declared `writes`: pyenv's shims rehash
    // after it, which writes (and `chmod`s) in the shims folder.
    // A dry run into Debian's own python (PEP 668: "externally managed") must say so.
    let install = json!({"writes": true, "env": {"PIP_BREAK_SYSTEM_PACKAGES": "1"}});
    let mut rows: Vec<(&str, &str, Value, &str)> = vec![
        ("pip_m_list", "python3 -m pip list", json!({}), "pip"),
        (
            "pip_wheel",
            "python3 -m pip install --dry-run --no-index --no-deps dist/tinypkg-0.1.0-py3-none-any.whl",
            install.clone(),
            "Would install tinypkg-0.1.0",
        ),
        (
            "pip_links",
            "python3 -m pip install --dry-run --no-index --find-links dist tinypkg",
            install.clone(),
            "Would install tinypkg-0.1.0",
        ),
    ];
    if has("pip") {
        rows.push(("pip_list", "pip list", json!({}), "pip"));
    } else {
        eprintln!("skipped: the `pip` command (not on PATH; `python3 -m pip` rows ran)");
    }
    // A source package needs a build backend able to write wheel metadata (setuptools with
    // `wheel`, or 70.1 and later): the row runs where the same command passes unconfined
    // on a copy.
    let reference = tempfile::tempdir().unwrap();
    python_package(reference.path());
    let mut args = PIP_INSTALL_SOURCE.split(' ');
    let unconfined = Command::new(args.next().unwrap())
        .args(args)
        .env("PIP_BREAK_SYSTEM_PACKAGES", "1")
        .current_dir(reference.path())
        .output()
        .unwrap();
    if unconfined.status.success() {
        rows.push((
            "pip_source",
            PIP_INSTALL_SOURCE,
            install.clone(),
            "Would install tinysrc-0.2.0",
        ));
    } else {
        eprintln!(
            "skipped: `{PIP_INSTALL_SOURCE}` of a source package (it fails unconfined too here: no build backend can write wheel metadata)"
        );
    }
    for (name, command, extra, want) in rows {
        let t = tool(name, command, extra);
        passes(&k, command, &call(&k, &t, json!({})), want);
    }
    // A dry run installs nothing, and left nothing in the workspace.
    let mut left: Vec<String> = fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["dist", "pyproject.toml", "tinysrc"]);
}

/// Runs the project's socket test, which serves and connects on 127.0.0.1.
#[nanotool::command_tool("python3 tests/serve.py <port>", network = "local")]
struct ServeSuiteLocal {
    /// A port the test must not reach (a server of the host's).
    #[slot(minimum = 1, maximum = 65535)]
    port: u32,
}

/// The same suite, declared offline.
#[nanotool::command_tool("python3 tests/serve.py <port>")]
struct ServeSuiteOffline {
    /// A port the test must not reach (a server of the host's).
    #[slot(minimum = 1, maximum = 65535)]
    port: u32,
}

#[test]
fn a_macro_tool_with_network_local_serves_and_connects_on_its_own_loopback_only() {
    use nanotool::CommandStruct;
    assert_eq!(
        ServeSuiteLocal::tool().access(),
        nanotool_runtime::Access {
            local_network: true,
            ..nanotool_runtime::Access::READ_ONLY
        }
    );
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    write(root, "tests/serve.py", SERVE_AND_CONNECT);
    let host = TcpListener::bind("127.0.0.1:0").unwrap();
    host.set_nonblocking(true).unwrap();
    let port = host.local_addr().unwrap().port();
    let k = kernel(root, &["python3"]);
    if !k.sandbox_status().enforced() {
        return;
    }
    let out = ServeSuiteLocal::tool().call(
        &json!({"port": port}),
        &ToolContext {
            kernel: &k,
            cancel: None,
        },
    );
    if out.text.contains("which this host cannot give") {
        assert!(out.text.contains("\"network\": \"local\""), "{}", out.text);
        return;
    }
    passes(&k, "a macro tool's local test suite", &out, "local: pong");
    assert!(out.text.contains("outside: refused"), "{}", out.text);
    assert!(
        host.accept().is_err(),
        "the tool reached a server of the host"
    );
    // The typed call takes the same path.
    let typed = ServeSuiteLocal { port: port.into() }.run(&k).unwrap();
    assert!(typed.output.contains("local: pong"), "{}", typed.output);
    assert!(
        typed.output.contains("outside: refused"),
        "{}",
        typed.output
    );
    // Declared offline, the same suite cannot even bind, and is told what to declare.
    let out = ServeSuiteOffline::tool().call(
        &json!({"port": port}),
        &ToolContext {
            kernel: &k,
            cancel: None,
        },
    );
    let exec = out.exec.as_ref().unwrap();
    assert_ne!(exec.exit_code, 0, "{}", out.text);
    assert!(
        exec.sandbox_note
            .as_deref()
            .is_some_and(|n| n.contains("\"network\": \"local\"")),
        "{}",
        out.text
    );
    assert!(host.accept().is_err(), "the offline tool reached the host");
}
