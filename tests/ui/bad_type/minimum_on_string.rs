//! bad_type: minimum on string.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> .")]
pub struct MinimumOnString {
    /// The pattern
    #[slot(minimum = 1)]
    pub pattern: String,
}

fn main() {}
