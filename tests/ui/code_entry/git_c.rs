//! code_entry: git c.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("git -c <cfg> log")]
pub struct GitC {
    /// The cfg
    pub cfg: String,
}

fn main() {}
