//! slot_mismatch: slot without field.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> <path>")]
pub struct SlotWithoutField {
    /// The pattern
    pub pattern: String,
}

fn main() {}
