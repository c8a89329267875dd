//! name: name with dot.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> .", name = "grep.v2")]
pub struct NameWithDot {
    /// The pattern
    pub pattern: String,
}

fn main() {}
