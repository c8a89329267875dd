//! The kernel on its portable backend: what macOS and the BSDs get, played on Linux by
//! building with `--cfg nanotool_portable` (the Linux backend switched off). CI (`.ci/run`)
//! runs this file and the runtime's own tests that way, in a target directory of their own
//! (the cfg changes every artifact):
//!
//! ```sh
//! RUSTFLAGS="--cfg nanotool_portable" CARGO_TARGET_DIR=target/portable \
//!     cargo test --locked -p nanotool-runtime --lib --test portable
//! ```
//!
//! The workspace's kernel fault tests pass on this backend too
//! (`... cargo test --locked --test kernel`); `tests/sandbox/lifecycle.rs` is Linux's (pidfds,
//! parent death, namespaces) and does not.
//!
//! Built normally (the Linux backend), this file has no tests: the sandbox's own tests say
//! what Linux enforces.
#![cfg(nanotool_portable)]
// A variable of the host set for one test (std's environment lock covers every reader here:
// the kernel reads the environment with std, and spawns with `env_clear`), and `kill(pid, 0)`.
#![allow(unsafe_code)]

use nanotool_runtime::{Access, CommandExecKernel, KernelSettings, SandboxMode};
use std::path::Path;
use std::time::Duration;

fn kernel(dir: &Path, sandbox: SandboxMode) -> CommandExecKernel {
    CommandExecKernel::new(KernelSettings {
        cwd: dir.to_path_buf(),
        sandbox,
        timeout: Duration::from_secs(20),
        ..KernelSettings::default()
    })
    .expect("kernel")
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

#[test]
fn the_status_says_the_sandbox_is_not_available_on_this_os() {
    let dir = tempfile::tempdir().unwrap();
    let status = kernel(dir.path(), SandboxMode::BestEffort)
        .sandbox_status()
        .clone();
    assert!(!status.enforced());
    let line = status.to_string();
    assert!(
        line.starts_with(
            "sandbox: best-effort, NOT enforced: the sandbox is not available on this OS"
        ),
        "{line}"
    );
    // Said once: one reason, not one per missing part.
    assert_eq!(
        line.matches("not available on this OS").count(),
        1,
        "{line}"
    );
    assert!(!line.contains("architecture"), "{line}");
}

#[test]
fn required_refuses_every_call_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = kernel(dir.path(), SandboxMode::Required);
    assert!(
        kernel
            .sandbox_status()
            .to_string()
            .contains("required but not available, every call will fail"),
        "{}",
        kernel.sandbox_status()
    );
    let writes = Access {
        writes: true,
        ..Access::READ_ONLY
    };
    let result = kernel.run_as(&argv(&["touch", "made"]), writes, None);
    assert_eq!(result.exit_code, 126, "{}", result.text());
    let why = result.start_error.as_deref().unwrap_or_default();
    assert!(why.contains("not available on this OS"), "{why}");
    assert!(!dir.path().join("made").exists(), "the command ran");
}

#[test]
fn best_effort_runs_commands_unconfined_with_the_kernel_rules() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "one\ntwo\n").unwrap();
    let kernel = kernel(dir.path(), SandboxMode::BestEffort);
    let result = kernel.run(&argv(&["wc", "-l", "notes.txt"]));
    assert_eq!(result.exit_code, 0, "{}", result.text());
    assert!(!result.confined);
    assert_eq!(result.output.trim(), "2 notes.txt");
    // The locked cwd, the allowlisted environment, stdin /dev/null, one pipe for both streams.
    let script = "pwd; echo \"secret=${NANOTOOL_PORTABLE_SECRET:-unset}\"; cat; echo err >&2";
    // SAFETY: one variable of this test's own; every reader goes through std's lock.
    unsafe { std::env::set_var("NANOTOOL_PORTABLE_SECRET", "leaked") };
    let kernel = CommandExecKernel::new(KernelSettings {
        cwd: dir.path().to_path_buf(),
        ..KernelSettings::default()
    })
    .unwrap();
    let result = kernel.run(&argv(&["sh", "-c", script]));
    let cwd = dir.path().canonicalize().unwrap();
    assert_eq!(
        result.output,
        format!("{}\nsecret=unset\nerr\n", cwd.display()),
        "{}",
        result.text()
    );
}

#[test]
fn the_timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = CommandExecKernel::new(KernelSettings {
        cwd: dir.path().to_path_buf(),
        timeout: Duration::from_millis(300),
        ..KernelSettings::default()
    })
    .unwrap();
    // A grandchild in the background that would write a file after the call ends.
    let script = "(sleep 2; touch survived) & echo $!; sleep 30";
    let result = kernel.run(&argv(&["sh", "-c", script]));
    assert!(result.timed_out, "{}", result.text());
    assert_eq!(result.exit_code, 124);
    let grandchild: libc::pid_t = result.output.trim().parse().expect("pid");
    // The group got SIGKILL: the grandchild is gone (or a zombie of init) well before it could
    // write; wait past its two seconds and check it left no trace.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        !dir.path().join("survived").exists(),
        "a grandchild outlived the call"
    );
    // SAFETY: kill with signal 0 only asks whether the pid exists.
    let alive = unsafe { libc::kill(grandchild, 0) } == 0;
    let zombie = std::fs::read_to_string(format!("/proc/{grandchild}/stat"))
        .map(|s| s.contains(") Z "))
        .unwrap_or(true);
    assert!(!alive || zombie, "grandchild {grandchild} still runs");
}

#[test]
fn a_cancel_handle_ends_the_call_without_an_eventfd() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = kernel(dir.path(), SandboxMode::BestEffort);
    let cancel = nanotool_runtime::CancelHandle::new();
    let fire = cancel.clone();
    let firing = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        fire.cancel();
    });
    let result = kernel.run_cancellable(&argv(&["sleep", "30"]), &cancel);
    firing.join().unwrap();
    assert!(result.cancelled, "{}", result.text());
    assert_eq!(result.exit_code, 130);
}
