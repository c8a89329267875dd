//! metachar: zero width space.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn\u{200b} <pattern> .")]
pub struct ZeroWidthSpace {
    /// The pattern
    pub pattern: String,
}

fn main() {}
