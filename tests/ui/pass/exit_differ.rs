//! pass: an exit status that is not a failure, with its meaning; it reaches the spec, as a descriptor's `exit_codes` does.

use nanotool::{CommandStruct, command_tool};

/// Compares the two files.
#[command_tool("diff -u old.txt new.txt", name = "exit_differ", exit_codes(1 = "the files differ"))]
pub struct ExitDiffer;

pub fn main() {
    let spec = ExitDiffer::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.exit_codes().meaning(1), Some("the files differ"));
    assert_eq!(spec.exit_codes().meaning(2), None);
}
