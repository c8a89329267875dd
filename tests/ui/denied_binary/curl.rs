//! denied_binary: curl.
use nanotool::command_tool;

/// Runs a command.
#[command_tool("curl <url>")]
pub struct Curl {
    /// The url
    pub url: String,
}

fn main() {}
