//! pass: brace placeholder.
use nanotool::{CommandStruct, WorkPath, command_tool};

/// Runs a command.
#[command_tool("ls {dir}")]
pub struct BracePlaceholder {
    /// The dir
    pub dir: WorkPath,
}

pub fn main() {
    // The runtime accepts what the compiler accepted: the same spec, built at first use.
    let spec =
        BracePlaceholder::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "ls {dir}");
}
