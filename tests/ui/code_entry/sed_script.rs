//! code_entry: sed script.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("sed <script> <file>")]
pub struct SedScript {
    /// The script
    pub script: String,
    /// The file
    pub file: WorkPath,
}

fn main() {}
