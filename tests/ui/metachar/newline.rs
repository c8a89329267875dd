//! metachar: newline.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> .\nid")]
pub struct Newline {
    /// The pattern
    pub pattern: String,
}

fn main() {}
