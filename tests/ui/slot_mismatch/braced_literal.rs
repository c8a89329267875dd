//! slot_mismatch: braced literal.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("git rev-parse --abbrev-ref @{u}")]
pub struct BracedLiteral;

fn main() {}
