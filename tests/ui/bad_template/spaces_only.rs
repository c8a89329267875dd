//! bad_template: spaces only.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("   ")]
pub struct SpacesOnly;

fn main() {}
