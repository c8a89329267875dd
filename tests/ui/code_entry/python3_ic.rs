//! code_entry: python3 ic.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("python3 -Ic <code>")]
pub struct Python3Ic {
    /// The code
    pub code: String,
}

fn main() {}
