//! pass: slot inside token.
use nanotool::{CommandStruct, WorkPath, command_tool};

/// Runs a command.
#[command_tool("cut -d, -f<fields> <file>")]
pub struct SlotInsideToken {
    /// The fields
    #[slot(minimum = 1)]
    pub fields: u32,
    /// The file
    pub file: WorkPath,
}

pub fn main() {
    // The runtime accepts what the compiler accepted: the same spec, built at first use.
    let spec =
        SlotInsideToken::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "cut -d, -f<fields> <file>");
}
