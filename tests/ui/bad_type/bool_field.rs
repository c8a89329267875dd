//! bad_type: bool field.

use nanotool::command_tool;

/// Search text.
#[command_tool("grep -rn <pattern> .")]
pub struct BoolField {
    /// Whether to search
    pub pattern: bool,
}

fn main() {}
