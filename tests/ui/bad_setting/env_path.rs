//! bad_setting: a PATH of the tool's own.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "env_path", env(PATH = "/tmp/bin"))]
pub struct EnvPath;

fn main() {}
