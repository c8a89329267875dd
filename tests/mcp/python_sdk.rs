//! `nanotool serve` driven by a real client: the official MCP Python SDK (`mcp` 2.3.0), in its
//! legacy mode (`initialize`, 2025-11-25) and its auto mode (`server/discover`, then
//! 2026-07-28 per request). The client script is `tests/python/client_session.py`.
//!
//! The interpreter comes from `NANOTOOL_TEST_PYTHON`, which `scripts/test` sets after
//! installing the SDK in `.venv`; without it these tests fail and say so (they never skip).

use crate::common::bin::nanotool_bin;
use crate::common::{run_sdk_client, sleep_tool_and_haystack};

/// A work folder with a `sleep <seconds>` descriptor, and a cwd with a file to find.
fn fixture() -> (tempfile::TempDir, tempfile::TempDir) {
    let work = tempfile::tempdir().unwrap();
    let tools = work.path().join("tools");
    std::fs::create_dir(&tools).unwrap();
    let cwd = sleep_tool_and_haystack(&tools);
    (work, cwd)
}

/// Runs `tests/python/<script>` against the binary with the fixture's folders and `mode`;
/// the script prints `ok: MODE` when every check held.
fn run_script(script: &str, (work, cwd): (tempfile::TempDir, tempfile::TempDir), mode: &str) {
    run_sdk_client(
        script,
        &[
            nanotool_bin().as_os_str(),
            work.path().as_os_str(),
            cwd.path().as_os_str(),
            mode.as_ref(),
        ],
        mode,
    );
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
