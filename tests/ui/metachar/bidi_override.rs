//! metachar: bidi override.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> .\u{202e}")]
pub struct BidiOverride {
    /// The pattern
    pub pattern: String,
}

fn main() {}
