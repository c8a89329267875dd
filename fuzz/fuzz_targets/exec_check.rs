//! ExecTool's tokenising and layers never panic on any text; what they accept is argv with
//! an allowlisted binary, no metacharacter, and no element that is an absolute path.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nanotool_runtime::ExecTool;
use std::sync::OnceLock;

fn tool() -> &'static ExecTool {
    static TOOL: OnceLock<ExecTool> = OnceLock::new();
    TOOL.get_or_init(|| {
        let allow = ["ls", "cat", "grep", "find", "sed", "git", "sort", "python3", "wc"];
        ExecTool::new(allow.iter().map(|s| s.to_string()).collect()).expect("a valid allowlist")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(command) = std::str::from_utf8(data) else {
        return;
    };
    let root = std::env::temp_dir();
    if let Ok(argv) = tool().check(command, &root) {
        assert!(tool().allowlist().contains(&argv[0]));
        for arg in &argv {
            assert!(!arg.is_empty());
            assert!(!arg.chars().any(|c| c.is_whitespace() || "'\"`;|&$<>".contains(c)));
            assert!(!arg.starts_with('/'));
        }
    }
});
