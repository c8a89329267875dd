//! pass: a `cargo test` tool with a long timeout; the settings reach the spec, as a descriptor's fields do.
use nanotool::{CommandStruct, command_tool};
use std::time::Duration;

/// Runs the tests.
#[command_tool("cargo test", name = "long_timeout", timeout = 900)]
pub struct LongTimeout;

pub fn main() {
    let spec = LongTimeout::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.settings().timeout, Some(Duration::from_secs(900)));
    assert_eq!(spec.settings().max_output, None);
}
