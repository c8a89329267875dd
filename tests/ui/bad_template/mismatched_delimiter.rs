//! bad_template: mismatched delimiter.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern} .")]
pub struct MismatchedDelimiter;

fn main() {}
