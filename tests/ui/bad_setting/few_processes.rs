//! bad_setting: two processes, fewer than a shell and the command it runs need.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "few_processes", processes = 2)]
pub struct FewProcesses;

fn main() {}
