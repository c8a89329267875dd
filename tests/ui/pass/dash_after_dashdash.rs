//! pass: dash after dashdash.
use nanotool::{CommandStruct, WorkPath, command_tool};

/// Runs a command.
#[command_tool("grep -n -F -- <text> <file>")]
pub struct DashAfterDashdash {
    /// The text
    pub text: String,
    /// The file
    pub file: WorkPath,
}

pub fn main() {
    let spec =
        DashAfterDashdash::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "grep -n -F -- <text> <file>");
    // After `--`, grep reads every argument as an operand.
    let call = DashAfterDashdash { text: "-> Result".into(), file: WorkPath::from("src/lib.rs") };
    let argv = call.argv(std::path::Path::new(".")).unwrap();
    assert_eq!(argv.as_slice(), ["grep", "-n", "-F", "--", "-> Result", "./src/lib.rs"]);
}
