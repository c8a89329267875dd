//! bad_setting: a timeout of zero.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "zero_timeout", timeout = 0)]
pub struct ZeroTimeout;

fn main() {}
