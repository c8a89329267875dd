//! bad_attribute: enum value space.
use nanotool::{SlotEnum, command_tool};

/// The values the slot takes.
#[derive(SlotEnum)]
pub enum Choice {
    /// A value.
    #[slot(value = "-l -a")]
    V0,
}

/// Runs a command.
#[command_tool("ls <mode> .")]
pub struct EnumValueSpace {
    /// The mode
    pub mode: Choice,
}

fn main() {}
