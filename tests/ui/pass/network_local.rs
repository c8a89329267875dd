//! pass: `network = "local"`, a private loopback only, alone and beside `writes`.
use nanotool::{Access, CommandStruct, Tool, command_tool};

/// Runs the test suite, which serves and connects on 127.0.0.1.
#[command_tool("cargo test", network = "local")]
pub struct NetworkLocal;

/// Runs the test suite, which also writes its build.
#[command_tool("cargo test", writes, network = "local", name = "test_w")]
pub struct TestWrites;

pub fn main() {
    // The value reaches the spec, as a descriptor's `"network": "local"` does.
    let local = Access { local_network: true, ..Access::READ_ONLY };
    assert_eq!(NetworkLocal::command_spec().unwrap().access(), local);
    assert_eq!(TestWrites::tool().access(), Access { writes: true, ..local });
}
