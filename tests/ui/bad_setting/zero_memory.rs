//! bad_setting: a memory limit of zero.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "zero_memory", memory = "0")]
pub struct ZeroMemory;

fn main() {}
