//! bad_attribute: enum value control.
use nanotool::{SlotEnum, command_tool};

/// The values the slot takes.
#[derive(SlotEnum)]
pub enum Choice {
    /// A value.
    #[slot(value = "-l\r")]
    V0,
}

/// Runs a command.
#[command_tool("ls <mode> .")]
pub struct EnumValueControl {
    /// The mode
    pub mode: Choice,
}

fn main() {}
