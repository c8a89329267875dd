//! bad_type: enum with data.

use nanotool::{SlotEnum, command_tool};

/// The values the slot takes.
#[derive(SlotEnum)]
pub enum Choice {
    /// Long.
    #[slot(value = "-l")]
    Long(String),
}

/// List.
#[command_tool("ls <mode> .")]
pub struct EnumWithData {
    /// Listing mode
    pub mode: Choice,
}

fn main() {}
