//! code_entry: less string.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("less <file>")]
pub struct LessString {
    /// The file
    pub file: String,
}

fn main() {}
