//! bad_template: literal brace unescaped.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("find . -name *.rs -exec wc -l {} +")]
pub struct LiteralBraceUnescaped;

fn main() {}
