//! bad_attribute: enum value invisible.
use nanotool::{SlotEnum, command_tool};

/// The values the slot takes.
#[derive(SlotEnum)]
pub enum Choice {
    /// A value.
    #[slot(value = "-l\u{202E}")]
    V0,
}

/// Runs a command.
#[command_tool("ls <mode> .")]
pub struct EnumValueInvisible {
    /// The mode
    pub mode: Choice,
}

fn main() {}
