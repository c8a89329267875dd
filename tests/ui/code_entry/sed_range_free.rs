//! code_entry: sed range free.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("sed -n <range>p <file>")]
pub struct SedRangeFree {
    /// The range
    pub range: String,
    /// The file
    pub file: WorkPath,
}

fn main() {}
