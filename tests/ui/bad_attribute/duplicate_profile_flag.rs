//! bad_attribute: a profile flag given twice.

use nanotool::command_tool;

/// Fetches the crate's dependencies.
#[command_tool("cargo fetch", network, network)]
pub struct DuplicateProfileFlag;

fn main() {}
