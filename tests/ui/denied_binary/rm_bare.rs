//! denied_binary: rm bare.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("rm -rf <path>")]
pub struct RmBare {
    /// The path
    pub path: WorkPath,
}

fn main() {}
