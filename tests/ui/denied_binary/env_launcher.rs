//! denied_binary: env launcher.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("env ls <path>")]
pub struct EnvLauncher {
    /// The path
    pub path: WorkPath,
}

fn main() {}
