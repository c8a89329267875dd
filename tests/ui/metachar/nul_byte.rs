//! metachar: nul_byte.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> .\0")]
pub struct Nul {
    /// The pattern
    pub pattern: String,
}

fn main() {}
