//! pass: every resource limit and a readable path; they reach the spec, as a descriptor's
//! fields do.
use nanotool::{CommandStruct, command_tool};
use std::time::Duration;

/// Runs the tests.
#[command_tool("cargo test", name = "limits_all", memory = "8G", file_size = "100M", open_files = 4096, cpu_time = 600, processes = 64, sandbox_read("/usr"))]
pub struct LimitsAll;

pub fn main() {
    let spec = LimitsAll::command_spec().expect("the runtime refuses what the macro accepted");
    let settings = spec.settings();
    assert_eq!(settings.memory, Some(8 << 30));
    assert_eq!(settings.file_size, Some(100 << 20));
    assert_eq!(settings.open_files, Some(4096));
    assert_eq!(settings.cpu_time, Some(Duration::from_secs(600)));
    assert_eq!(settings.processes, Some(64));
    assert_eq!(settings.sandbox_read, [std::path::Path::new("/usr").canonicalize().unwrap()]);
}
