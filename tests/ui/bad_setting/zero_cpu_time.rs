//! bad_setting: a CPU time of zero.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "zero_cpu_time", cpu_time = 0)]
pub struct ZeroCpuTime;

fn main() {}
