//! What the sandbox tests share: from the workspace's shared helpers, the `nanotool` binary
//! ([`bin`]), git fixtures ([`git`]) and the seccomp filters that play an older or stricter
//! Linux ([`refuse`]); here, argv builders, kernels in a workspace, planted scripts, the
//! lines that open an MCP session, and running one test alone in a fresh copy of this binary
//! ([`in_own_process`]).

#[path = "../common/bin.rs"]
pub(crate) mod bin;
#[path = "../common/git.rs"]
pub(crate) mod git;
#[path = "../common/refuse.rs"]
pub(crate) mod refuse;

use nanotool_runtime::{Access, CommandExecKernel, KernelSettings, SandboxMode};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

/// The system python: readable by confined commands (a python under `$HOME` needs
/// `--sandbox-read`).
pub(crate) const PYTHON: &str = "/usr/bin/python3";

/// The profile of a tool that declares `writes` (and not `network`).
pub(crate) const WRITES: Access = Access {
    writes: true,
    network: false,
    ..Access::READ_ONLY
};

/// What a planted program prints, so its output shows it ran.
pub(crate) const PLANTED_RAN: &str = "PLANTED-PROGRAM-RAN";

/// The lines that open an MCP session (2025-11-25): `initialize` (id 1) and `initialized`.
pub(crate) const OPEN_SESSION: [&str; 2] = [
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
];

/// An argv of `words`.
pub(crate) fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// `sh -c script`.
pub(crate) fn sh(script: &str) -> Vec<String> {
    argv(&["sh", "-c", script])
}

/// `python3 -c script`, with the system python.
pub(crate) fn python(script: &str) -> Vec<String> {
    assert!(
        Path::new(PYTHON).exists(),
        "these tests need {PYTHON} (Debian's python3 package)"
    );
    argv(&[PYTHON, "-c", script])
}

/// Puts SIGINT and SIGQUIT back to their defaults in this test process, for the tests that
/// send them: a shell that starts the suite in the background (`cmd &` without job control)
/// hands it both ignored, and an ignored signal stays ignored in what it starts (nanotool keeps
/// a command's ignored signals as it gets them, but SIGPIPE's and SIGCHLD's).
pub(crate) fn interrupts_at_default() {
    for sig in [libc::SIGINT, libc::SIGQUIT] {
        // SAFETY: SIG_DFL installs no handler; the disposition is the process's own.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
    }
}

/// The settings of a kernel whose commands run in `ws` with the sandbox `mode`, the rest
/// left at their defaults (a test changes what it tries with `..settings(ws, mode)`).
pub(crate) fn settings(ws: &Path, mode: SandboxMode) -> KernelSettings {
    KernelSettings {
        cwd: ws.to_path_buf(),
        sandbox: mode,
        ..KernelSettings::default()
    }
}

/// A kernel of [`settings`].
pub(crate) fn kernel(ws: &Path, mode: SandboxMode) -> CommandExecKernel {
    CommandExecKernel::new(settings(ws, mode)).unwrap()
}

/// Variables for [`KernelSettings::env`].
pub(crate) fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Writes the script `text` at `path`, executable; returns `path`.
pub(crate) fn script(path: &Path, text: &str) -> std::path::PathBuf {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_path_buf()
}

/// The variable that tells a copy of this binary which test body to run (or, for a test that
/// starts a copy of its own, which part to play).
pub(crate) const ROLE: &str = "NANOTOOL_TEST_ROLE";

/// libtest's name of the test `test` of the module `module` (`module_path!()`): its path
/// below the crate, `lifecycle::a_test`.
pub(crate) fn test_name(module: &str, test: &str) -> String {
    match module.split_once("::") {
        Some((_crate, path)) => format!("{path}::{test}"),
        None => test.to_owned(),
    }
}

/// For a test that changes process-wide state (a signal disposition, the subreaper flag, the
/// user, a limit, a seccomp filter on the whole process) or that must not see the processes
/// of the tests beside it: `true` in the copy of this binary started for `test` of `module`
/// (`module_path!()`; run the body there); in the test runner's own process, starts that
/// copy, checks that it ran the test and passed, and returns `false`.
pub(crate) fn in_own_process(module: &str, test: &str) -> bool {
    let name = test_name(module, test);
    if std::env::var(ROLE).as_deref() == Ok(name.as_str()) {
        return true;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(ROLE, &name)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{name} failed in its own process:\n{text}"
    );
    // The copy must really have run the test (not filtered it out).
    assert!(text.contains("1 passed"), "{name} did not run:\n{text}");
    false
}

/// The `TMPDIR` commands of profile `access` get (each profile has its own, inside the
/// kernel's), as a command prints it.
pub(crate) fn command_tmpdir(
    k: &nanotool_runtime::CommandExecKernel,
    access: Access,
) -> std::path::PathBuf {
    let r = k.run_as(&sh("printf %s \"$TMPDIR\""), access, None);
    assert_eq!(r.exit_code, 0, "{}", r.text());
    std::path::PathBuf::from(r.output)
}

/// How a `nanotool serve` under test is stopped.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stop {
    /// Its stdin closed, as MCP clients stop a server.
    StdinClosed,
    /// A signal.
    Signal(i32),
}

/// Lets a `nanotool serve` started with piped stdin and stderr reach its read loop (and, for
/// a signal, its watcher), stops it as `stop` says and waits for it: its exit status and what
/// it logged.
pub(crate) fn stop_serve(
    child: &mut std::process::Child,
    stop: Stop,
) -> (std::process::ExitStatus, String) {
    std::thread::sleep(std::time::Duration::from_millis(300));
    match stop {
        Stop::StdinClosed => drop(child.stdin.take()),
        Stop::Signal(sig) => {
            // Once its handler is in place (`SigCgt`): a slow machine (an emulated kernel)
            // may take longer than the pause above to get there.
            let caught = || {
                let status = std::fs::read_to_string(format!("/proc/{}/status", child.id()))
                    .unwrap_or_default();
                status
                    .lines()
                    .find_map(|l| l.strip_prefix("SigCgt:"))
                    .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
                    .is_some_and(|mask| mask & (1 << (sig - 1)) != 0)
            };
            let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
            while !caught() {
                assert!(
                    std::time::Instant::now() < until,
                    "serve never caught signal {sig}"
                );
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            // SAFETY: a signal to our own child.
            assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
        }
    }
    let status = child.wait().unwrap();
    let mut log = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    (status, log)
}

/// Makes this process (a test run alone in its own process, see [`in_own_process`]) the
/// ordinary user `id` (group `id`, no supplementary groups) when it runs as root; an ordinary
/// user already is one.
pub(crate) fn become_user(id: u32) {
    // SAFETY: plain calls on this process's credentials.
    unsafe {
        if libc::geteuid() == 0 {
            assert_eq!(libc::setgroups(0, std::ptr::null()), 0);
            assert_eq!(libc::setgid(id), 0);
            assert_eq!(libc::setuid(id), 0);
        }
    }
}

/// The state letter of `pid` (`None`: no such process).
pub(crate) fn state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 2..].chars().next()
}

/// Live processes whose command line is exactly `argv`.
pub(crate) fn processes_running(argv: &[&str]) -> Vec<i32> {
    let mut wanted = Vec::new();
    for a in argv {
        wanted.extend_from_slice(a.as_bytes());
        wanted.push(0);
    }
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == wanted)
                && matches!(state(pid), Some(s) if s != 'Z' && s != 'X')
        })
        .collect()
}

/// A number of seconds no other test sleeps, so the command line names this test's command.
pub(crate) fn unique_seconds(salt: u32) -> String {
    (2000 + (std::process::id() * 7 + salt) % 1500).to_string()
}

/// Whether the running Linux is at least `major.minor` (`uname -r`).
pub(crate) fn linux_at_least(major: u32, minor: u32) -> bool {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mut parts = release
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|p| p.parse::<u32>().ok());
    let running = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    running >= (major, minor)
}
