//! code_entry: node eval long.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("node --eval=<code>")]
pub struct NodeEvalLong {
    /// The code
    pub code: String,
}

fn main() {}
