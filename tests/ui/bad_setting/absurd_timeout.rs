//! bad_setting: a timeout of four months.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "absurd_timeout", timeout = 10_000_000)]
pub struct AbsurdTimeout;

fn main() {}
