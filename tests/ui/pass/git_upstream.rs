//! pass: git upstream.
use nanotool::{CommandStruct, command_tool};

/// Runs a command.
#[command_tool("git rev-parse --abbrev-ref --symbolic-full-name @{{u}}")]
pub struct GitUpstream;

pub fn main() {
    let spec = GitUpstream::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "git rev-parse --abbrev-ref --symbolic-full-name @{{u}}");
    let argv = GitUpstream.argv(std::path::Path::new(".")).unwrap();
    assert_eq!(
        argv.as_slice(),
        ["git", "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"]
    );
}
