//! bad_template: unopened.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn pattern> .")]
pub struct Unopened;

fn main() {}
