//! Runs the examples that show nanotool inside async Rust programs (rig's, an example of the
//! `nanotool` package, too) and checks what they print: an example that stops building or
//! working fails the suite.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds the example `name` of this package (with `features` of it; with every feature of the
/// workspace when this test was built with the adapters' feature) in the profile and target
/// folder of this test, runs it from the workspace root, and returns its stdout; fails
/// the test if the build fails or the example exits non-zero.
fn run_example(name: &str, features: &[&str]) -> String {
    run_example_of(None, name, features)
}

/// [`run_example`] for an example of the workspace's `package` (`Some("nanotool")`), with
/// `features` of that package.
fn run_example_of(package: Option<&str>, name: &str, features: &[&str]) -> String {
    let exe = std::env::current_exe().expect("the test's own path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>");
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev".to_owned(),
        Some(other) => other.to_owned(),
    };
    let target_dir = profile_dir.parent().expect("target/");
    let mut build = Command::new(env!("CARGO"));
    build
        .args(["build", "--quiet", "--example", name, "--profile"])
        .arg(&profile)
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if cfg!(feature = "rmcp") {
        // The suite was built with the workspace's features (`scripts/test`: every one): the
        // same set here finds the example's dependencies built, where the package's own set
        // would build them again with other features.
        build.args(["--workspace", "--all-features"]);
    } else {
        if let Some(package) = package {
            build.args(["--package", package]);
        }
        if !features.is_empty() {
            build.arg("--features").arg(features.join(","));
        }
    }
    let status = build.status().expect("run cargo build");
    assert!(status.success(), "cargo build --example {name} failed");
    let bin: PathBuf = profile_dir.join("examples").join(name);
    let out = Command::new(&bin)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", bin.display()));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "example {name} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn async_call_example_times_out_and_cancels() {
    let out = run_example("async_call", &[]);
    assert!(out.contains("count_lines:\nexit: 0\n"), "{out}");
    assert!(
        out.contains("the future was dropped, the command killed"),
        "{out}"
    );
    // And it was (one the drop had missed would outlive the example, orphaned).
    assert_gone(&["sleep", "587"]);
    assert!(
        out.contains("cancelled: is_error=true\nexit: 130\ncancelled\n"),
        "{out}"
    );
}

#[test]
fn rig_tools_example_calls_through_a_rig_tool_set() {
    let out = run_example_of(Some("nanotool"), "rig_tools", &["rig"]);
    assert!(out.contains("tools: echo, count_lines, wait\n"), "{out}");
    assert!(
        out.contains("count_lines: success\nexit: 0\noutput: "),
        "{out}"
    );
    assert!(
        out.contains(
            "refused: kind=invalid_args retryable=Some(true) code=Some(\"614\")\nerror 614: argument `file`: `/etc/passwd` is outside the working directory"
        ),
        "{out}"
    );
    assert!(
        out.contains("unknown: tool `count_line` not found; did you mean `count_lines`?\n"),
        "{out}"
    );
    assert!(
        out.contains("the future was dropped, the command killed"),
        "{out}"
    );
    assert_gone(&["sleep", "593"]);
}

/// Fails if a process with exactly the command line `argv` still runs in this checkout (the
/// examples run their commands here; the same test of another checkout running beside this
/// one is not this example's leftover) after a generous wait: the kill is sent as the future
/// drops or, when the example exits first, by the parent-death signal, and a loaded machine
/// may take a moment to finish it. A hang detector, not a timing claim.
fn assert_gone(argv: &[&str]) {
    let wanted: Vec<u8> = argv
        .iter()
        .flat_map(|a| [a.as_bytes(), b"\x00"].concat())
        .collect();
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap();
    let running = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| {
                let dir = entry.ok()?.path();
                let cmdline = std::fs::read(dir.join("cmdline")).ok()?;
                let cwd = std::fs::read_link(dir.join("cwd")).ok()?;
                Some((cmdline, cwd))
            })
            .filter(|(cmdline, cwd)| *cmdline == wanted && *cwd == here)
            .count()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut left = running();
    while left > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        left = running();
    }
    assert_eq!(left, 0, "the timed-out command {argv:?} still runs");
}
