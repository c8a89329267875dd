//! Scale curves, each size measured against the raw command side by side in one run
//! (interleaved, medians with their spread over the rounds): `cargo bench --bench bench_scale
//! [-- SECTION [ROUNDS]]`, SECTION one of `tools`, `size`, `nesting`, `status`, `output`,
//! `concurrency`, `drain` (default: all; ROUNDS default 11).
//!
//! - `tools`: `nanotool call` of a `true` tool with 10 and with 1,000 descriptors, against
//!   `/bin/true` spawned by this process.
//! - `size`: `git --version` through `nanotool call` in repositories of 1k, 100k and 1M
//!   tracked files (the index written by one `git update-index --index-info`, no files on
//!   disk), against raw `git --version` there; the reading is kept between calls in a cache
//!   folder of this run (`XDG_CACHE_HOME`).
//! - `nesting`: `git log -1` through `nanotool call` with 1, 100 and 1,000 embedded
//!   repositories, against raw `git log -1`.
//! - `status`: `git status --porcelain` through one `nanotool serve` (a `tools/call` each,
//!   the server started once) in work trees of 1k and 100k tracked files on disk, against
//!   raw `git status --porcelain` spawned by this process there.
//! - `output`: `head -c N /dev/zero` through `nanotool call` with `--max-output 16777216`,
//!   N from 1 KB to 100 MB, against the same `head` read by this process and against
//!   `head | tail -c 16777216` (the same bytes moved: all read, the cap printed); and the
//!   call's peak RSS (`wait4`).
//! - `concurrency`: K `sleep 0.2` calls sent at once to `nanotool serve`, K from 1 to 128:
//!   the wall time until the K-th answer, against K `sleep 0.2` spawned at once.
//! - `drain`: `head -c 1G /dev/zero` through `nanotool call` (confined and `--sandbox off`)
//!   against `head -c 1G /dev/zero | cat` run by `sh` (its output read by this process).

mod common;
#[allow(dead_code)]
#[path = "../tests/common/git.rs"]
mod git;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

/// The median and the spread (min–max) of the samples, in ms.
fn stats(v: &[Duration]) -> (f64, f64, f64) {
    let mut v: Vec<f64> = v.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn show(label: &str, v: &[Duration]) -> f64 {
    let (m, lo, hi) = stats(v);
    println!("  {label:<48} median {m:9.3} ms  ({lo:.3}–{hi:.3})");
    m
}

/// Runs `cmd` with its output read and dropped; its time and its exit status.
fn timed(cmd: &mut Command) -> Duration {
    let t = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut sink = [0u8; 1 << 16];
    let mut out = child.stdout.take().unwrap();
    while out.read(&mut sink).map(|n| n > 0).unwrap_or(false) {}
    assert!(child.wait().unwrap().success(), "{cmd:?}");
    t.elapsed()
}

/// A project folder with `.work/tools` holding `tools` (file name, JSON).
fn project(tools: &[(String, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join(".work/tools");
    std::fs::create_dir_all(&work).unwrap();
    for (file, body) in tools {
        std::fs::write(work.join(file), body).unwrap();
    }
    dir
}

fn tool(name: &str, command: &str) -> (String, String) {
    (
        format!("{name}.tool.json"),
        json!({"name": name, "description": "bench", "command": command}).to_string(),
    )
}

fn cli(dir: &Path, cache: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(common::nanotool_bin());
    cmd.args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", cache)
        .env("XDG_STATE_HOME", cache.join("state"))
        .env("NANOTOOL_LOG", "error");
    cmd
}

/// `nanotool call` of `true` with 10 and 1,000 descriptors, in the two layouts of a work
/// folder: the default `.work` under the working directory (where commands could reach it: the
/// first call reads every descriptor to learn whether one declares `writes` and records it,
/// the next `stat` every entry against the record and read their own) and a work folder
/// outside it (`--work`, where a call reads the one file named after its tool).
fn tools_section(rounds: usize, cache: &Path) {
    println!("tools: `nanotool call` of `true` vs /bin/true ({rounds} rounds)");
    let make = |n: usize| {
        let tools: Vec<_> = (0..n).map(|i| tool(&format!("t{i}"), "true")).collect();
        project(&tools)
    };
    let (ten, thousand) = (make(10), make(1000));
    // The same descriptors, the work folder given with --work and the commands run in a
    // folder beside it.
    let outside = |project: &Path| {
        let cwd = project.join("src");
        std::fs::create_dir_all(&cwd).unwrap();
        (cwd, project.join(".work"))
    };
    let (ten_cwd, ten_work) = outside(ten.path());
    let (thousand_cwd, thousand_work) = outside(thousand.path());
    let apart = |cwd: &Path, work: &Path| {
        let mut cmd = cli(cwd, cache, &["--work"]);
        cmd.arg(work).args(["call", "t0"]);
        cmd
    };
    // The descriptors settle (a record of their writers is kept only of files unchanged for
    // two seconds) and the first call of each layout loads them all, as a user's first does.
    std::thread::sleep(Duration::from_millis(2100));
    for mut first in [
        cli(ten.path(), cache, &["call", "t0"]),
        cli(thousand.path(), cache, &["call", "t0"]),
        apart(&ten_cwd, &ten_work),
        apart(&thousand_cwd, &thousand_work),
    ] {
        timed(&mut first);
    }
    let mut s = [(); 5].map(|()| Vec::new());
    for _ in 0..rounds {
        s[0].push(timed(&mut Command::new("/bin/true")));
        s[1].push(timed(&mut cli(ten.path(), cache, &["call", "t0"])));
        s[2].push(timed(&mut cli(thousand.path(), cache, &["call", "t0"])));
        s[3].push(timed(&mut apart(&ten_cwd, &ten_work)));
        s[4].push(timed(&mut apart(&thousand_cwd, &thousand_work)));
    }
    let raw = show("/bin/true", &s[0]);
    let a = show("call, 10 descriptors, .work under the cwd", &s[1]);
    let b = show("call, 1,000 descriptors, .work under the cwd", &s[2]);
    let c = show("call, 10 descriptors, --work outside the cwd", &s[3]);
    let d = show("call, 1,000 descriptors, --work outside the cwd", &s[4]);
    println!(
        "  .work under the cwd: 1,000 / 10: {:.3}  (10: {:.2}x raw, 1,000: {:.2}x raw)",
        b / a,
        a / raw,
        b / raw
    );
    println!(
        "  --work outside the cwd: 1,000 / 10: {:.3}  (10: {:.2}x raw, 1,000: {:.2}x raw)",
        d / c,
        c / raw,
        d / raw
    );
    // The floor of a call that checks the record: a `stat` of every entry, here in-process.
    let tools = thousand.path().join(".work/tools");
    let stats: Vec<Duration> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            let mut n = 0;
            for entry in std::fs::read_dir(&tools).unwrap() {
                std::hint::black_box(entry.unwrap().metadata().unwrap());
                n += 1;
            }
            assert_eq!(n, 1000);
            t.elapsed()
        })
        .collect();
    let floor = show("read_dir + stat of the 1,000 entries", &stats);
    println!(
        "  .work under the cwd, 1,000 - 10: {:.3} ms, of which the stat floor {floor:.3} ms",
        b - a
    );
}

/// A repository in a new folder whose index records `n` files (no file on disk).
fn repo_of(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git::git(dir.path(), &["init", "-q", "."]);
    let blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
    let mut info = String::with_capacity(n * 80);
    for i in 0..n {
        info.push_str(&format!("100644 {blob}\td{:03}/f{i}.txt\n", i % 997));
    }
    let mut child = Command::new("git")
        .args(["update-index", "--add", "--index-info"])
        .current_dir(dir.path())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(info.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    let tools = dir.path().join(".work/tools");
    std::fs::create_dir_all(&tools).unwrap();
    let (file, body) = tool("git_version", "git --version");
    std::fs::write(tools.join(file), body).unwrap();
    dir
}

fn size_section(rounds: usize, cache: &Path) {
    println!(
        "size: `git --version` through `nanotool call` vs raw, by tracked files ({rounds} rounds)"
    );
    let sizes = [1_000usize, 100_000, 1_000_000];
    let repos: Vec<_> = sizes.iter().map(|&n| repo_of(n)).collect();
    // Past the racy window of the readings' cache.
    std::thread::sleep(Duration::from_secs(3));
    let mut raw = vec![Vec::new(); sizes.len()];
    let mut call = vec![Vec::new(); sizes.len()];
    for _ in 0..rounds {
        for (i, repo) in repos.iter().enumerate() {
            raw[i].push(timed(
                Command::new("git")
                    .arg("--version")
                    .current_dir(repo.path()),
            ));
            call[i].push(timed(&mut cli(
                repo.path(),
                cache,
                &["call", "git_version"],
            )));
        }
    }
    let mut first = 0.0;
    for (i, n) in sizes.iter().enumerate() {
        let r = show(&format!("raw, {n} files"), &raw[i]);
        let c = show(&format!("call, {n} files"), &call[i]);
        if i == 0 {
            first = c;
        }
        println!("    {:.2}x raw, {:.3}x the 1k-file call", c / r, c / first);
    }
}

/// A work tree of `n` tracked files on disk (empty, in 997 folders), its index's stat data
/// filled in (as after a first `git status`), with a `git_status` tool.
fn worktree_of(n: usize) -> tempfile::TempDir {
    let dir = repo_of(n);
    for i in 0..n {
        let folder = dir.path().join(format!("d{:03}", i % 997));
        if i < 997 {
            std::fs::create_dir_all(&folder).unwrap();
        }
        std::fs::write(folder.join(format!("f{i}.txt")), "").unwrap();
    }
    git::git(dir.path(), &["update-index", "--refresh", "-q"]);
    let (file, body) = tool("git_status", "git status --porcelain");
    std::fs::write(dir.path().join(".work/tools").join(file), body).unwrap();
    dir
}

/// `nanotool serve` in `dir`, answering `tools/call` lines one at a time.
struct Served {
    server: std::process::Child,
    input: std::process::ChildStdin,
    output: BufReader<std::process::ChildStdout>,
    next: usize,
}

impl Served {
    fn new(dir: &Path, cache: &Path) -> Served {
        let mut server = cli(dir, cache, &["serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = server.stdin.take().unwrap();
        let output = BufReader::new(server.stdout.take().unwrap());
        Served {
            server,
            input,
            output,
            next: 0,
        }
    }

    /// Calls `name` and waits for its answer; the time from the request to the answer.
    fn call(&mut self, name: &str) -> Duration {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        self.next += 1;
        let mut line = json!({"jsonrpc": "2.0", "id": self.next, "method": "tools/call",
            "params": {"name": name, "arguments": {}, "_meta": meta}})
        .to_string();
        line.push('\n');
        let t = Instant::now();
        self.input.write_all(line.as_bytes()).unwrap();
        let mut answer = String::new();
        self.output.read_line(&mut answer).unwrap();
        let took = t.elapsed();
        assert!(answer.contains("exit: 0"), "{answer}");
        took
    }

    fn end(self) {
        drop(self.input);
        let mut server = self.server;
        server.wait().unwrap();
    }
}

fn status_section(rounds: usize, cache: &Path) {
    println!(
        "status: `git status --porcelain` through `nanotool serve` vs raw, by tracked files ({rounds} rounds)"
    );
    let sizes = [1_000usize, 100_000];
    let trees: Vec<_> = sizes.iter().map(|&n| worktree_of(n)).collect();
    std::thread::sleep(Duration::from_secs(3));
    let mut servers: Vec<_> = trees.iter().map(|t| Served::new(t.path(), cache)).collect();
    // A first call each: the server is up, its git reading made.
    for s in &mut servers {
        s.call("git_status");
    }
    let mut raw = vec![Vec::new(); sizes.len()];
    let mut served = vec![Vec::new(); sizes.len()];
    for _ in 0..rounds {
        for (i, tree) in trees.iter().enumerate() {
            raw[i].push(timed(
                Command::new("git")
                    .args(["status", "--porcelain"])
                    .current_dir(tree.path()),
            ));
            served[i].push(servers[i].call("git_status"));
        }
    }
    for s in servers {
        s.end();
    }
    for (i, n) in sizes.iter().enumerate() {
        let r = show(&format!("raw, {n} files"), &raw[i]);
        let c = show(&format!("serve, {n} files"), &served[i]);
        println!("    {:.3}x raw", c / r);
    }
}

fn nesting_section(rounds: usize, cache: &Path) {
    println!(
        "nesting: `git log -1` through `nanotool call` vs raw, by embedded repositories ({rounds} rounds)"
    );
    let counts = [1usize, 100, 1000];
    let repos: Vec<_> = counts
        .iter()
        .map(|&n| {
            let dir = tempfile::tempdir().unwrap();
            git::many_repos(dir.path(), n, git::Nesting::Embedded);
            let tools = dir.path().join(".work/tools");
            std::fs::create_dir_all(&tools).unwrap();
            let (file, body) = tool("git_log", "git log -1 --format=%s");
            std::fs::write(tools.join(file), body).unwrap();
            dir
        })
        .collect();
    std::thread::sleep(Duration::from_secs(3));
    let mut raw = vec![Vec::new(); counts.len()];
    let mut call = vec![Vec::new(); counts.len()];
    for _ in 0..rounds {
        for (i, repo) in repos.iter().enumerate() {
            raw[i].push(timed(
                Command::new("git")
                    .args(["log", "-1", "--format=%s"])
                    .current_dir(repo.path()),
            ));
            call[i].push(timed(&mut cli(repo.path(), cache, &["call", "git_log"])));
        }
    }
    for (i, n) in counts.iter().enumerate() {
        let r = show(&format!("raw, {n} repositories"), &raw[i]);
        let c = show(&format!("call, {n} repositories"), &call[i]);
        println!("    {:.2}x raw", c / r);
    }
}

/// `cmd`'s peak RSS in KiB (it runs to its end, output dropped).
// `wait4` reaps the child (for its `rusage`), so std's `wait` must not.
#[allow(clippy::zombie_processes)]
fn peak_rss_kib(cmd: &mut Command) -> i64 {
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills both out-parameters for this child,
    // which std never reaps.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    usage.ru_maxrss
}

fn output_section(rounds: usize, cache: &Path) {
    println!(
        "output: `head -c N /dev/zero` through `nanotool call --max-output 16777216` vs raw ({rounds} rounds)"
    );
    let dir = project(&[(
        "flood.tool.json".into(),
        json!({"name": "flood", "description": "bench", "command": "head -c <n> /dev/zero",
               "arguments": {"n": {"type": "integer", "description": "bytes", "minimum": 0}}})
        .to_string(),
    )]);
    let sizes = [1_000u64, 1_000_000, 10_000_000, 100_000_000];
    for n in sizes {
        let args = format!(r#"{{"n": {n}}}"#);
        let call = || {
            cli(
                dir.path(),
                cache,
                &["--max-output", "16777216", "call", "flood", &args],
            )
        };
        // The same data movement without nanotool: a process that reads the whole output
        // and prints 16 MiB of it (`tail -c`), as the call reads it all and prints its cap.
        let moved = format!("head -c {n} /dev/zero | tail -c 16777216");
        let (mut raw, mut through, mut pipeline) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            raw.push(timed(Command::new("head").args([
                "-c",
                &n.to_string(),
                "/dev/zero",
            ])));
            through.push(timed(&mut call()));
            pipeline.push(timed(Command::new("sh").args(["-c", &moved])));
        }
        let r = show(&format!("raw, {n} bytes"), &raw);
        let c = show(&format!("call, {n} bytes"), &through);
        let p = show(&format!("`head | tail -c 16M`, {n} bytes"), &pipeline);
        let rss = peak_rss_kib(&mut call());
        println!(
            "    {:.2}x raw ({:.2}x `head | tail`, which moves the same bytes: {:.2}x raw); peak RSS {:.1} MiB",
            c / r,
            c / p,
            p / r,
            rss as f64 / 1024.0
        );
    }
}

fn concurrency_section(rounds: usize, cache: &Path) {
    println!(
        "concurrency: K `sleep 0.2` calls at once through `nanotool serve` vs K raw spawns ({rounds} rounds)"
    );
    let dir = project(&[tool("nap", "sleep 0.2")]);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    for k in [1usize, 16, 64, 128] {
        let (mut raw, mut served) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let t = Instant::now();
            let children: Vec<_> = (0..k)
                .map(|_| Command::new("sleep").arg("0.2").spawn().unwrap())
                .collect();
            for mut c in children {
                c.wait().unwrap();
            }
            raw.push(t.elapsed());
            let mut server = cli(dir.path(), cache, &["serve"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let mut input = server.stdin.take().unwrap();
            let mut output = BufReader::new(server.stdout.take().unwrap());
            // A first call answered: the server is up.
            let line = |id: usize, name: &str| {
                let mut l = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": name, "arguments": {}, "_meta": meta}})
                .to_string();
                l.push('\n');
                l
            };
            input.write_all(line(0, "nothing").as_bytes()).unwrap();
            let mut answer = String::new();
            output.read_line(&mut answer).unwrap();
            let batch: String = (1..=k).map(|id| line(id, "nap")).collect();
            let t = Instant::now();
            input.write_all(batch.as_bytes()).unwrap();
            for _ in 0..k {
                answer.clear();
                output.read_line(&mut answer).unwrap();
                assert!(answer.contains("\"exit_code\":0"), "{answer}");
            }
            served.push(t.elapsed());
            drop(input);
            server.wait().unwrap();
        }
        let r = show(&format!("raw, {k} at once"), &raw);
        let s = show(&format!("serve, {k} at once"), &served);
        println!("    {:.2}x raw", s / r);
    }
}

fn drain_section(rounds: usize, cache: &Path) {
    println!("drain: 1 GiB through `nanotool call` vs `head | cat` ({rounds} rounds)");
    let dir = project(&[tool("gig", "head -c 1G /dev/zero")]);
    let (mut pipe, mut confined, mut off) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        pipe.push(timed(
            Command::new("sh").args(["-c", "head -c 1G /dev/zero | cat"]),
        ));
        confined.push(timed(&mut cli(dir.path(), cache, &["call", "gig"])));
        off.push(timed(&mut cli(
            dir.path(),
            cache,
            &["--sandbox", "off", "call", "gig"],
        )));
    }
    let p = show("head | cat", &pipe);
    let c = show("call, confined", &confined);
    let o = show("call, --sandbox off", &off);
    println!("    confined {:.3}x, off {:.3}x the pipeline", c / p, o / p);
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let section = args.first().map(String::as_str).unwrap_or("all");
    let rounds: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(11);
    let cache = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        cache.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let cache = cache.path();
    let all = section == "all";
    if all || section == "tools" {
        tools_section(rounds, cache);
    }
    if all || section == "size" {
        size_section(rounds, cache);
    }
    if all || section == "nesting" {
        nesting_section(rounds, cache);
    }
    if all || section == "status" {
        status_section(rounds, cache);
    }
    if all || section == "output" {
        output_section(rounds, cache);
    }
    if all || section == "concurrency" {
        concurrency_section(rounds, cache);
    }
    if all || section == "drain" {
        drain_section(rounds.min(5), cache);
    }
}
