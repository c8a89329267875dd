//! metachar: dollar.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> $HOME")]
pub struct Dollar {
    /// The pattern
    pub pattern: String,
}

fn main() {}
