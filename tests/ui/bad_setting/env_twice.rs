//! bad_setting: one variable set twice.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "env_twice", env(RUST_BACKTRACE = "1", RUST_BACKTRACE = "full"))]
pub struct EnvTwice;

fn main() {}
