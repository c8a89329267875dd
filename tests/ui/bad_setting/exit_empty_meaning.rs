//! bad_setting: a status without a meaning.

use nanotool::command_tool;

/// Compares the two files.
#[command_tool("diff -u old.txt new.txt", name = "exit_empty_meaning", exit_codes(1 = ""))]
pub struct ExitEmptyMeaning;

fn main() {}
