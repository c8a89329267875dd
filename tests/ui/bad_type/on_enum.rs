//! bad_type: on enum.

use nanotool::command_tool;

/// List.
#[command_tool("ls <mode> .")]
pub enum OnEnum {
    Long,
}

fn main() {}
