//! bad_setting: a readable path that is relative (to what?).

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "relative_sandbox_read", sandbox_read("cache/tools"))]
pub struct RelativeSandboxRead;

fn main() {}
