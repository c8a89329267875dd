//! bad_setting: a meaning of two lines.

use nanotool::command_tool;

/// Compares the two files.
#[command_tool("diff -u old.txt new.txt", name = "exit_multiline_meaning", exit_codes(1 = "the files\ndiffer"))]
pub struct ExitMultilineMeaning;

fn main() {}
