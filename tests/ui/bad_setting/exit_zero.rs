//! bad_setting: 0 declared: it is a success already.

use nanotool::command_tool;

/// Compares the two files.
#[command_tool("diff -u old.txt new.txt", name = "exit_zero", exit_codes(0 = "the files are the same"))]
pub struct ExitZero;

fn main() {}
