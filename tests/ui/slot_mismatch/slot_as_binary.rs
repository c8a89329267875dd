//! slot_mismatch: slot as binary.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("<tool> --version")]
pub struct SlotAsBinary {
    /// The tool
    pub tool: String,
}

fn main() {}
