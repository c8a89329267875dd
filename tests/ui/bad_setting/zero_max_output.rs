//! bad_setting: an output cap of zero.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "zero_max_output", max_output = 0)]
pub struct ZeroMaxOutput;

fn main() {}
