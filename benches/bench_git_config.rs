//! Benchmark of what reading the workspace's git configuration costs a call, side by side in
//! one run: spawning `sh -c :` (a program that runs programs, so it gets the overrides and the
//! check before each call) through a confined kernel
//!
//! 1. in a folder that is no repository (the check before each call looks for `.git` in each
//!    ancestor and finds none),
//! 2. in a repository of one commit (the check `stat`s the 6 paths the reading consulted:
//!    `.git`, its `commondir`, `config`, `config.worktree`, `index`, `modules`),
//! 3. in a repository with a submodule, a repository recorded inside it and two include
//!    files (23 paths; their names add 22 environment variables too),
//! 4. the same repository with its `.git/config` touched before every call (so every call
//!    reads every configuration and index again; the touch itself is in the figure);
//!
//! and `/bin/true` (a leaf program: nothing read from the repositories reaches it, so its
//! call makes no check) in the repository of 3 against the folder of 1.
//!
//! `cargo bench --bench bench_git_config [-- N]` (N calls of each, default 2000).

// The tests' git fixtures: plain git without the machine's or the user's configuration
// (the many-repository fixtures are `bench_scale`'s).
#[allow(dead_code)]
#[path = "../tests/common/git.rs"]
mod git;

use git::{FILE_OK, commit, git, init_repo};
use nanotool_runtime::{CommandExecKernel, KernelSettings, SandboxMode};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// A repository with two includes, a submodule (under `.git/modules`) and an embedded
/// repository (a gitlink whose `.git` is a folder).
fn repository(dir: &Path, sub_source: &Path) {
    init_repo(sub_source, &[("a.txt", "a\n")], "sub");
    init_repo(dir, &[("a.txt", "a\n")], "a");
    let url = sub_source.to_str().unwrap();
    git(
        dir,
        &[&FILE_OK[..], &["submodule", "add", "-q", url, "sub"]].concat(),
    );
    let emb = dir.join("emb");
    std::fs::create_dir(&emb).unwrap();
    init_repo(&emb, &[("b.txt", "b\n")], "emb");
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
    // `cargo bench` adds `--bench` to the arguments.
    let n: usize = match std::env::args().skip(1).find(|a| a != "--bench") {
        None => 2000,
        Some(a) => a.parse().unwrap_or_else(|_| {
            eprintln!("bench_git_config: `{a}` is no number of calls\nusage: cargo bench --bench bench_git_config [-- N]");
            std::process::exit(2);
        }),
    };
    let plain_dir = tempfile::tempdir().unwrap();
    let repo_dir = tempfile::tempdir().unwrap();
    let sub_source = tempfile::tempdir().unwrap();
    repository(repo_dir.path(), sub_source.path());
    let small_dir = tempfile::tempdir().unwrap();
    init_repo(small_dir.path(), &[("a.txt", "a\n")], "a");
    let plain = kernel(plain_dir.path());
    let small = kernel(small_dir.path());
    let repo = kernel(repo_dir.path());
    let config = repo_dir.path().join(".git/config");
    let argv: Vec<String> = ["/bin/sh", "-c", ":"].map(String::from).into();
    let leaf = vec!["/bin/true".to_string()];
    let status = repo.sandbox_status().to_string();
    println!("spawn `sh -c :` and `/bin/true`, {n} calls of each, round robin ({status})");

    let mut samples = [(); 6].map(|()| Vec::new());
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
        let t = Instant::now();
        assert_eq!(plain.run(&leaf).exit_code, 0);
        samples[4].push(t.elapsed());
        let t = Instant::now();
        assert_eq!(repo.run(&leaf).exit_code, 0);
        samples[5].push(t.elapsed());
    }
    let [a, s, b, c, leaf_plain, leaf_repo] = samples.map(median);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "  sh -c :, no repository                median {:.3} ms",
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
    println!(
        "  /bin/true, no repository              median {:.3} ms",
        ms(leaf_plain)
    );
    println!(
        "  /bin/true, submodules (no check)      median {:.3} ms  {:.3}x no repository",
        ms(leaf_repo),
        leaf_repo.as_secs_f64() / leaf_plain.as_secs_f64()
    );
}
