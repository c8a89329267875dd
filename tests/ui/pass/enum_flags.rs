//! pass: enum flags.
use nanotool::{CommandStruct, SlotEnum, WorkPath, command_tool};

/// The values the slot takes.
#[derive(SlotEnum)]
pub enum Choice {
    /// A value.
    #[slot(value = "-l")]
    V0,
    /// A value.
    #[slot(value = "-1")]
    V1,
}

/// Runs a command.
#[command_tool("ls <mode> <dir>")]
pub struct EnumFlags {
    /// The mode
    pub mode: Choice,
    /// The dir
    #[slot(default = ".")]
    pub dir: WorkPath,
}

pub fn main() {
    // The runtime accepts what the compiler accepted: the same spec, built at first use.
    let spec = EnumFlags::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "ls <mode> <dir>");
}
