//! denied_binary: rm relative.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("./rm <path>")]
pub struct RmRelative {
    /// The path
    pub path: WorkPath,
}

fn main() {}
