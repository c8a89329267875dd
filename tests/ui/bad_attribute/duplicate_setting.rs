//! bad_attribute: duplicate setting.

use nanotool::{WorkPath, command_tool};

/// Search text.
#[command_tool("grep -rn <pattern> <path>")]
pub struct DuplicateSetting {
    /// Text pattern to search
    pub pattern: String,
    /// Where to search
    #[slot(default = ".", default = "src")]
    pub path: WorkPath,
}

fn main() {}
