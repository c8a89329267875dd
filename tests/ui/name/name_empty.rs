//! name: name empty.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> .", name = "")]
pub struct NameEmpty {
    /// The pattern
    pub pattern: String,
}

fn main() {}
