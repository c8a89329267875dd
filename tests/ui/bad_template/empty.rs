//! bad_template: empty.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("")]
pub struct Empty;

fn main() {}
