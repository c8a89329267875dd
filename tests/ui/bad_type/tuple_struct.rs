//! bad_type: tuple struct.

use nanotool::command_tool;

/// Search text.
#[command_tool("grep -rn <pattern> .")]
pub struct TupleStruct(pub String);

fn main() {}
