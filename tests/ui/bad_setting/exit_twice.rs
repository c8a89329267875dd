//! bad_setting: one status declared twice.

use nanotool::command_tool;

/// Compares the two files.
#[command_tool("diff -u old.txt new.txt", name = "exit_twice", exit_codes(1 = "the files differ", 1 = "changed"))]
pub struct ExitTwice;

fn main() {}
