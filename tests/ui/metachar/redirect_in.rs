//! metachar: redirect in.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("wc -l <input")]
pub struct RedirectIn;

fn main() {}
