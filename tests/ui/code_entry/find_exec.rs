//! code_entry: find exec.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("find . -exec <cmd> +")]
pub struct FindExec {
    /// The cmd
    pub cmd: String,
}

fn main() {}
