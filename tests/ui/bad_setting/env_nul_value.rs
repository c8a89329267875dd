//! bad_setting: a value no process can receive.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "env_nul_value", env(GREETING = "a\0b"))]
pub struct EnvNulValue;

fn main() {}
