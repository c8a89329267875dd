//! pass: dash after option.
use nanotool::{CommandStruct, WorkPath, command_tool};

/// Runs a command.
#[command_tool("grep -rn -C 2 -e <pattern> <path>")]
pub struct DashAfterOption {
    /// The pattern
    pub pattern: String,
    /// The path
    #[slot(default = ".")]
    pub path: WorkPath,
}

pub fn main() {
    let spec = DashAfterOption::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "grep -rn -C 2 -e <pattern> <path>");
    // `-e` takes the next argument as the pattern, whatever it begins with.
    let call = DashAfterOption { pattern: "--locked".into(), path: WorkPath::from(".") };
    let argv = call.argv(std::path::Path::new(".")).unwrap();
    assert_eq!(argv.as_slice(), ["grep", "-rn", "-C", "2", "-e", "--locked", "."]);
}
