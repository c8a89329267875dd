//! pass: the profile flags `writes` and `network`, beside `name`.
use nanotool::{Access, CommandStruct, Tool, command_tool};

/// Runs the crate's formatter.
#[command_tool("cargo fmt", name = "fmt", writes)]
pub struct WritesNetwork;

/// Fetches the crate's dependencies.
#[command_tool("cargo fetch", network)]
pub struct Fetch;

/// Builds the crate.
#[command_tool("cargo build", writes, network)]
pub struct Build;

pub fn main() {
    // The flags reach the spec, as a descriptor's `"writes"` / `"network"` fields do.
    let spec = WritesNetwork::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.access(), Access { writes: true, network: false, ..Access::READ_ONLY });
    assert_eq!(Fetch::command_spec().unwrap().access(), Access { writes: false, network: true, ..Access::READ_ONLY });
    assert_eq!(Build::tool().access(), Access { writes: true, network: true, ..Access::READ_ONLY });
}
