//! Fault tests of `CommandExecKernel`: each test sets up a way a command can go
//! wrong (hang, flood, escape, leak, secret in the environment) and checks the kernel holds.
//!
//! Every test takes one lock: fd counts and zombie scans of this process must not see the
//! children of a test running beside them. Waits are hang detectors (generous watchdogs that
//! fail the test), never timing claims.

use nanotool_runtime::{
    Access, CancelHandle, CommandExecKernel, ExecResult, KernelError, KernelSettings, SandboxMode,
};
use std::path::Path;
use std::sync::{Mutex, MutexGuard, Once};
use std::time::{Duration, Instant};

/// A call or a death that has not happened after this long is a hang.
const WATCHDOG: Duration = Duration::from_secs(20);

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn sh(script: &str) -> Vec<String> {
    argv(&["sh", "-c", script])
}

fn kernel_in(dir: &Path) -> CommandExecKernel {
    CommandExecKernel::new(KernelSettings {
        cwd: dir.to_path_buf(),
        ..KernelSettings::default()
    })
    .unwrap()
}

fn default_kernel() -> CommandExecKernel {
    CommandExecKernel::new(KernelSettings::default()).unwrap()
}

/// A kernel without the sandbox: for what only an unconfined command can show (its own
/// `/proc/self`, a process that leaves its group), tests/sandbox/escapes.rs covers the
/// confined side.
fn unconfined_kernel(dir: &Path) -> CommandExecKernel {
    CommandExecKernel::new(KernelSettings {
        cwd: dir.to_path_buf(),
        sandbox: SandboxMode::Off,
        ..KernelSettings::default()
    })
    .unwrap()
}

/// The profile of a tool that declares `writes`: these tests leave pid files in the workspace.
const WRITES: Access = Access {
    writes: true,
    network: false,
    ..Access::READ_ONLY
};

/// Runs `f` on its own thread; fails the test if it has not returned within the watchdog.
fn within_watchdog<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(WATCHDOG) {
        Ok(v) => v,
        Err(_) => panic!("{what}: no return after {WATCHDOG:?}: the call hangs"),
    }
}

/// One line of /proc/<pid>/stat: (state, ppid, pgrp).
fn proc_stat(pid: i32) -> Option<(char, i32, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, ppid, pgrp))
}

/// Alive = exists and is neither a zombie nor dead. (On hosts whose init does not reap
/// orphans, a killed grandchild stays a zombie of pid 1: dead all the same.)
fn alive(pid: i32) -> bool {
    matches!(proc_stat(pid), Some((state, _, _)) if state != 'Z' && state != 'X')
}

/// Waits (hang detector) for `pid` to die; fails the test if it lives on.
fn assert_dies(pid: i32, what: &str) {
    let until = Instant::now() + WATCHDOG;
    while alive(pid) {
        assert!(Instant::now() < until, "{what} (pid {pid}) is still alive");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn all_pids() -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// Children of this process that are zombies.
fn zombie_children() -> Vec<i32> {
    let me = std::process::id() as i32;
    all_pids()
        .into_iter()
        .filter(|pid| matches!(proc_stat(*pid), Some(('Z', ppid, _)) if ppid == me))
        .collect()
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

fn pid_in(output: &str) -> i32 {
    output
        .lines()
        .find_map(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("no pid in output {output:?}"))
}

#[test]
fn kernel_is_send_and_sync_and_the_handle_too() {
    fn check<T: Send + Sync>() {}
    check::<CommandExecKernel>();
    check::<CancelHandle>();
    check::<ExecResult>();
}

#[test]
fn exit_codes_are_reported() {
    let _g = serial();
    let k = default_kernel();
    let ok = k.run(&argv(&["true"]));
    assert_eq!(
        (ok.exit_code, ok.signal, ok.start_error.clone()),
        (0, None, None)
    );
    assert_eq!(ok.text(), "exit: 0\noutput: ");
    assert_eq!(k.run(&argv(&["false"])).exit_code, 1);
    assert_eq!(k.run(&sh("exit 7")).exit_code, 7);
}

#[test]
fn a_missing_binary_is_127_with_a_clear_line() {
    let _g = serial();
    let k = default_kernel();
    let r = k.run(&argv(&["nanotool-no-such-binary", "x"]));
    assert_eq!(r.exit_code, 127);
    let err = r.start_error.clone().expect("start_error set");
    assert!(err.contains("nanotool-no-such-binary"), "{err}");
    assert!(err.contains("not found"), "{err}");
    let text = r.text();
    assert!(text.starts_with("exit: 127\ncould not start: "), "{text}");

    let path_form = k.run(&argv(&["./nanotool-no-such-binary"]));
    assert_eq!(path_form.exit_code, 127);
    assert!(path_form.start_error.is_some());

    let empty = k.run(&[]);
    assert_eq!(empty.exit_code, 127);
    assert!(empty.start_error.unwrap().contains("empty"));
    let empty_name = k.run(&argv(&[""]));
    assert_eq!(empty_name.exit_code, 127);
    assert!(empty_name.start_error.is_some());
}

#[test]
fn a_file_that_is_not_executable_is_126() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.txt"), "not a program").unwrap();
    let r = kernel_in(dir.path()).run(&argv(&["./data.txt"]));
    assert_eq!(r.exit_code, 126, "{r:?}");
    assert!(r.start_error.is_some());
}

#[test]
fn a_nul_byte_in_an_argument_is_a_start_error_not_a_panic() {
    let _g = serial();
    let r = default_kernel().run(&argv(&["echo", "a\0b"]));
    assert_eq!(r.exit_code, 126);
    assert!(r.start_error.unwrap().contains("argument 1"));
}

#[test]
fn a_timeout_too_large_for_the_clock_means_no_timeout() {
    let _g = serial();
    let k = CommandExecKernel::new(KernelSettings {
        timeout: Duration::MAX,
        ..KernelSettings::default()
    })
    .unwrap();
    let r = k.run(&sh("echo fine"));
    assert_eq!(
        (r.exit_code, r.output.as_str(), r.timed_out),
        (0, "fine\n", false)
    );
}

#[test]
fn a_signal_is_128_plus_n_with_a_note() {
    let _g = serial();
    let r = default_kernel().run(&sh("kill -SEGV $$"));
    assert_eq!((r.exit_code, r.signal), (128 + 11, Some(11)));
    assert!(
        r.text().contains("\nkilled by signal 11 (SIGSEGV)\n"),
        "{}",
        r.text()
    );
}

#[test]
fn stdout_and_stderr_are_merged_in_write_order() {
    let _g = serial();
    let k = default_kernel();
    for _ in 0..20 {
        let r = k.run(&sh("echo a; echo b >&2; echo c; echo d >&2"));
        assert_eq!(r.output, "a\nb\nc\nd\n");
    }
    // Both fds are the same pipe: writing to fd 2 through /proc shows it.
    let r = k.run(&sh("readlink /proc/self/fd/1; readlink /proc/self/fd/2"));
    let lines: Vec<&str> = r.output.lines().collect();
    assert_eq!(lines.len(), 2, "{r:?}");
    assert!(lines[0].starts_with("pipe:"), "{r:?}");
    assert_eq!(lines[0], lines[1]);
}

#[test]
fn stdin_is_null() {
    let _g = serial();
    let r = within_watchdog("cat with no input", || {
        default_kernel().run(&argv(&["cat"]))
    });
    assert_eq!((r.exit_code, r.output.as_str()), (0, ""));
    let r = default_kernel().run(&sh("readlink /proc/self/fd/0"));
    assert_eq!(r.output, "/dev/null\n");
}

#[test]
fn a_grandchild_keeping_the_pipe_open_does_not_hang_and_dies() {
    let _g = serial();
    let r = within_watchdog("sleep 100 in the background", || {
        default_kernel().run(&sh("sleep 100 & echo $!"))
    });
    assert_eq!(r.exit_code, 0);
    let grandchild = pid_in(&r.output);
    assert_dies(grandchild, "the background sleep");
}

#[test]
fn a_setsid_escaper_does_not_hang_the_call() {
    let _g = serial();
    // Unconfined: the sandbox refuses `setsid` outright (tests/sandbox/escapes.rs).
    let r = within_watchdog("setsid sleep 100", || {
        unconfined_kernel(Path::new(".")).run(&sh("setsid sleep 100 & echo $!"))
    });
    assert_eq!(r.exit_code, 0);
    let escaper = pid_in(&r.output);
    // It escaped the group, so the kernel could not kill it: clean up after the test.
    unsafe { libc::kill(escaper, libc::SIGKILL) };
}

#[test]
fn a_setsid_escaper_flooding_the_pipe_does_not_hang_the_call() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    // Unconfined: the sandbox refuses `setsid` outright (tests/sandbox/escapes.rs).
    let k = unconfined_kernel(dir.path());
    let r = within_watchdog("setsid yes", move || {
        k.run(&sh("setsid yes & echo $! > escaper.pid"))
    });
    assert_eq!(r.exit_code, 0);
    // Its pid went to a file: in the output it would sit among omitted bytes.
    let escaper: i32 = std::fs::read_to_string(dir.path().join("escaper.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    unsafe { libc::kill(escaper, libc::SIGKILL) };
}

#[test]
fn a_timeout_is_124_and_kills_the_whole_group() {
    let _g = serial();
    let k = CommandExecKernel::new(KernelSettings {
        // Long enough for sh to start its background member even on a loaded machine.
        timeout: Duration::from_millis(1500),
        ..KernelSettings::default()
    })
    .unwrap();
    let r = within_watchdog("timeout", move || {
        k.run(&sh("sleep 100 & echo $!; sleep 100"))
    });
    assert_eq!(r.exit_code, 124, "{r:?}");
    assert!(r.timed_out && !r.cancelled);
    assert_eq!(r.signal, Some(libc::SIGKILL));
    let text = r.text();
    assert!(text.starts_with("exit: 124\ntimed out after "), "{text}");
    assert_dies(pid_in(&r.output), "the group member");
}

#[test]
fn one_gib_of_output_is_capped_with_head_and_tail() {
    let _g = serial();
    let r = within_watchdog("1 GiB flood", || {
        default_kernel().run(&sh(
            "echo HEAD-START; head -c 1073741824 /dev/zero; echo; echo TAIL-END",
        ))
    });
    assert_eq!(r.exit_code, 0, "drained to EOF: no SIGPIPE");
    assert_eq!(r.total_bytes, 1_073_741_824 + 11 + 1 + 9);
    assert!(r.truncated);
    assert!(
        r.output.starts_with("HEAD-START\n\0"),
        "{:?}",
        &r.output[..20]
    );
    assert!(r.output.ends_with("\0\nTAIL-END\n"));
    let marker = format!("[... {} bytes omitted ...]", r.omitted_bytes);
    assert!(r.output.contains(&marker));
    assert!(
        r.output.len() <= nanotool_runtime::kernel::DEFAULT_MAX_OUTPUT + marker.len() + 2,
        "{}",
        r.output.len()
    );
    assert_eq!(
        r.omitted_bytes + nanotool_runtime::kernel::DEFAULT_MAX_OUTPUT as u64,
        r.total_bytes
    );
    assert!(r.text().contains(&format!(
        "\n{} bytes omitted\noutput: HEAD-START",
        r.omitted_bytes
    )),);

    // A bare flood: the leader itself floods and must exit 0 (never SIGPIPE).
    let r = within_watchdog("bare flood", || {
        default_kernel().run(&argv(&["head", "-c", "1073741824", "/dev/zero"]))
    });
    assert_eq!((r.exit_code, r.signal), (0, None));
    assert_eq!(r.total_bytes, 1 << 30);
}

/// A flood that never ends is read by a thread switched to `SCHED_BATCH` for the flood; the
/// timeout and a cancel must still end it and kill its group, and the thread is back under
/// `SCHED_OTHER` afterwards.
#[test]
fn an_endless_flood_ends_at_its_timeout_and_on_cancel() {
    let _g = serial();
    let k = CommandExecKernel::new(KernelSettings {
        timeout: Duration::from_millis(1500),
        ..KernelSettings::default()
    })
    .unwrap();
    let r = within_watchdog("endless flood, timeout", move || {
        k.run(&sh("echo $$; exec yes"))
    });
    assert!(r.timed_out && !r.cancelled, "{r:?}");
    assert_eq!(r.exit_code, 124);
    assert!(r.total_bytes > 64 * 1024, "{}", r.total_bytes);
    assert!(r.truncated);
    assert_dies(pid_in(&r.output), "the flooding leader");

    let progress = std::sync::Arc::new(nanotool_runtime::Progress::new());
    let handle = CancelHandle::with_progress(progress.clone());
    let canceller = {
        let handle = handle.clone();
        std::thread::spawn(move || {
            // Fire once the flood is well past the point where the reader starts pacing.
            let until = Instant::now() + WATCHDOG;
            while progress.bytes() < 64 << 20 && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1));
            }
            handle.cancel();
        })
    };
    let k = default_kernel();
    let h = handle.clone();
    let r = within_watchdog("endless flood, cancel", move || {
        k.run_cancellable(&sh("echo $$; exec yes"), &h)
    });
    canceller.join().unwrap();
    assert!(r.cancelled && !r.timed_out, "{r:?}");
    assert_eq!(r.exit_code, 130);
    assert!(r.total_bytes >= 64 << 20, "{}", r.total_bytes);

    // The thread that read a flood is left as it was found.
    let k = default_kernel();
    let policy = std::thread::spawn(move || {
        let r = k.run(&argv(&["head", "-c", "16777216", "/dev/zero"]));
        assert_eq!(r.total_bytes, 16 << 20);
        // SAFETY: sched_getscheduler(0) reads the calling thread's policy.
        unsafe { libc::sched_getscheduler(0) }
    })
    .join()
    .unwrap();
    assert_eq!(policy, libc::SCHED_OTHER);
    assert_dies(pid_in(&r.output), "the cancelled flooding leader");
}

#[test]
fn multibyte_text_is_cut_on_character_boundaries() {
    let _g = serial();
    for cap in [5usize, 7, 9, 100] {
        let k = CommandExecKernel::new(KernelSettings {
            max_output: cap,
            ..KernelSettings::default()
        })
        .unwrap();
        // 300 two-byte and three-byte characters.
        let r = k.run(&sh(
            "i=0; while [ $i -lt 150 ]; do printf 'é€'; i=$((i+1)); done",
        ));
        assert_eq!(r.total_bytes, 750);
        assert!(r.truncated);
        let kept = r
            .output
            .replace(&format!("[... {} bytes omitted ...]", r.omitted_bytes), "");
        assert!(
            kept.chars().all(|c| c == 'é' || c == '€' || c == '\n'),
            "cap {cap}: {kept:?}"
        );
        let kept_bytes: usize = kept
            .chars()
            .filter(|c| *c != '\n')
            .map(char::len_utf8)
            .sum();
        assert!(kept_bytes <= cap);
        assert_eq!(
            kept_bytes as u64 + r.omitted_bytes,
            750,
            "cap {cap}: {:?}",
            r.output
        );
    }
}

#[test]
fn invalid_utf8_is_shown_lossily() {
    let _g = serial();
    let r = default_kernel().run(&argv(&["printf", "ok \\377\\376 end"]));
    assert_eq!(r.exit_code, 0);
    assert_eq!(r.output, "ok \u{FFFD}\u{FFFD} end");
    assert_eq!(r.total_bytes, 9);
}

#[test]
fn cancel_from_another_thread_ends_the_call_and_the_group() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let k = kernel_in(dir.path());
    let handle = CancelHandle::new();
    let canceller = {
        let handle = handle.clone();
        let pid_file = dir.path().join("member.pid");
        std::thread::spawn(move || {
            let until = Instant::now() + WATCHDOG;
            while !pid_file.exists() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(5));
            }
            handle.cancel();
        })
    };
    let h = handle.clone();
    let r = within_watchdog("cancelled call", move || {
        k.run_as(
            &sh("sleep 100 & echo $! > member.pid.tmp; mv member.pid.tmp member.pid; sleep 100"),
            WRITES,
            Some(&h),
        )
    });
    canceller.join().unwrap();
    assert!(r.cancelled && !r.timed_out, "{r:?}");
    assert_eq!(r.exit_code, 130);
    assert!(
        r.text().starts_with("exit: 130\ncancelled\n"),
        "{}",
        r.text()
    );
    let member: i32 = std::fs::read_to_string(dir.path().join("member.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_dies(member, "the cancelled group's member");
    assert!(handle.is_cancelled());
}

#[test]
fn a_handle_fired_before_the_run_ends_it_at_once() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let handle = CancelHandle::new();
    handle.cancel();
    let r = kernel_in(dir.path()).run_cancellable(&sh("touch ran"), &handle);
    assert!(r.cancelled);
    assert_eq!(r.exit_code, 130);
    assert!(
        !dir.path().join("ran").exists(),
        "the command must not have run"
    );
}

fn set_test_environment() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: done once, under the SERIAL lock every test holds while touching processes.
        unsafe {
            std::env::set_var("NANOTOOL_TEST_SECRET", "hunter2");
            std::env::set_var("LC_NANOTOOL_TEST", "kept");
        }
    });
}

#[test]
fn the_environment_is_reduced_to_the_allowlist() {
    let _g = serial();
    set_test_environment();
    let k = CommandExecKernel::new(KernelSettings {
        env: vec![("NANOTOOL_ADDED".into(), "by-host".into())],
        // The whole environment, uncut.
        max_output: 1 << 20,
        ..KernelSettings::default()
    })
    .unwrap();
    let env = k.run(&argv(&["env"]));
    assert!(
        !env.output.contains("NANOTOOL_TEST_SECRET"),
        "{}",
        env.output
    );
    assert!(!env.output.contains("hunter2"));
    for line in [
        "TERM=dumb",
        "NO_COLOR=1",
        "PAGER=cat",
        "NANOTOOL_ADDED=by-host",
        "LC_NANOTOOL_TEST=kept",
    ] {
        assert!(
            env.output.lines().any(|l| l == line),
            "{line} missing from {}",
            env.output
        );
    }
    assert!(env.output.lines().any(|l| l.starts_with("PATH=")));
    for line in env.output.lines() {
        let name = line.split('=').next().unwrap();
        assert!(
            [
                "PATH",
                "HOME",
                "LANG",
                "TZ",
                "TERM",
                "NO_COLOR",
                "PAGER",
                "NANOTOOL_ADDED",
                // Set by the kernel, never taken from the host: they keep a workspace's
                // configuration from making git, Python or Mercurial run a program.
                "PYTHONSAFEPATH",
                "PYTHONNOUSERSITE",
                "PYTHONDONTWRITEBYTECODE",
                "GIT_CONFIG_NOSYSTEM",
                "GIT_CONFIG_GLOBAL",
                "GIT_ATTR_NOSYSTEM",
                "GIT_TERMINAL_PROMPT",
                "GIT_ASKPASS",
                "SSH_ASKPASS",
                "GIT_ALLOW_PROTOCOL",
                "GIT_PROXY_COMMAND",
                "GIT_PAGER",
                "GIT_EDITOR",
                "GIT_SEQUENCE_EDITOR",
                "GIT_OPTIONAL_LOCKS",
                "GIT_CONFIG_COUNT",
                "HGRCSKIPREPO",
                "HGPLAIN",
                // The sandbox's private temp dir and private home.
                "TMPDIR",
                "XDG_CACHE_HOME",
                "XDG_CONFIG_HOME",
                "XDG_DATA_HOME",
                "XDG_STATE_HOME",
            ]
            .contains(&name)
                || name.starts_with("LC_")
                || name.starts_with("GIT_CONFIG_KEY_")
                || name.starts_with("GIT_CONFIG_VALUE_"),
            "{name} is not on the allowlist"
        );
    }
    // The sandbox's private temp dir, and nothing of the host's (a confined command's: where
    // nothing confines, as on the portable backend, the command runs as with the sandbox off).
    if k.sandbox_status().enforced() {
        // Its profile's folder inside the kernel's.
        let tmpdir = format!("TMPDIR={}/", k.sandbox_tmpdir().unwrap().display());
        assert!(
            env.output.lines().any(|l| l.starts_with(&tmpdir)),
            "{}",
            env.output
        );
    } else {
        assert!(!env.output.contains("TMPDIR="), "{}", env.output);
    }
    // What the process itself sees (unconfined: a confined one may not read /proc).
    let k = CommandExecKernel::new(KernelSettings {
        env: vec![("NANOTOOL_ADDED".into(), "by-host".into())],
        sandbox: SandboxMode::Off,
        ..KernelSettings::default()
    })
    .unwrap();
    let environ = k.run(&argv(&["cat", "/proc/self/environ"]));
    assert!(!environ.output.contains("NANOTOOL_TEST_SECRET"));
    assert!(environ.output.contains("NANOTOOL_ADDED=by-host"));
}

#[test]
fn an_invalid_env_entry_is_a_clear_error() {
    let _g = serial();
    let err = CommandExecKernel::new(KernelSettings {
        env: vec![("A=B".into(), "x".into())],
        ..KernelSettings::default()
    })
    .unwrap_err();
    assert!(matches!(err, KernelError::Env { .. }));
    assert!(err.to_string().contains("A=B"), "{err}");
}

#[test]
fn the_path_searched_is_the_childs() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let tool = bin.join("nanotool-test-tool");
    std::fs::write(&tool, "#!/bin/sh\necho from-the-tool\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let k = CommandExecKernel::new(KernelSettings {
        env: vec![("PATH".into(), format!("{}:/usr/bin:/bin", bin.display()))],
        // The tool lives outside the workspace: confined commands may read it once added.
        sandbox_read: vec![bin.clone()],
        ..KernelSettings::default()
    })
    .unwrap();
    assert_eq!(
        k.run(&argv(&["nanotool-test-tool"])).output,
        "from-the-tool\n"
    );
    // Not on the host's PATH: the default kernel does not find it.
    assert_eq!(
        default_kernel()
            .run(&argv(&["nanotool-test-tool"]))
            .exit_code,
        127
    );
}

#[test]
fn the_cwd_is_the_kernels_and_path_forms_resolve_against_it() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let k = kernel_in(dir.path());
    let canonical = dir.path().canonicalize().unwrap();
    assert_eq!(k.cwd(), canonical);
    assert_eq!(
        k.run(&argv(&["pwd"])).output,
        format!("{}\n", canonical.display())
    );
    let script = dir.path().join("hello.sh");
    std::fs::write(&script, "#!/bin/sh\necho hello from $(pwd)\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The test process's cwd is elsewhere: `./hello.sh` only exists in the kernel's.
    assert_ne!(std::env::current_dir().unwrap(), canonical);
    let r = k.run(&argv(&["./hello.sh"]));
    assert_eq!(r.output, format!("hello from {}\n", canonical.display()));
}

#[test]
fn argv0_is_kept_as_written() {
    let _g = serial();
    // Unconfined: a confined command may not read /proc.
    let r = unconfined_kernel(Path::new(".")).run(&argv(&["cat", "/proc/self/cmdline"]));
    assert_eq!(r.output, "cat\0/proc/self/cmdline\0");
}

#[test]
fn a_missing_or_non_directory_cwd_is_a_clear_error() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let err = CommandExecKernel::new(KernelSettings {
        cwd: missing.clone(),
        ..KernelSettings::default()
    })
    .unwrap_err();
    assert!(matches!(err, KernelError::Cwd { .. }));
    let msg = err.to_string();
    assert!(
        msg.contains(&missing.display().to_string()) && msg.contains("No such file"),
        "{msg}"
    );

    let file = dir.path().join("file");
    std::fs::write(&file, "").unwrap();
    let err = CommandExecKernel::new(KernelSettings {
        cwd: file,
        ..KernelSettings::default()
    })
    .unwrap_err();
    assert!(err.to_string().contains("Not a directory"), "{err}");
}

const PROBE_ENV: &str = "NANOTOOL_KERNEL_UNREADABLE_CWD";

/// Builds a kernel on the directory named by `PROBE_ENV` and prints the error; run by
/// `an_unreadable_cwd_is_a_clear_error` as an unprivileged user (root reads everything).
#[test]
fn unreadable_cwd_probe() {
    let _g = serial();
    let Ok(dir) = std::env::var(PROBE_ENV) else {
        // Run directly: check what needs no privilege change.
        assert!(
            CommandExecKernel::new(KernelSettings {
                cwd: "/nonexistent/nanotool".into(),
                ..KernelSettings::default()
            })
            .is_err()
        );
        return;
    };
    match CommandExecKernel::new(KernelSettings {
        cwd: dir.into(),
        ..KernelSettings::default()
    }) {
        Ok(_) => panic!("an unreadable cwd was accepted"),
        Err(e) => println!("KERNEL_ERROR: {e}"),
    }
}

#[test]
fn an_unreadable_cwd_is_a_clear_error() {
    let _g = serial();
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if unsafe { libc::geteuid() } != 0 {
        let err = CommandExecKernel::new(KernelSettings {
            cwd: locked.clone(),
            ..KernelSettings::default()
        })
        .unwrap_err();
        assert!(err.to_string().contains("Permission denied"), "{err}");
        return;
    }
    // Root reads every directory: ask an unprivileged user to try.
    use std::os::unix::process::CommandExt;
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "unreadable_cwd_probe",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(PROBE_ENV, &locked)
        .current_dir("/")
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "probe failed: {stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.split_once("KERNEL_ERROR: ").map(|(_, e)| e))
        .unwrap_or_else(|| panic!("no error printed: {stdout}"));
    assert!(
        line.contains("locked") && line.contains("Permission denied"),
        "{line}"
    );
}

#[test]
fn five_hundred_calls_leave_no_zombie_and_no_fd() {
    let _g = serial();
    let k = default_kernel();
    let handle = CancelHandle::new();
    // Warm up whatever the first run allocates once (the thread's read buffer, and the
    // handle's own eventfd, made when a run first waits on it).
    k.run(&argv(&["true"]));
    k.run_cancellable(&argv(&["true"]), &handle);
    let before = open_fds();
    for i in 0..500 {
        let r = match i % 5 {
            0 => k.run(&argv(&["true"])),
            1 => k.run(&sh("echo x; echo y >&2; exit 3")),
            2 => k.run(&sh("sleep 100 & echo $!")),
            3 => k.run(&argv(&["nanotool-no-such-binary"])),
            _ => k.run_cancellable(&argv(&["head", "-c", "100000", "/dev/zero"]), &handle),
        };
        assert!(
            r.exit_code == 0 || r.exit_code == 3 || r.exit_code == 127,
            "{r:?}"
        );
    }
    assert_eq!(open_fds(), before, "fds leaked");
    assert_eq!(zombie_children(), Vec::<i32>::new(), "zombies left");
}

#[test]
fn the_text_has_the_design_shape() {
    let _g = serial();
    let k = CommandExecKernel::new(KernelSettings {
        max_output: 10,
        ..KernelSettings::default()
    })
    .unwrap();
    let r = k.run(&sh("echo 0123456789abcdefghij"));
    assert_eq!(r.total_bytes, 21);
    assert_eq!(r.omitted_bytes, 11);
    assert_eq!(
        r.text(),
        "exit: 0\n11 bytes omitted\noutput: 01234\n[... 11 bytes omitted ...]\nghij\n"
    );
}

const SIGCHLD_PROBE_ENV: &str = "NANOTOOL_KERNEL_SIGCHLD_IGNORED";

/// Runs a command in a host that ignores `SIGCHLD` (children reaped behind the kernel's back);
/// run by `a_host_ignoring_sigchld_gets_an_answer_not_a_panic` in a process of its own.
#[test]
fn sigchld_ignored_probe() {
    let _g = serial();
    if std::env::var(SIGCHLD_PROBE_ENV).is_err() {
        // Run directly: the same command in a normal host.
        assert_eq!(default_kernel().run(&sh("echo hi")).output, "hi\n");
        return;
    }
    // SAFETY: this process exists only to run this probe.
    unsafe { libc::signal(libc::SIGCHLD, libc::SIG_IGN) };
    // The child may be reaped before its pidfd is opened: a race, so run it many times.
    let results = within_watchdog("runs with SIGCHLD ignored", || {
        let k = default_kernel();
        (0..50).map(|_| k.run(&sh("echo hi"))).collect::<Vec<_>>()
    });
    for r in results {
        println!(
            "PROBE_RESULT: exit={} output={:?} start_error={:?}",
            r.exit_code, r.output, r.start_error
        );
    }
}

#[test]
fn a_host_ignoring_sigchld_gets_an_answer_not_a_panic() {
    let _g = serial();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "sigchld_ignored_probe",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SIGCHLD_PROBE_ENV, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "probe failed: {stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split_once("PROBE_RESULT: ").map(|(_, r)| r))
        .collect();
    assert_eq!(lines.len(), 50, "{stdout}");
    for line in lines {
        if cfg!(nanotool_portable) {
            // Without pidfds (macOS, the BSDs) nothing keeps the status of a process the system
            // reaped: the output comes back, and the loss is said, as a start error.
            assert!(
                line.starts_with(
                    "exit=126 output=\"hi\\n\" start_error=Some(\"`sh`: the exit status is lost"
                ),
                "{line}"
            );
            continue;
        }
        // The output and the exit status come back (the pidfd is taken by the clone, the
        // status read from it once the system reaped the process; tests/sandbox/lifecycle.rs
        // has more).
        assert_eq!(line, "exit=0 output=\"hi\\n\" start_error=None");
    }
}

/// A workspace deleted and recreated at the same path while the kernel runs: the confinement
/// holds the old folder, so commands would fail with "Permission denied" on their own files.
/// The call says what happened instead, runs nothing, and a kernel built anew works.
#[test]
fn a_workspace_deleted_and_recreated_at_its_path_is_named() {
    let _guard = serial();
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("ws");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("a.txt"), "first\n").unwrap();
    let kernel = kernel_in(&dir);
    let first = kernel.run(&argv(&["cat", "a.txt"]));
    assert_eq!(first.exit_code, 0, "{}", first.output);

    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("a.txt"), "second\n").unwrap();
    let marker = dir.join("created-by-the-command");
    let again = kernel.run(&argv(&["touch", marker.to_str().unwrap()]));
    let message = again.start_error.clone().unwrap_or_default();
    assert!(
        message.contains("recreated") && message.contains(dir.to_str().unwrap()),
        "exit {} output {:?} start_error {message:?}",
        again.exit_code,
        again.output
    );
    assert!(!marker.exists(), "the command ran");
    let fresh = kernel_in(&dir).run(&argv(&["cat", "a.txt"]));
    assert_eq!(fresh.output, "second\n");
}
