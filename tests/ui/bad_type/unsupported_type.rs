//! bad_type: unsupported type.

use nanotool::command_tool;

/// Search text.
#[command_tool("grep -rn <pattern> .")]
pub struct UnsupportedType {
    /// Patterns to search
    pub pattern: Vec<String>,
}

fn main() {}
