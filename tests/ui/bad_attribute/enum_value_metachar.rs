//! bad_attribute: enum value metachar.
use nanotool::{SlotEnum, command_tool};

/// The values the slot takes.
#[derive(SlotEnum)]
pub enum Choice {
    /// A value.
    #[slot(value = "-l;id")]
    V0,
}

/// Runs a command.
#[command_tool("ls <mode> .")]
pub struct EnumValueMetachar {
    /// The mode
    pub mode: Choice,
}

fn main() {}
