//! slot_mismatch: slot in binary.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("git<sub> log")]
pub struct SlotInBinary {
    /// The sub
    pub sub: String,
}

fn main() {}
