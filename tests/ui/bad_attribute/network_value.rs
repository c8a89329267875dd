//! bad_attribute: `network` given a value other than `"local"`.

use nanotool::command_tool;

/// Runs the test suite.
#[command_tool("cargo test", network = "lan")]
pub struct NetworkValue;

fn main() {}
