//! docs: blank struct doc.
use nanotool::command_tool;

///
#[command_tool("grep -rn <pattern> .")]
pub struct BlankStructDoc {
    /// The pattern
    pub pattern: String,
}

fn main() {}
