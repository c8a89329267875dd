//! bad_type: default wrong kind.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("grep -rn <pattern> .")]
pub struct DefaultWrongKind {
    /// The pattern
    #[slot(default = 10)]
    pub pattern: String,
}

fn main() {}
