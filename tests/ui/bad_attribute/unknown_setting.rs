//! bad_attribute: unknown setting.

use nanotool::{WorkPath, command_tool};

/// Search text.
#[command_tool("grep -rn <pattern> <path>")]
pub struct UnknownSetting {
    /// Text pattern to search
    pub pattern: String,
    /// Where to search
    #[slot(defualt = ".")]
    pub path: WorkPath,
}

fn main() {}
