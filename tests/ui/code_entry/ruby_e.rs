//! code_entry: ruby e.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("ruby -e <code>")]
pub struct RubyE {
    /// The code
    pub code: String,
}

fn main() {}
