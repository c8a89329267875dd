//! pass: no slots.
use nanotool::{CommandStruct, command_tool};

/// Runs a command.
#[command_tool("find . -name *.rs")]
pub struct NoSlots;

pub fn main() {
    // The runtime accepts what the compiler accepted: the same spec, built at first use.
    let spec = NoSlots::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "find . -name *.rs");
}
