//! bad_attribute: a profile flag given a value.

use nanotool::command_tool;

/// Formats the crate.
#[command_tool("cargo fmt", writes = true)]
pub struct ProfileFlagValue;

fn main() {}
