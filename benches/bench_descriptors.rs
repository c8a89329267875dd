//! Descriptor loading cost: the full loader (file checks, UTF-8, JSON, shape, template, policy,
//! slot specs, name uniqueness) against a bare `serde_json::from_slice::<Value>` of the same
//! files, both listing the folder and reading every file.
//!
//! `cargo bench --bench bench_descriptors [-- FILES RUNS]` (default 10000 files, 15 runs).

use nanotool_runtime::descriptor::{DescriptorLoad, DescriptorLoader};
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

/// Realistic descriptors: the bundled kinds, one with a `pattern`, one with an enum.
const KINDS: &[&str] = &[
    r#"{"name": "NAME", "description": "Count the lines of a file", "command": "wc -l <file>",
        "arguments": {"file": {"type": "path", "description": "The file"}}}"#,
    r#"{"name": "NAME", "description": "Recent commits", "command": "git log --oneline -n <count>",
        "arguments": {"count": {"type": "integer", "description": "How many", "minimum": 1,
                                "maximum": 200, "default": 10}}}"#,
    r#"{"name": "NAME", "description": "List a directory", "command": "ls <mode> <path>",
        "arguments": {"mode": {"type": "enum", "enum": ["-1", "-l", "-la"], "description": "Mode",
                               "default": "-1"},
                      "path": {"type": "path", "description": "Directory", "default": "."}}}"#,
    r#"{"name": "NAME", "description": "First lines", "command": "head -n <lines> <file>",
        "arguments": {"lines": {"type": "integer", "description": "How many", "default": 20},
                      "file": {"type": "path", "description": "The file"}}}"#,
    r#"{"name": "NAME", "description": "Pretty JSON", "command": "python3 -m json.tool <file>",
        "arguments": {"file": {"type": "path", "description": "The JSON file"}}}"#,
    r#"{"name": "NAME", "description": "Print lines", "command": "sed -n <range>p <file>",
        "arguments": {"range": {"type": "string", "pattern": "PATTERN",
                                "description": "N or N,M"},
                      "file": {"type": "path", "description": "The file"}}}"#,
    r#"{"name": "NAME", "description": "Search text", "command": "grep -rn <pattern> <path>",
        "arguments": {"pattern": {"type": "string", "description": "What to find"},
                      "path": {"type": "path", "description": "Where", "default": "."}}}"#,
];

/// Lists, reads and parses every file; keeps the values (dropped outside the timing, like the
/// loader's tools).
fn bare(dir: &Path) -> Vec<Value> {
    let mut names: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".tool.json"))
        .collect();
    names.sort();
    let mut values = Vec::with_capacity(names.len());
    for path in names {
        let bytes = fs::read(&path).unwrap();
        if let Ok(value) = serde_json::from_slice::<Value>(&bytes) {
            values.push(value);
        }
    }
    values
}

/// The full loader; keeps the tools.
fn full(dir: &Path) -> DescriptorLoad {
    let load = DescriptorLoader::new().load_dir(dir);
    assert!(load.errors.is_empty(), "{:?}", load.errors.first());
    load
}

fn folder(files: usize, pattern: impl Fn(usize) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..files {
        let text = KINDS[i % KINDS.len()]
            .replace("NAME", &format!("tool_{i:05}"))
            .replace("PATTERN", &pattern(i));
        fs::write(dir.path().join(format!("tool_{i:05}.tool.json")), text).unwrap();
    }
    dir
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    // `cargo bench` adds `--bench` to the arguments.
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let files: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(15);
    // Folders repeat their arguments (the same `range` of a sed tool, copied around): the
    // loader compiles each distinct patterned argument once. A second folder gives every
    // patterned file a pattern of its own, the worst case.
    let dir = folder(files, |_| r"^\\d+(,\\d+)?$".to_owned());
    let distinct = folder(files, |i| format!(r"^\\d+(,\\d+)?(?:_{i})?$"));
    // Warm the page cache and check both agree on the count.
    assert_eq!(bare(dir.path()).len(), files);
    assert_eq!(full(dir.path()).tools.len(), files);

    assert_eq!(full(distinct.path()).tools.len(), files);
    // Bare and full run back to back, the order alternating, and each pair gives a ratio: a
    // slow moment of the machine falls on both halves of a pair. The worst case runs apart.
    let (mut bare_times, mut full_times, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..runs {
        let time_bare = || {
            let t = Instant::now();
            let values = std::hint::black_box(bare(dir.path()));
            let elapsed = t.elapsed();
            drop(values);
            elapsed
        };
        let time_full = || {
            let t = Instant::now();
            let load = std::hint::black_box(full(dir.path()));
            let elapsed = t.elapsed();
            drop(load);
            elapsed
        };
        let (b, f) = if run % 2 == 0 {
            let b = time_bare();
            (b, time_full())
        } else {
            let f = time_full();
            (time_bare(), f)
        };
        bare_times.push(b);
        full_times.push(f);
        ratios.push(f.as_secs_f64() / b.as_secs_f64());
    }
    let mut distinct_times = Vec::new();
    for _ in 0..runs.div_ceil(2) {
        let t = Instant::now();
        let load = std::hint::black_box(full(distinct.path()));
        distinct_times.push(t.elapsed());
        drop(load);
    }
    ratios.sort_by(f64::total_cmp);
    let paired = ratios[ratios.len() / 2];
    let (b, f, d) = (
        median(bare_times),
        median(full_times),
        median(distinct_times),
    );
    println!("descriptor files: {files}, runs: {runs} (medians, list + read included in both)");
    println!(
        "bare serde_json::from_slice::<Value>: {:>8.2} ms  ({:.2} us/file)",
        b.as_secs_f64() * 1e3,
        b.as_secs_f64() * 1e6 / files as f64
    );
    println!(
        "full DescriptorLoader::load_dir:      {:>8.2} ms  ({:.2} us/file)",
        f.as_secs_f64() * 1e3,
        f.as_secs_f64() * 1e6 / files as f64
    );
    println!(
        "ratio full/bare: {:.2}x (median of {runs} back-to-back pairs; {:.2}x from the medians; target <= 1.5x)",
        paired,
        f.as_secs_f64() / b.as_secs_f64()
    );
    let patterned = files.div_ceil(KINDS.len());
    println!(
        "worst case, {patterned} distinct patterns (one regex compile each): {:.2} ms, {:.2}x",
        d.as_secs_f64() * 1e3,
        d.as_secs_f64() / b.as_secs_f64()
    );
}
