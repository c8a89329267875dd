//! bad_template: empty placeholder.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <> .")]
pub struct EmptyPlaceholder;

fn main() {}
