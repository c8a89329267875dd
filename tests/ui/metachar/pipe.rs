//! metachar: pipe.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> .|sh")]
pub struct Pipe {
    /// The pattern
    pub pattern: String,
}

fn main() {}
