//! pass: sed range pattern.
use nanotool::{CommandStruct, WorkPath, command_tool};

/// Runs a command.
#[command_tool("sed -n <range>p <path>")]
pub struct SedRangePattern {
    /// The range
    #[slot(pattern = "^\\d+(,\\d+)?$")]
    pub range: String,
    /// The path
    pub path: WorkPath,
}

pub fn main() {
    // The runtime accepts what the compiler accepted: the same spec, built at first use.
    let spec =
        SedRangePattern::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "sed -n <range>p <path>");
}
