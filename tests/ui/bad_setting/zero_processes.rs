//! bad_setting: no process at all, not even the command's own.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "zero_processes", processes = 0)]
pub struct ZeroProcesses;

fn main() {}
