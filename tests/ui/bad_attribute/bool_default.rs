//! bad_attribute: bool default.

use nanotool::command_tool;

/// Search text.
#[command_tool("grep -rn <pattern> .")]
pub struct BoolDefault {
    /// Text pattern to search
    #[slot(default = true)]
    pub pattern: String,
}

fn main() {}
