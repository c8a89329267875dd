//! metachar: tab.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep\t-rn <pattern> .")]
pub struct Tab {
    /// The pattern
    pub pattern: String,
}

fn main() {}
