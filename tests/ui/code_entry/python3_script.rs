//! code_entry: python3 script.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("python3 <script>")]
pub struct Python3Script {
    /// The script
    pub script: WorkPath,
}

fn main() {}
