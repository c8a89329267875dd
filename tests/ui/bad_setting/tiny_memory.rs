//! bad_setting: a memory limit no program starts under (1 KiB).

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "tiny_memory", memory = 1024)]
pub struct TinyMemory;

fn main() {}
