//! bad_attribute: `network` and `network = "local"` together.

use nanotool::command_tool;

/// Runs the test suite.
#[command_tool("cargo test", network, network = "local")]
pub struct NetworkTwice;

fn main() {}
