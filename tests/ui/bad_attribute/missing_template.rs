//! bad_attribute: missing template.

use nanotool::command_tool;

/// Search text.
#[command_tool(name = "search")]
pub struct MissingTemplate {
    /// Text pattern to search
    pub pattern: String,
}

fn main() {}
