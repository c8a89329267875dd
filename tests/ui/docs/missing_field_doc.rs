//! docs: missing field doc.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> .")]
pub struct MissingFieldDoc {
    pub pattern: String,
}

fn main() {}
