//! pass: count default.
use nanotool::{CommandStruct, command_tool};

/// Runs a command.
#[command_tool("git log -n <count>")]
pub struct CountDefault {
    /// The count
    #[slot(default = 10)]
    pub count: u32,
}

pub fn main() {
    // The runtime accepts what the compiler accepted: the same spec, built at first use.
    let spec = CountDefault::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "git log -n <count>");
}
