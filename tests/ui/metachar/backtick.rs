//! metachar: backtick.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> `id`")]
pub struct Backtick {
    /// The pattern
    pub pattern: String,
}

fn main() {}
