//! bad_setting: a file size limit past 16 TiB.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "absurd_file_size", file_size = "32T")]
pub struct AbsurdFileSize;

fn main() {}
