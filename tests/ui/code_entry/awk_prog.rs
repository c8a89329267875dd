//! code_entry: awk prog.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("awk <prog> <file>")]
pub struct AwkProg {
    /// The prog
    pub prog: String,
    /// The file
    pub file: WorkPath,
}

fn main() {}
