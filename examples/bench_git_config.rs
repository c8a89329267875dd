//! Benchmark of what reading the workspace's git configuration costs a call, side by side in
//! one run: spawning `/bin/true` through a confined kernel
//!
//! 1. in a folder that is no repository (the check before each call looks for `.git` in each
//!    ancestor and finds none),
//! 2. in a repository of one commit (the check `stat`s the 6 paths the reading consulted:
//!    `.git`, its `commondir`, `config`, `config.worktree`, `index`, `modules`),
//! 3. in a repository with a submodule, a repository recorded inside it and two include
//!    files (23 paths; their names add 22 environment variables too),
//! 4. the same repository with its `.git/config` touched before every call (so every call
//!    reads every configuration and index again; the touch itself is in the figure).
//!
//! `cargo run --release --example bench_git_config [N]` (N calls of each, default 2000).

use nanotool_runtime::{CommandExecKernel, KernelSettings, SandboxMode};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

fn commit(dir: &Path, message: &str) {
    git(
        dir,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            message,
        ],
    );
}

/// A repository with two includes, a submodule (under `.git/modules`) and an embedded
/// repository (a gitlink whose `.git` is a folder).
fn repository(dir: &Path, sub_source: &Path) {
    git(sub_source, &["init", "-q", "."]);
    std::fs::write(sub_source.join("a.txt"), "a\n").unwrap();
    git(sub_source, &["add", "a.txt"]);
    commit(sub_source, "sub");
    git(dir, &["init", "-q", "."]);
    std::fs::write(dir.join("a.txt"), "a\n").unwrap();
    git(dir, &["add", "a.txt"]);
    commit(dir, "a");
    git(
        dir,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            sub_source.to_str().unwrap(),
            "sub",
        ],
    );
    let emb = dir.join("emb");
    std::fs::create_dir(&emb).unwrap();
    git(&emb, &["init", "-q", "."]);
    std::fs::write(emb.join("b.txt"), "b\n").unwrap();
    git(&emb, &["add", "b.txt"]);
    commit(&emb, "emb");
    git(dir, &["add", "emb"]);
    commit(dir, "with a submodule and an embedded repository");
    std::fs::write(
        dir.join(".git/one.cfg"),
        "[diff \"one\"]\n\tbinary = true\n",
    )
    .unwrap();
    std::fs::write(dir.join(".git/two.cfg"), "[merge \"two\"]\n\tname = two\n").unwrap();
    let mut config = std::fs::read_to_string(dir.join(".git/config")).unwrap();
    config.push_str("[include]\n\tpath = one.cfg\n[includeIf \"gitdir:/\"]\n\tpath = two.cfg\n");
    std::fs::write(dir.join(".git/config"), config).unwrap();
}

fn kernel(cwd: &Path) -> CommandExecKernel {
    CommandExecKernel::new(KernelSettings {
        cwd: cwd.to_path_buf(),
        sandbox: SandboxMode::BestEffort,
        ..KernelSettings::default()
    })
    .expect("kernel")
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2000);
    let plain_dir = tempfile::tempdir().unwrap();
    let repo_dir = tempfile::tempdir().unwrap();
    let sub_source = tempfile::tempdir().unwrap();
    repository(repo_dir.path(), sub_source.path());
    let small_dir = tempfile::tempdir().unwrap();
    git(small_dir.path(), &["init", "-q", "."]);
    std::fs::write(small_dir.path().join("a.txt"), "a\n").unwrap();
    git(small_dir.path(), &["add", "a.txt"]);
    commit(small_dir.path(), "a");
    let plain = kernel(plain_dir.path());
    let small = kernel(small_dir.path());
    let repo = kernel(repo_dir.path());
    let config = repo_dir.path().join(".git/config");
    let argv = vec!["/bin/true".to_string()];
    let status = repo.sandbox_status().to_string();
    println!("spawn /bin/true, {n} calls of each, round robin ({status})");

    let mut samples = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    let mut tick = 0u64;
    for _ in 0..n {
        let t = Instant::now();
        assert_eq!(plain.run(&argv).exit_code, 0);
        samples[0].push(t.elapsed());
        let t = Instant::now();
        assert_eq!(small.run(&argv).exit_code, 0);
        samples[1].push(t.elapsed());
        let t = Instant::now();
        assert_eq!(repo.run(&argv).exit_code, 0);
        samples[2].push(t.elapsed());
        let t = Instant::now();
        tick += 1;
        let file = std::fs::File::options().write(true).open(&config).unwrap();
        file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(tick))
            .unwrap();
        drop(file);
        assert_eq!(repo.run(&argv).exit_code, 0);
        samples[3].push(t.elapsed());
    }
    let [a, s, b, c] = samples.map(median);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "  no repository                         median {:.3} ms",
        ms(a)
    );
    println!(
        "  one repository, checked before each   median {:.3} ms  {:.3}x no repository",
        ms(s),
        s.as_secs_f64() / a.as_secs_f64()
    );
    println!(
        "  submodules, checked before each call  median {:.3} ms  {:.3}x no repository",
        ms(b),
        b.as_secs_f64() / a.as_secs_f64()
    );
    println!(
        "  submodules, read again before each    median {:.3} ms  {:.3}x no repository, {:.1} us more than checked",
        ms(c),
        c.as_secs_f64() / a.as_secs_f64(),
        (c.as_secs_f64() - b.as_secs_f64()) * 1e6
    );
}
