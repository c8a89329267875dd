//! bad_template: repeated slot.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep <pattern> <pattern>")]
pub struct RepeatedSlot {
    /// The pattern
    pub pattern: String,
}

fn main() {}
