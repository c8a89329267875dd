//! metachar: semicolon.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> .;id")]
pub struct Semicolon {
    /// The pattern
    pub pattern: String,
}

fn main() {}
