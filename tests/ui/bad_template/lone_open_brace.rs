//! bad_template: lone open brace.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("git rev-parse @{u")]
pub struct LoneOpenBrace;

fn main() {}
