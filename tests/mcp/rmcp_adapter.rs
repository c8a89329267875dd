//! `nanotool::adapters::rmcp` driven by a real client: examples/rmcp_server.rs (rmcp over
//! stdio) and the official MCP Python SDK (`mcp` 2.3.0) in both protocol eras, against the
//! ready `ToolboxServer` (`plain`) and a server's own router with nanotool's routes merged in
//! (`merged`). The client script is `tests/python/rmcp_client.py`.
//!
//! The interpreter comes from `NANOTOOL_TEST_PYTHON`, which `scripts/test` sets after
//! installing the SDK in `.venv`; without it these tests fail and say so (they never skip).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn python() -> PathBuf {
    match std::env::var_os("NANOTOOL_TEST_PYTHON") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => panic!(
            "NANOTOOL_TEST_PYTHON is not set: these tests drive the rmcp server with the official \
             MCP Python SDK. Run scripts/test (it creates .venv, installs mcp==2.3.0 and sets the \
             variable), or set NANOTOOL_TEST_PYTHON to a python that has `mcp` 2.3.0 installed."
        ),
    }
}

/// Builds examples/rmcp_server.rs once, in this test's profile and target folder.
fn server_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test's own path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("target/<profile>/deps/<test>");
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") | None => "dev".to_owned(),
            Some(other) => other.to_owned(),
        };
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "--quiet",
                "--features",
                "rmcp",
                "--example",
                "rmcp_server",
            ])
            .arg("--profile")
            .arg(&profile)
            .arg("--target-dir")
            .arg(profile_dir.parent().expect("target/"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("run cargo build");
        assert!(status.success(), "cargo build --example rmcp_server failed");
        profile_dir.join("examples/rmcp_server")
    })
}

fn run_client(server_mode: &str, client_mode: &str) {
    let tools = tempfile::tempdir().unwrap();
    std::fs::write(
        tools.path().join("sleep.tool.json"),
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
    let python = python();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/rmcp_client.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(server_bin())
        .arg(server_mode)
        .arg(cwd.path())
        .arg(tools.path())
        .arg(client_mode)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Python client failed ({server_mode}, {client_mode}): {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains(&format!("ok: {server_mode} {client_mode}")),
        "{stdout}"
    );
}

#[test]
fn toolbox_server_legacy_era() {
    run_client("plain", "legacy");
}

#[test]
fn toolbox_server_modern_era() {
    run_client("plain", "auto");
}

#[test]
fn merged_routes_legacy_era() {
    run_client("merged", "legacy");
}

#[test]
fn merged_routes_modern_era() {
    run_client("merged", "auto");
}
