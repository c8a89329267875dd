//! bad_template: unclosed.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern .")]
pub struct Unclosed;

fn main() {}
