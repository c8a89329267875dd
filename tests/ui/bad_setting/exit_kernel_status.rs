//! bad_setting: a status the kernel gives (124: timed out) declared as no failure.

use nanotool::command_tool;

/// Compares the two files.
#[command_tool("diff -u old.txt new.txt", name = "exit_kernel_status", exit_codes(124 = "too slow"))]
pub struct ExitKernelStatus;

fn main() {}
