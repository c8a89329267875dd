//! bad_attribute: `network = true`, a flag written as a descriptor field.

use nanotool::command_tool;

/// Fetches the crate's dependencies.
#[command_tool("cargo fetch", network = true)]
pub struct NetworkBoolValue;

fn main() {}
