//! bad_attribute: invalid pattern.
use nanotool::{WorkPath, command_tool};

/// Runs a command.
#[command_tool("sed -n <range>p <file>")]
pub struct InvalidPattern {
    /// The range
    #[slot(pattern = "^(\\d+$")]
    pub range: String,
    /// The file
    pub file: WorkPath,
}

fn main() {}
