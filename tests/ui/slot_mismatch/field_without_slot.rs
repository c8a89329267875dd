//! slot_mismatch: field without slot.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("grep -rn <pattern> .")]
pub struct FieldWithoutSlot {
    /// The pattern
    pub pattern: String,
    /// The path
    pub path: WorkPath,
}

fn main() {}
