//! bad_setting: an output cap of a tebibyte.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "absurd_max_output", max_output = 1_099_511_627_776)]
pub struct AbsurdMaxOutput;

fn main() {}
