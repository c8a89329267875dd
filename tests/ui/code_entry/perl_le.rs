//! code_entry: perl le.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("perl -le <code>")]
pub struct PerlLe {
    /// The code
    pub code: String,
}

fn main() {}
