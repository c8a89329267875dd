//! pass: max count.
use nanotool::{CommandStruct, WorkPath, command_tool};

/// Runs a command.
#[command_tool("grep --max-count=<n> -rn <pattern> <path>")]
pub struct MaxCount {
    /// The n
    #[slot(minimum = 1)]
    pub n: Option<u32>,
    /// The pattern
    pub pattern: String,
    /// The path
    #[slot(default = ".")]
    pub path: WorkPath,
}

pub fn main() {
    // The runtime accepts what the compiler accepted: the same spec, built at first use.
    let spec = MaxCount::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(
        spec.template().source(),
        "grep --max-count=<n> -rn <pattern> <path>"
    );
}
