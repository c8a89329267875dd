//! denied_binary: bash script.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("bash <script>")]
pub struct BashScript {
    /// The script
    pub script: WorkPath,
}

fn main() {}
