//! pass: python3 script arg.
use nanotool::{CommandStruct, command_tool};

/// Runs a command.
#[command_tool("python3 scripts/x.py <arg>")]
pub struct Python3ScriptArg {
    /// The arg
    pub arg: String,
}

pub fn main() {
    // The runtime accepts what the compiler accepted: the same spec, built at first use.
    let spec =
        Python3ScriptArg::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "python3 scripts/x.py <arg>");
}
