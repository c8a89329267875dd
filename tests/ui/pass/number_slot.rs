//! pass: number slot.
use nanotool::{CommandStruct, command_tool};

/// Runs a command.
#[command_tool("sleep <seconds>")]
pub struct NumberSlot {
    /// The seconds
    #[slot(minimum = 0, maximum = 5)]
    pub seconds: f64,
}

pub fn main() {
    // The runtime accepts what the compiler accepted: the same spec, built at first use.
    let spec = NumberSlot::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "sleep <seconds>");
}
