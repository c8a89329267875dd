//! bad_type: generic struct.

use nanotool::command_tool;

/// Search text.
#[command_tool("grep -rn <pattern> .")]
pub struct GenericStruct<T> {
    /// Text pattern to search
    pub pattern: T,
}

fn main() {}
