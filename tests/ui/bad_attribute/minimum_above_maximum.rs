//! bad_attribute: minimum above maximum.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("head -n <n> <file>")]
pub struct MinimumAboveMaximum {
    /// The n
    #[slot(minimum = 10, maximum = 1)]
    pub n: u32,
    /// The file
    pub file: WorkPath,
}

fn main() {}
