//! `nanotool serve` driven by a real client: the official MCP Python SDK (`mcp` 2.3.0), in its
//! legacy mode (`initialize`, 2025-11-25) and its auto mode (`server/discover`, then
//! 2026-07-28 per request). The client script is `tests/python/client_session.py`.
//!
//! The interpreter comes from `NANOTOOL_TEST_PYTHON`, which `scripts/test` sets after
//! installing the SDK in `.venv`; without it these tests fail and say so (they never skip).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::bin::nanotool_bin;

fn python() -> PathBuf {
    match std::env::var_os("NANOTOOL_TEST_PYTHON") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => panic!(
            "NANOTOOL_TEST_PYTHON is not set: these tests drive nanotool with the official MCP \
             Python SDK. Run scripts/test (it creates .venv, installs mcp==2.3.0 and sets the \
             variable), or set NANOTOOL_TEST_PYTHON to a python that has `mcp` 2.3.0 installed."
        ),
    }
}

/// A work folder with a `sleep <seconds>` descriptor, and a cwd with a file to find.
fn fixture() -> (tempfile::TempDir, tempfile::TempDir) {
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir(work.path().join("tools")).unwrap();
    std::fs::write(
        work.path().join("tools/sleep.tool.json"),
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
    (work, cwd)
}

/// Runs `tests/python/<script>` against the binary with the fixture's folders and `mode`;
/// the script prints `ok: MODE` when every check held.
fn run_script(script: &str, (work, cwd): (tempfile::TempDir, tempfile::TempDir), mode: &str) {
    let python = python();
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(script);
    let out = Command::new(&python)
        .arg(&script)
        .arg(nanotool_bin())
        .arg(work.path())
        .arg(cwd.path())
        .arg(mode)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{} failed in {mode} mode ({})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        script.display(),
        out.status
    );
    assert!(stdout.contains(&format!("ok: {mode}")), "{stdout}");
}

fn run_client(mode: &str) {
    run_script("client_session.py", fixture(), mode);
}

/// A work folder whose `config.json` names the cwd (the shortened client line `serve --work
/// DIR`), with `follow` (prints the notes, then follows them for 3 s) and `sleep`.
fn progress_fixture() -> (tempfile::TempDir, tempfile::TempDir) {
    let (work, cwd) = fixture();
    std::fs::write(
        work.path().join("tools/follow.tool.json"),
        r#"{
  "name": "follow",
  "description": "Print a file, then follow it for 3 seconds",
  "command": "timeout 3 tail ---disable-inotify -f <file>",
  "arguments": { "file": { "type": "path", "description": "The file" } }
}
"#,
    )
    .unwrap();
    std::fs::write(
        cwd.path().join("notes.txt"),
        "first\nthe last line of the notes\n",
    )
    .unwrap();
    let config = serde_json::json!({ "cwd": cwd.path() });
    std::fs::write(work.path().join("config.json"), config.to_string()).unwrap();
    (work, cwd)
}

fn run_progress_client(mode: &str) {
    run_script("progress_session.py", progress_fixture(), mode);
}

#[test]
fn python_sdk_sees_progress_of_a_long_call_in_legacy_mode() {
    run_progress_client("legacy");
}

#[test]
fn python_sdk_sees_progress_of_a_long_call_in_modern_mode() {
    run_progress_client("auto");
}

#[test]
fn python_sdk_legacy_mode_initialize() {
    run_client("legacy");
}

#[test]
fn python_sdk_modern_mode_server_discover() {
    run_client("auto");
}
