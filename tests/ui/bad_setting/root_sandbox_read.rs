//! bad_setting: the whole file system as a readable path.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "root_sandbox_read", sandbox_read("/"))]
pub struct RootSandboxRead;

fn main() {}
