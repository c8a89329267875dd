//! name: name with space.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> .", name = "search text")]
pub struct NameWithSpace {
    /// The pattern
    pub pattern: String,
}

fn main() {}
