//! denied_binary: busybox.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("busybox cat <path>")]
pub struct Busybox {
    /// The path
    pub path: WorkPath,
}

fn main() {}
