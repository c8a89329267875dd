//! denied_binary: sudo.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("sudo ls <path>")]
pub struct Sudo {
    /// The path
    pub path: WorkPath,
}

fn main() {}
