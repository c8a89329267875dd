//! pass: awk fixed program.
use nanotool::{CommandStruct, WorkPath, command_tool};

/// Runs a command.
#[command_tool("awk -f scripts/sum.awk <file>")]
pub struct AwkFixedProgram {
    /// The file
    pub file: WorkPath,
}

pub fn main() {
    // The runtime accepts what the compiler accepted: the same spec, built at first use.
    let spec =
        AwkFixedProgram::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "awk -f scripts/sum.awk <file>");
}
