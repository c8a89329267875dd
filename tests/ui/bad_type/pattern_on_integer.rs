//! bad_type: pattern on integer.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("head -n <n> <file>")]
pub struct PatternOnInteger {
    /// The n
    #[slot(pattern = "^1$")]
    pub n: u32,
    /// The file
    pub file: WorkPath,
}

fn main() {}
