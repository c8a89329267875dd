//! pass: python3 c enum.
use nanotool::{CommandStruct, SlotEnum, command_tool};

/// The values the slot takes.
#[derive(SlotEnum)]
pub enum Choice {
    /// A value.
    #[slot(value = "print(1)")]
    V0,
}

/// Runs a command.
#[command_tool("python3 -c <code>")]
pub struct Python3CEnum {
    /// The code
    pub code: Choice,
}

pub fn main() {
    // The runtime accepts what the compiler accepted: the same spec, built at first use.
    let spec = Python3CEnum::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "python3 -c <code>");
}
