//! docs: missing struct doc.
use nanotool::command_tool;

#[command_tool("grep -rn <pattern> .")]
pub struct MissingStructDoc {
    /// The pattern
    pub pattern: String,
}

fn main() {}
