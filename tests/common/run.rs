//! A finished `nanotool` run and the checks the command-line tests make on it.

use std::process::Output;

use serde_json::Value;

/// A finished run of the binary.
pub struct Run(pub Output);

impl Run {
    pub fn code(&self) -> i32 {
        self.0.status.code().expect("an exit code")
    }
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.0.stdout).into_owned()
    }
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout())
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.stdout()))
    }
    /// Fails, showing both streams, unless the exit status is `code`.
    pub fn expect(&self, code: i32) -> &Run {
        assert_eq!(
            self.code(),
            code,
            "exit status\nstdout:\n{}\nstderr:\n{}",
            self.stdout(),
            self.stderr()
        );
        self
    }
}
