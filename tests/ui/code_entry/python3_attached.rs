//! code_entry: python3 attached.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("python3 -c<code>")]
pub struct Python3Attached {
    /// The code
    pub code: String,
}

fn main() {}
