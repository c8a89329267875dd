//! denied_binary: rm absolute.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("/bin/rm <path>")]
pub struct RmAbsolute {
    /// The path
    pub path: WorkPath,
}

fn main() {}
