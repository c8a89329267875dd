//! metachar: ampersand.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> . &")]
pub struct Ampersand {
    /// The pattern
    pub pattern: String,
}

fn main() {}
