//! name: name too long.
use nanotool::command_tool;

/// Runs a command.
#[command_tool(
    "grep -rn <pattern> .",
    name = "ggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg"
)]
pub struct NameTooLong {
    /// The pattern
    pub pattern: String,
}

fn main() {}
