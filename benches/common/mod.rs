//! What the benchmarks share: the `nanotool` binary they drive.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `nanotool` binary of the build this benchmark belongs to, built first with the same
/// profile; `NANOTOOL_BIN` names another build instead (e.g. an older commit's), to measure
/// side by side.
pub fn nanotool_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("NANOTOOL_BIN") {
        return PathBuf::from(bin);
    }
    let exe = std::env::current_exe().expect("own path");
    // target/<profile>/deps/<benchmark>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev".to_owned(),
        Some(other) => other.to_owned(),
    };
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--quiet",
            "-p",
            "nanotool",
            "--bin",
            "nanotool",
            "--profile",
        ])
        .arg(&profile)
        .arg("--target-dir")
        .arg(profile_dir.parent().expect("target/"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("run cargo build");
    assert!(
        status.success(),
        "cargo build -p nanotool --bin nanotool failed"
    );
    profile_dir.join("nanotool")
}
