//! metachar: single quote.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn '<pattern>' .")]
pub struct SingleQuote {
    /// The pattern
    pub pattern: String,
}

fn main() {}
