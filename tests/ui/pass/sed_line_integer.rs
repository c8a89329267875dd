//! pass: sed line integer.
use nanotool::{CommandStruct, WorkPath, command_tool};

/// Runs a command.
#[command_tool("sed -n <line>p <file>")]
pub struct SedLineInteger {
    /// The line
    pub line: u32,
    /// The file
    pub file: WorkPath,
}

pub fn main() {
    // The runtime accepts what the compiler accepted: the same spec, built at first use.
    let spec = SedLineInteger::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "sed -n <line>p <file>");
}
