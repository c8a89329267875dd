//! bad_setting: three open files, fewer than a program's standard streams and libraries need.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "few_open_files", open_files = 3)]
pub struct FewOpenFiles;

fn main() {}
