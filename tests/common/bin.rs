//! Shared by the tests that run the `nanotool` binary (`mod common;` in each, or by path), or
//! another program of the workspace that cargo builds for them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Builds the `nanotool` binary once per test process (it lives in the `nanotool` crate, which
/// this package sees only as a library) and returns its path: `target/<profile>/nanotool`,
/// next to the `deps/` folder this test runs from.
///
/// `NANOTOOL_TEST_BIN` names a binary built beforehand instead (scripts/test-kernels sets it:
/// a guest kernel's tests run from a read-only copy of the workspace, without cargo).
pub fn nanotool_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(bin) = std::env::var_os("NANOTOOL_TEST_BIN") {
            return PathBuf::from(bin);
        }
        let bin = format!("nanotool{}", std::env::consts::EXE_SUFFIX);
        cargo_build(&["-p", "nanotool", "--bin", "nanotool"], &bin)
    })
}

/// Runs `cargo build --quiet ARGS` in this test's profile and target folder, and returns the
/// path of `artifact` below `target/<profile>/`, which must exist then.
pub fn cargo_build(args: &[&str], artifact: &str) -> PathBuf {
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
    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet"])
        .args(args)
        .arg("--profile")
        .arg(&profile)
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("run cargo build");
    assert!(status.success(), "cargo build {args:?} failed");
    let built = profile_dir.join(artifact);
    assert!(built.is_file(), "no {artifact} at {}", built.display());
    built
}
