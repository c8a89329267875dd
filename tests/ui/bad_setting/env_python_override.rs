//! bad_setting: a Python override undone.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "env_python_override", env(PYTHONSAFEPATH = ""))]
pub struct EnvPythonOverride;

fn main() {}
