//! metachar: redirect out.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> . >out")]
pub struct RedirectOut {
    /// The pattern
    pub pattern: String,
}

fn main() {}
