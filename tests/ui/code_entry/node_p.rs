//! code_entry: node p.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("node -p <code>")]
pub struct NodeP {
    /// The code
    pub code: String,
}

fn main() {}
