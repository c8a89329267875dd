//! metachar: double quote.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn \"<pattern>\" .")]
pub struct DoubleQuote {
    /// The pattern
    pub pattern: String,
}

fn main() {}
