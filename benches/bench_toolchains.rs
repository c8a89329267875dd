//! Benchmark of what the sandbox costs a toolchain's call, side by side in one run: each
//! command below through a descriptor tool and a kernel with the default sandbox, and through
//! the same tool and a kernel with `--sandbox off`, interleaved (confined, unconfined,
//! confined, ...) after one warm-up call of each.
//!
//! - `npm test` of a tiny package whose test script runs `node test.js`,
//! - `python3 -m unittest` of a tiny test module,
//! - `python3 -m pip list`.
//!
//! A command that is not installed is skipped and named. The kernels may read what the
//! binaries resolve to (a pyenv under `$HOME`), as a host adds it with `--sandbox-read`.
//!
//! `cargo bench --bench bench_toolchains [-- N]` (N calls of each, default 9).

use nanotool_runtime::{
    CommandExecKernel, CommandTool, DescriptorLoader, KernelSettings, SandboxMode, Tool,
    ToolContext,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn tool(name: &str, command: &str) -> CommandTool {
    let descriptor = json!({"name": name, "description": name, "command": command});
    let spec = DescriptorLoader::new()
        .parse(
            Path::new(&format!("{name}.tool.json")),
            &serde_json::to_vec(&descriptor).unwrap(),
        )
        .expect("the descriptor loads");
    CommandTool::new(spec)
}

/// A confined kernel in `root` that may read what `binaries` resolve to.
fn confined(root: &Path, binaries: &[&str]) -> CommandExecKernel {
    let settings = KernelSettings {
        cwd: root.to_path_buf(),
        ..KernelSettings::default()
    };
    let probe = CommandExecKernel::new(settings.clone()).unwrap();
    let mut read: Vec<PathBuf> = Vec::new();
    for binary in binaries {
        for path in probe
            .unreadable_binary(binary)
            .map(|u| u.add)
            .unwrap_or_default()
        {
            if !read.contains(&path) {
                read.push(path);
            }
        }
    }
    CommandExecKernel::new(KernelSettings {
        sandbox_read: read,
        ..settings
    })
    .unwrap()
}

/// One call's wall time, and whether it exited 0.
fn time_call(kernel: &CommandExecKernel, tool: &CommandTool) -> (Duration, bool, String) {
    let started = Instant::now();
    let out = tool.call(
        &json!({}),
        &ToolContext {
            kernel,
            cancel: None,
        },
    );
    let elapsed = started.elapsed();
    let ok = out.exec.as_ref().is_some_and(|e| e.exit_code == 0);
    (elapsed, ok, out.text)
}

fn installed(binary: &str) -> bool {
    std::process::Command::new(binary)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn main() {
    // `cargo bench` adds `--bench` to the arguments.
    let n: usize = match std::env::args().skip(1).find(|a| a != "--bench") {
        None => 9,
        Some(a) => a.parse().unwrap_or_else(|_| {
            eprintln!(
                "bench_toolchains: `{a}` is no number of calls\nusage: cargo bench --bench bench_toolchains [-- N]"
            );
            std::process::exit(2);
        }),
    };
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    write(
        root,
        "package.json",
        r#"{"name": "tiny", "version": "1.0.0", "private": true, "scripts": {"test": "node test.js"}}"#,
    );
    write(root, "test.js", "console.log('tests ok');\n");
    write(root, "report.py", "def total(xs):\n    return sum(xs)\n");
    write(root, "tests/__init__.py", "");
    write(
        root,
        "tests/test_report.py",
        "import unittest\nimport report\n\nclass T(unittest.TestCase):\n    def test_total(self):\n        self.assertEqual(report.total([1, 2]), 3)\n",
    );
    let rows: Vec<(&str, &str, &[&str])> = vec![
        ("npm_test", "npm test", &["npm", "node"]),
        (
            "unittest",
            "python3 -m unittest tests.test_report",
            &["python3"],
        ),
        ("pip_list", "python3 -m pip list", &["python3"]),
    ];
    println!("bench_toolchains: {n} calls of each, confined and unconfined interleaved");
    for (name, command, binaries) in rows {
        if !installed(binaries[0]) {
            println!("  {command:40} skipped: {} is not installed", binaries[0]);
            continue;
        }
        let on = confined(root, binaries);
        let off = CommandExecKernel::new(KernelSettings {
            cwd: root.to_path_buf(),
            sandbox: SandboxMode::Off,
            ..KernelSettings::default()
        })
        .unwrap();
        let t = tool(name, command);
        for kernel in [&on, &off] {
            let (_, ok, text) = time_call(kernel, &t);
            assert!(ok, "{command} fails: {text}");
        }
        let (mut a, mut b) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            let (d, ok, text) = time_call(&on, &t);
            assert!(ok, "{command} fails confined: {text}");
            a.push(d);
            let (d, ok, text) = time_call(&off, &t);
            assert!(ok, "{command} fails unconfined: {text}");
            b.push(d);
        }
        let (a, b) = (median(a), median(b));
        println!(
            "  {command:40} confined median {:8.1} ms  unconfined median {:8.1} ms  confined/unconfined {:.3}",
            a.as_secs_f64() * 1e3,
            b.as_secs_f64() * 1e3,
            a.as_secs_f64() / b.as_secs_f64()
        );
    }
}
