//! bad_template: invalid slot name.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <Pattern> .")]
pub struct InvalidSlotName;

fn main() {}
