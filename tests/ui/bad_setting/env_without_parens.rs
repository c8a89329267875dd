//! bad_setting: `env` written as a value instead of a list.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "env_without_parens", env = "RUST_BACKTRACE=1")]
pub struct EnvWithoutParens;

fn main() {}
