//! pass: find exec braces.
use nanotool::{CommandStruct, WorkPath, command_tool};

/// Runs a command.
#[command_tool("find <dir> -name <glob> -exec wc -l {{}} +")]
pub struct FindExecBraces {
    /// The dir
    pub dir: WorkPath,
    /// The glob
    pub glob: String,
}

pub fn main() {
    let spec = FindExecBraces::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "find <dir> -name <glob> -exec wc -l {{}} +");
    let call = FindExecBraces { dir: WorkPath::from("src"), glob: "*.rs".into() };
    let argv = call.argv(std::path::Path::new(".")).unwrap();
    assert_eq!(argv.as_slice(), ["find", "./src", "-name", "*.rs", "-exec", "wc", "-l", "{}", "+"]);
}
