//! pass: every run setting; the settings reach the spec, as a descriptor's fields do.
use nanotool::{CommandStruct, command_tool};
use std::time::Duration;

/// Runs the tests.
#[command_tool("cargo test", name = "settings_all", timeout = 600, max_output = 65536, env(RUST_BACKTRACE = "1", PYTHONPATH = "src"))]
pub struct SettingsAll;

pub fn main() {
    let spec = SettingsAll::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.settings().timeout, Some(Duration::from_secs(600)));
    assert_eq!(spec.settings().max_output, Some(65536));
    assert_eq!(
        spec.settings().env,
        [("PYTHONPATH".to_owned(), "src".to_owned()), ("RUST_BACKTRACE".to_owned(), "1".to_owned())]
    );
}
