//! metachar: no break space.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep\u{a0}-rn <pattern> .")]
pub struct NoBreakSpace {
    /// The pattern
    pub pattern: String,
}

fn main() {}
