//! bad_setting: `exit_codes = ...` instead of `exit_codes(...)`.

use nanotool::command_tool;

/// Compares the two files.
#[command_tool("diff -u old.txt new.txt", name = "exit_without_parens", exit_codes = 1)]
pub struct ExitWithoutParens;

fn main() {}
