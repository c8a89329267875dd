//! metachar: backslash.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> a\\b")]
pub struct Backslash {
    /// The pattern
    pub pattern: String,
}

fn main() {}
