//! `nanotool::adapters::rmcp` driven by a real client: examples/rmcp_server.rs (rmcp over
//! stdio) and the official MCP Python SDK (`mcp` 2.3.0) in both protocol eras, against the
//! ready `ToolboxServer` (`plain`) and a server's own router with nanotool's routes merged in
//! (`merged`). The client script is `tests/python/rmcp_client.py`.
//!
//! The interpreter comes from `NANOTOOL_TEST_PYTHON`, which `scripts/test` sets after
//! installing the SDK in `.venv`; without it these tests fail and say so (they never skip).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::common::bin::cargo_build;
use crate::common::{run_sdk_client, sleep_tool_and_haystack};

/// Builds examples/rmcp_server.rs once, in this test's profile and target folder.
fn server_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        cargo_build(
            &["--features", "rmcp", "--example", "rmcp_server"],
            "examples/rmcp_server",
        )
    })
}

fn run_client(server_mode: &str, client_mode: &str) {
    let tools = tempfile::tempdir().unwrap();
    let cwd = sleep_tool_and_haystack(tools.path());
    run_sdk_client(
        "rmcp_client.py",
        &[
            server_bin().as_os_str(),
            server_mode.as_ref(),
            cwd.path().as_os_str(),
            tools.path().as_os_str(),
            client_mode.as_ref(),
        ],
        &format!("{server_mode} {client_mode}"),
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
