//! bad_attribute: unknown macro argument.

use nanotool::command_tool;

/// Search text.
#[command_tool("grep -rn <pattern> .", nmae = "search")]
pub struct UnknownMacroArgument {
    /// Text pattern to search
    pub pattern: String,
}

fn main() {}
