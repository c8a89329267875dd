//! code_entry: awk f.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("awk -f <prog> <file>")]
pub struct AwkF {
    /// The prog
    pub prog: WorkPath,
    /// The file
    pub file: WorkPath,
}

fn main() {}
