//! pass: negative minimum.
use nanotool::{CommandStruct, command_tool};

/// Runs a command.
#[command_tool("seq <start> <end>")]
pub struct NegativeMinimum {
    /// The start
    #[slot(minimum = -100, maximum = 100)]
    pub start: i32,
    /// The end
    pub end: u32,
}

pub fn main() {
    let spec = NegativeMinimum::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "seq <start> <end>");
    let call = NegativeMinimum { start: -5, end: 3 };
    let argv = call.argv(std::path::Path::new(".")).unwrap();
    assert_eq!(argv.as_slice(), ["seq", "-5", "3"]);
}
