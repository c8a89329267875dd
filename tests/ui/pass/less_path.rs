//! pass: less path.
use nanotool::{CommandStruct, WorkPath, command_tool};

/// Runs a command.
#[command_tool("less -N <file>")]
pub struct LessPath {
    /// The file
    pub file: WorkPath,
}

pub fn main() {
    // A path renders `./file`, never `+command`: the runtime accepts it too.
    let spec = LessPath::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "less -N <file>");
}
