//! `nanotool serve` driven by a real client: the official MCP Python SDK (`mcp` 2.3.0), in its
//! legacy mode (`initialize`, 2025-11-25) and its auto mode (`server/discover`, then
//! 2026-07-28 per request). The client script is `tests/python/client_session.py`.
//!
//! The interpreter comes from `NANOTOOL_TEST_PYTHON`, which `scripts/test` sets after
//! installing the SDK in `.venv`; without it these tests fail and say so (they never skip).

use crate::common::bin::nanotool_bin;
use crate::common::{run_sdk_client, sleep_tool_and_haystack};

fn run_client(mode: &str) {
    let work = tempfile::tempdir().unwrap();
    let tools = work.path().join("tools");
    std::fs::create_dir(&tools).unwrap();
    let cwd = sleep_tool_and_haystack(&tools);
    run_sdk_client(
        "client_session.py",
        &[
            nanotool_bin().as_os_str(),
            work.path().as_os_str(),
            cwd.path().as_os_str(),
            mode.as_ref(),
        ],
        mode,
    );
}

#[test]
fn python_sdk_legacy_mode_initialize() {
    run_client("legacy");
}

#[test]
fn python_sdk_modern_mode_server_discover() {
    run_client("auto");
}
