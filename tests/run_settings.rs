//! Per-tool run settings (`timeout`, `max_output`, `env`) in both forms, applied by the
//! kernel per call: a long tool beside a short one on one kernel, the cap and its head and
//! tail per tool, variables reaching the command and the names a tool may not set.

use nanotool::{CommandStruct, command_tool};
use nanotool_runtime::descriptor::DescriptorLoader;
use nanotool_runtime::kernel::{DEFAULT_MAX_OUTPUT, RunSettings};
use nanotool_runtime::{
    Access, CommandExecKernel, CommandSpec, CommandTool, KernelSettings, Tool, ToolContext,
};
use serde_json::json;
use std::path::Path;
use std::time::Duration;

/// A kernel whose own timeout is one second: what a tool does not set.
fn kernel(dir: &Path, timeout: Duration) -> CommandExecKernel {
    CommandExecKernel::new(KernelSettings {
        cwd: dir.to_path_buf(),
        timeout,
        ..KernelSettings::default()
    })
    .unwrap()
}

fn call(tool: &dyn Tool, kernel: &CommandExecKernel) -> nanotool_runtime::ToolOutput {
    tool.call(
        &json!({}),
        &ToolContext {
            kernel,
            cancel: None,
        },
    )
}

fn descriptor(text: &str) -> CommandTool {
    let spec = DescriptorLoader::new()
        .parse(Path::new("t.tool.json"), text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    CommandTool::new(spec)
}

/// Runs the tests (as long as a test suite takes, here two seconds).
#[command_tool("sleep 2", name = "long_tests", timeout = 900)]
pub struct LongTests;

/// Shows the working tree's status.
#[command_tool("git status --short")]
pub struct GitStatus;

#[test]
fn a_long_tool_with_its_own_timeout_runs_beside_short_ones_at_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(init.success());
    // The host's timeout is one second: the long tool's own 900 wins for its calls only.
    let kernel = kernel(dir.path(), Duration::from_secs(1));
    let code = LongTests::tool();
    let long_descriptor = descriptor(
        r#"{"name": "long_tests", "description": "Runs the tests", "command": "sleep 2",
            "timeout": 900}"#,
    );
    let short = descriptor(
        r#"{"name": "short", "description": "Sleeps at the default", "command": "sleep 2"}"#,
    );
    for long in [&code as &dyn Tool, &long_descriptor] {
        let out = call(long, &kernel);
        let exec = out.exec.as_ref().unwrap();
        assert!(!exec.timed_out, "{}", out.text);
        assert_eq!(exec.exit_code, 0, "{}", out.text);
    }
    // The same command without the setting is killed at the host's timeout.
    let out = call(&short, &kernel);
    assert!(out.exec.as_ref().unwrap().timed_out, "{}", out.text);
    // And `git status` at the default answers as it always did.
    let out = call(&GitStatus::tool(), &kernel);
    assert_eq!(out.exec.as_ref().unwrap().exit_code, 0, "{}", out.text);
    assert_eq!(
        GitStatus::command_spec().unwrap().settings(),
        &RunSettings::new()
    );
}

/// Counts to twenty thousand.
#[command_tool("seq 1 20000", name = "count_small_cap", max_output = 1000)]
pub struct CountSmallCap;

#[test]
fn each_tool_has_its_cap_and_keeps_head_and_tail() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = kernel(dir.path(), Duration::from_secs(30));
    let total: u64 = (1..=20000u64).map(|n| n.to_string().len() as u64 + 1).sum();
    let descriptor_cap = descriptor(
        r#"{"name": "count_small_cap", "description": "Counts", "command": "seq 1 20000",
            "max_output": 1000}"#,
    );
    let at_default =
        descriptor(r#"{"name": "count", "description": "Counts", "command": "seq 1 20000"}"#);
    for (tool, cap) in [
        (&CountSmallCap::tool() as &dyn Tool, 1000u64),
        (&descriptor_cap, 1000),
        (&at_default, DEFAULT_MAX_OUTPUT as u64),
    ] {
        let out = call(tool, &kernel);
        let output = out.output().unwrap();
        let exec = out.exec.as_ref().unwrap();
        assert_eq!(exec.total_bytes, total);
        assert!(exec.truncated);
        assert_eq!(exec.omitted_bytes, total - cap, "cap {cap}");
        assert!(output.starts_with("1\n2\n3\n"), "the head is kept");
        assert!(output.ends_with("19999\n20000\n"), "the tail is kept");
        assert!(output.contains(&format!("[... {} bytes omitted ...]", total - cap)));
    }
}

/// Prints the variables a test run reads.
#[command_tool(
    "printenv RUST_BACKTRACE PYTHONPATH GIT_CONFIG_GLOBAL",
    name = "show_env",
    env(RUST_BACKTRACE = "1", PYTHONPATH = "src")
)]
pub struct ShowEnv;

#[test]
fn a_tools_variables_reach_its_command_and_the_kernels_still_hold() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = kernel(dir.path(), Duration::from_secs(30));
    let from_descriptor = descriptor(
        r#"{"name": "show_env", "description": "Prints variables",
            "command": "printenv RUST_BACKTRACE PYTHONPATH GIT_CONFIG_GLOBAL",
            "env": {"RUST_BACKTRACE": "1", "PYTHONPATH": "src"}}"#,
    );
    for tool in [&ShowEnv::tool() as &dyn Tool, &from_descriptor] {
        let out = call(tool, &kernel);
        assert_eq!(out.output(), Some("1\nsrc\n/dev/null\n"));
    }
    // Another tool on the same kernel gets none of them.
    let plain = descriptor(
        r#"{"name": "plain", "description": "Prints a variable",
            "command": "printenv RUST_BACKTRACE"}"#,
    );
    let out = call(&plain, &kernel);
    let exit = out.exec.as_ref().unwrap().exit_code;
    assert_eq!((exit, out.output()), (1, Some("")));
}

#[test]
fn the_kernel_refuses_settings_built_by_hand_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = kernel(dir.path(), Duration::from_secs(30));
    let touch = ["touch", "made"].map(String::from);
    let writes = Access {
        writes: true,
        network: false,
        local_network: false,
    };
    for settings in [
        RunSettings::new().with_env("LD_PRELOAD", "/tmp/x.so"),
        RunSettings::new().with_env("GIT_DIR", "/"),
        RunSettings::new().with_timeout(Duration::ZERO),
        RunSettings::new().with_max_output(0),
    ] {
        let result = kernel.run_with(&touch, writes, &settings, None);
        let error = result.start_error.expect("refused");
        assert!(error.contains("settings cannot be used"), "{error}");
        assert!(!dir.path().join("made").exists(), "nothing ran");
    }
    // A spec refuses them too, before any call.
    let spec = CommandSpec::new("t", "Touches", "touch made", vec![]).unwrap();
    let err = spec
        .with_settings(RunSettings::new().with_env("LD_LIBRARY_PATH", "/tmp"))
        .unwrap_err();
    assert!(err.to_string().contains("`LD_*`"), "{err}");
}

#[test]
fn every_bad_setting_in_a_descriptor_is_a_613_naming_the_file_and_field() {
    let cases = [
        (r#""timeout": 0"#, "timeout", "out of range"),
        (r#""timeout": -5"#, "timeout", "out of range"),
        (r#""timeout": 1.5"#, "timeout", "not a whole number"),
        (r#""timeout": "900""#, "timeout", "is a string"),
        (r#""timeout": 86401"#, "timeout", "from 1 to 86400"),
        (r#""max_output": 0"#, "max_output", "out of range"),
        (r#""max_output": 17000000"#, "max_output", "16 MiB"),
        (r#""env": ["A=1"]"#, "env", "write an object"),
        (r#""env": {"A-B": "1"}"#, "env.A-B", "not a variable name"),
        (r#""env": {"1A": "1"}"#, "env.1A", "not a variable name"),
        (
            r#""env": {"DEBUG": 1}"#,
            "env.DEBUG",
            "write the value as a string",
        ),
        (
            r#""env": {"LD_PRELOAD": "/x.so"}"#,
            "env.LD_PRELOAD",
            "`LD_*`",
        ),
        (
            r#""env": {"GIT_SSH_COMMAND": "x"}"#,
            "env.GIT_SSH_COMMAND",
            "`GIT_*`",
        ),
        (
            r#""env": {"HOME": "/tmp"}"#,
            "env.HOME",
            "kernel decides it",
        ),
        (
            r#""env": {"TMPDIR": "/tmp"}"#,
            "env.TMPDIR",
            "kernel decides it",
        ),
        (
            r#""env": {"BASH_ENV": "/x"}"#,
            "env.BASH_ENV",
            "kernel decides it",
        ),
        (
            r#""env": {"PYTHONNOUSERSITE": ""}"#,
            "env.PYTHONNOUSERSITE",
            "for every command",
        ),
        (
            r#""env": {"PAGER": "less"}"#,
            "env.PAGER",
            "for every command",
        ),
        (r#""timeot": 9"#, "timeot", "did you mean `timeout`"),
    ];
    for (field, pointer, words) in cases {
        let text = format!(
            r#"{{"name": "t", "description": "Runs the tests", "command": "cargo test", {field}}}"#
        );
        let err = DescriptorLoader::new()
            .parse(Path::new("tests.tool.json"), text.as_bytes())
            .expect_err(field);
        assert_eq!(err.code(), 613);
        assert_eq!(err.pointer.as_deref(), Some(pointer), "{field}: {err}");
        let shown = err.to_string();
        assert!(shown.starts_with("error 613: tests.tool.json: "), "{shown}");
        assert!(shown.contains(words), "{field}: {shown}");
    }
}
