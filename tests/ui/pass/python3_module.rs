//! pass: python3 module.
use nanotool::{CommandStruct, WorkPath, command_tool};

/// Runs a command.
#[command_tool("python3 -m json.tool <file>")]
pub struct Python3Module {
    /// The file
    pub file: WorkPath,
}

pub fn main() {
    // The runtime accepts what the compiler accepted: the same spec, built at first use.
    let spec = Python3Module::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "python3 -m json.tool <file>");
}
