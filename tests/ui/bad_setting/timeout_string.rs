//! bad_setting: a timeout written as a string (only Rust can spell it so: JSON's twin is a
//! type error the descriptor tests cover).

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "timeout_string", timeout = "900")]
pub struct TimeoutString;

fn main() {}
