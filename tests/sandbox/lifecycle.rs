//! The life of a command beside its host: a host that ignores `SIGCHLD` (or sets
//! `SA_NOCLDWAIT`), an agent that is a child subreaper (a container without init), an agent
//! killed with `kill -9`, and the private PID namespace; and the rights (capabilities) a
//! command keeps.
//!
//! A signal disposition or the subreaper flag is process-wide, so each such test runs its
//! body in a fresh copy of this test binary ([`in_own_process`]), never in the shared one.

use crate::common::bin::nanotool_bin;
use crate::common::refuse::{refuse_syscall_with_flags, refuse_syscalls};
use crate::common::{
    OPEN_SESSION, ROLE, WRITES, become_user, in_own_process, kernel, linux_at_least,
    processes_running, settings, sh, test_name, unique_seconds,
};
use nanotool_runtime::{CommandExecKernel, KernelSettings, SandboxMode};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Long enough that a hang fails the test instead of hanging it; never a measurement.
const PATIENCE: Duration = Duration::from_secs(20);

/// This process's children that are zombies.
fn zombie_children() -> Vec<i32> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                let rest: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
                rest[0] == "Z" && rest[1] == me
            })
        })
        .collect()
}

/// With the host's `SIGCHLD` set up by `setup`, every route still reports the exit status,
/// still kills the call's group, and the command starts with `SIGCHLD` at its default.
fn statuses_and_group_kill_hold(setup: impl FnOnce()) {
    setup();
    let ws = tempfile::tempdir().unwrap();
    for mode in [SandboxMode::BestEffort, SandboxMode::Off] {
        let k = kernel(ws.path(), mode);
        // The status survives the host's auto-reap where Linux keeps it for the pidfd (6.15),
        // or where a PID namespace's reaper recorded it; elsewhere the call says it is lost.
        let status = k.spawn_status();
        let kept = linux_at_least(6, 15)
            || (status.reaper.is_ok() && status.to_string().contains("PID namespace: private"));
        let lost = |r: &nanotool_runtime::ExecResult| {
            r.exit_code == 126
                && r.start_error.as_deref().is_some_and(|e| {
                    e.contains("the exit status is lost") && e.contains("older than 6.15")
                })
        };
        let r = k.run(&sh("exit 3"));
        if kept {
            assert_eq!((r.exit_code, &r.start_error), (3, &None), "{mode}: {r:?}");
        } else {
            assert!(lost(&r), "{mode}: {r:?}");
        }
        let r = k.run(&sh("kill -TERM $$"));
        if kept {
            assert_eq!((r.exit_code, r.signal), (143, Some(15)), "{mode}: {r:?}");
        } else {
            assert!(lost(&r), "{mode}: {r:?}");
        }

        // Found by its command line: the pid a command prints is its PID namespace's where it
        // has one (a kernel without Landlock's signal scope).
        let seconds = unique_seconds(11);
        let r = k.run(&sh(&format!("sleep {seconds} & echo $!")));
        assert!(
            if kept { r.exit_code == 0 } else { lost(&r) },
            "{mode}: {r:?}"
        );
        wait_until(
            &format!("{mode}: the background sleep is still alive"),
            || processes_running(&["sleep", &seconds]).is_empty(),
        );

        let r = k.run(&[
            "/usr/bin/python3".to_owned(),
            "-c".to_owned(),
            "import os, signal\nprint(signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL)\nos.spawnv(os.P_NOWAIT, '/bin/true', ['true'])\nprint(os.wait()[1])".to_owned(),
        ]);
        assert_eq!(r.output, "True\n0\n", "{mode}: {r:?}");
    }
}

#[test]
fn a_host_ignoring_sigchld_keeps_exit_statuses_and_the_group_kill() {
    if !in_own_process(
        module_path!(),
        "a_host_ignoring_sigchld_keeps_exit_statuses_and_the_group_kill",
    ) {
        return;
    }
    statuses_and_group_kill_hold(|| {
        // SAFETY: signal(2) on this process, which runs this test alone.
        assert_ne!(
            unsafe { libc::signal(libc::SIGCHLD, libc::SIG_IGN) },
            libc::SIG_ERR
        );
    });
    let ws = tempfile::tempdir().unwrap();
    let k = kernel(ws.path(), SandboxMode::BestEffort);
    let status = k.spawn_status();
    assert_eq!(
        status.host_sigchld,
        nanotool_runtime::kernel::HostSigchld::Ignored
    );
    assert!(status.to_string().contains("SIGCHLD ignored"), "{status}");
}

#[test]
fn a_host_with_sa_nocldwait_keeps_exit_statuses_and_the_group_kill() {
    if !in_own_process(
        module_path!(),
        "a_host_with_sa_nocldwait_keeps_exit_statuses_and_the_group_kill",
    ) {
        return;
    }
    statuses_and_group_kill_hold(|| {
        // SAFETY: sigaction(2) on this process, which runs this test alone.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = libc::SIG_DFL;
            action.sa_flags = libc::SA_NOCLDWAIT;
            assert_eq!(
                libc::sigaction(libc::SIGCHLD, &action, std::ptr::null_mut()),
                0
            );
        }
    });
    let ws = tempfile::tempdir().unwrap();
    let k = kernel(ws.path(), SandboxMode::BestEffort);
    assert_eq!(
        k.spawn_status().host_sigchld,
        nanotool_runtime::kernel::HostSigchld::NoChildWait
    );
}

#[test]
fn a_subreaper_agent_keeps_no_zombie_of_a_call() {
    if !in_own_process(
        module_path!(),
        "a_subreaper_agent_keeps_no_zombie_of_a_call",
    ) {
        return;
    }
    // SAFETY: prctl on this process, which runs this test alone.
    assert_eq!(
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) },
        0
    );
    let ws = tempfile::tempdir().unwrap();
    for mode in [SandboxMode::BestEffort, SandboxMode::Off] {
        let k = kernel(ws.path(), mode);
        // Orphans of the call (the background sleeps) come back to this process, or to the
        // reaper of the call's PID namespace where it has one.
        let seconds = unique_seconds(12);
        let r = k.run(&sh(&format!("sleep {seconds} & sleep {seconds} & echo $!")));
        assert_eq!(r.exit_code, 0, "{mode}: {r:?}");
        assert_eq!(
            processes_running(&["sleep", &seconds]),
            Vec::<i32>::new(),
            "{mode}: an orphan outlived the call"
        );
        assert_eq!(zombie_children(), Vec::<i32>::new(), "{mode}");
    }
}

#[test]
fn on_an_older_kernel_a_host_ignoring_sigchld_is_told_and_the_group_still_dies() {
    if !in_own_process(
        module_path!(),
        "on_an_older_kernel_a_host_ignoring_sigchld_is_told_and_the_group_still_dies",
    ) {
        return;
    }
    // Linux before 6.9 and 6.15: no group signal through a pidfd, no exit status from it.
    refuse_syscalls(&[libc::SYS_pidfd_send_signal], libc::EINVAL);
    refuse_syscalls(&[libc::SYS_ioctl], libc::ENOTTY);
    // SAFETY: signal(2) on this process, which runs this test alone.
    assert_ne!(
        unsafe { libc::signal(libc::SIGCHLD, libc::SIG_IGN) },
        libc::SIG_ERR
    );
    let ws = tempfile::tempdir().unwrap();
    for mode in [SandboxMode::BestEffort, SandboxMode::Off] {
        let k = kernel(ws.path(), mode);
        let seconds = unique_seconds(13);
        let r = k.run(&sh(&format!("sleep {seconds} & echo $!; exit 3")));
        let status = k.spawn_status();
        if status.reaper.is_ok() && status.to_string().contains("PID namespace: private") {
            // The reaper of the call's PID namespace recorded the command's status: kept.
            assert_eq!((r.exit_code, &r.start_error), (3, &None), "{mode}: {r:?}");
        } else {
            assert_eq!(r.exit_code, 126, "{mode}: {r:?}");
            let why = r.start_error.as_deref().unwrap_or_default();
            assert!(why.contains("the host ignores SIGCHLD"), "{mode}: {why}");
        }
        wait_until(
            &format!("{mode}: the background sleep is still alive"),
            || processes_running(&["sleep", &seconds]).is_empty(),
        );
    }
}

/// Waits (hang detector) until `check` holds.
fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let until = Instant::now() + PATIENCE;
    while !check() {
        assert!(Instant::now() < until, "{what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A work folder whose `tools/` holds `nap` (`<command> <seconds>`).
fn nap_tools(command: &str) -> tempfile::TempDir {
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir(work.path().join("tools")).unwrap();
    let descriptor = serde_json::json!({
        "name": "nap",
        "description": "Sleep a while",
        "command": command,
        "arguments": {"seconds": {"type": "integer", "description": "Seconds", "minimum": 1, "maximum": 3600}}
    });
    std::fs::write(
        work.path().join("tools/nap.tool.json"),
        descriptor.to_string(),
    )
    .unwrap();
    work
}

/// Starts `nanotool serve` on `work` in `cwd`, with its stdin held open, and calls `nap` with
/// `seconds`.
fn serve_and_nap(work: &Path, cwd: &Path, seconds: &str, flags: &[&str]) -> std::process::Child {
    let mut server = Command::new(nanotool_bin())
        .arg("serve")
        .arg("--work")
        .arg(work)
        .arg("--cwd")
        .arg(cwd)
        .args(["--timeout", "3600"])
        .args(flags)
        .env("NANOTOOL_LOG", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = server.stdin.as_mut().unwrap();
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"nap","arguments":{{"seconds":{seconds}}}}}}}"#
    );
    for line in OPEN_SESSION.into_iter().chain([call.as_str()]) {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    server
}

#[test]
fn a_command_dies_when_its_server_is_killed() {
    for (salt, sandbox) in [(0, "best-effort"), (1, "off")] {
        let work = nap_tools("sleep <seconds>");
        let seconds = unique_seconds(salt);
        let argv = ["sleep", seconds.as_str()];
        let cwd = tempfile::tempdir().unwrap();
        let mut server = serve_and_nap(work.path(), cwd.path(), &seconds, &["--sandbox", sandbox]);
        wait_until(&format!("{sandbox}: the command never started"), || {
            !processes_running(&argv).is_empty()
        });
        server.kill().unwrap();
        server.wait().unwrap();
        wait_until(
            &format!("{sandbox}: the command outlived its killed server"),
            || processes_running(&argv).is_empty(),
        );
    }
}

#[test]
fn a_command_dies_when_nanotool_call_is_killed() {
    let work = nap_tools("sleep <seconds>");
    let seconds = unique_seconds(2);
    let argv = ["sleep", seconds.as_str()];
    let cwd = tempfile::tempdir().unwrap();
    let mut call = Command::new(nanotool_bin())
        .arg("call")
        .arg("nap")
        .arg(format!(r#"{{"seconds": {seconds}}}"#))
        .arg("--work")
        .arg(work.path())
        .arg("--cwd")
        .arg(cwd.path())
        .args(["--timeout", "3600"])
        .env("NANOTOOL_LOG", "off")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_until("the command never started", || {
        !processes_running(&argv).is_empty()
    });
    call.kill().unwrap();
    call.wait().unwrap();
    wait_until("the command outlived its killed nanotool call", || {
        processes_running(&argv).is_empty()
    });
}

// ---------------------------------------------------------------------------------------------
// The rights a command keeps
// ---------------------------------------------------------------------------------------------

#[test]
fn a_read_only_command_of_a_root_agent_cannot_write_what_it_does_not_own() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("needs a root agent: only root holds CAP_DAC_OVERRIDE to drop");
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    // The temp dir on disk, where this test can plant a file (a tmpfs shows only commands
    // its content).
    let k = CommandExecKernel::new(KernelSettings {
        temp_size: None,
        ..crate::common::settings(ws.path(), SandboxMode::BestEffort)
    })
    .unwrap();
    // A file of another user, mode 0600, where read-only commands may write (their TMPDIR):
    // writing it takes CAP_DAC_OVERRIDE, reading it CAP_DAC_READ_SEARCH.
    // The read-only profile's TMPDIR (the write below goes through the variable).
    let tmp = crate::common::command_tmpdir(&k, nanotool_runtime::Access::READ_ONLY);
    let theirs = tmp.join("theirs");
    std::fs::write(&theirs, "canary\n").unwrap();
    std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
    std::fs::set_permissions(&theirs, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let write = sh(r#"echo owned >> "$TMPDIR/theirs" && echo wrote; cat "$TMPDIR/theirs""#);
    let r = k.run(&write);
    assert_eq!(r.confined, k.sandbox_status().enforced(), "{r:?}");
    assert!(!r.output.contains("wrote"), "{r:?}");
    assert!(r.output.contains("Permission denied"), "{r:?}");
    // It still reads it (CAP_DAC_READ_SEARCH), and the file is untouched.
    assert!(r.output.ends_with("canary\n"), "{r:?}");
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "canary\n");

    // A `writes` command keeps CAP_DAC_OVERRIDE (and CAP_FOWNER): its workspace may hold
    // files of any user.
    let r = k.run_as(&write, WRITES, None);
    assert!(r.output.starts_with("wrote\n"), "{r:?}");
}

#[test]
fn a_kernel_without_spec_allow_still_confines() {
    if !in_own_process(module_path!(), "a_kernel_without_spec_allow_still_confines") {
        return;
    }
    // Linux before 4.17: `seccomp(SECCOMP_SET_MODE_FILTER)` with the
    // `SECCOMP_FILTER_FLAG_SPEC_ALLOW` flag (in its second argument) fails with `EINVAL`.
    refuse_syscall_with_flags(libc::SYS_seccomp, 1, 1 << 2, libc::EINVAL);
    let ws = tempfile::tempdir().unwrap();
    let k = kernel(ws.path(), SandboxMode::Required);
    for _ in 0..2 {
        let r = k.run(&sh("echo ran"));
        if !k.sandbox_status().enforced() {
            // A Linux without Landlock: `required` refuses, naming it.
            assert!(r.text().contains("Landlock"), "{r:?}");
            continue;
        }
        assert_eq!((r.exit_code, r.output.as_str()), (0, "ran\n"), "{r:?}");
        assert!(r.confined, "{r:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// The private PID namespace (KernelSettings::pid_namespace)
// ---------------------------------------------------------------------------------------------

fn namespaced(ws: &Path) -> CommandExecKernel {
    CommandExecKernel::new(KernelSettings {
        pid_namespace: nanotool_runtime::kernel::PidNamespaceMode::On,
        ..settings(ws, SandboxMode::BestEffort)
    })
    .unwrap()
}

/// The pid a command has in its namespace: 2 under the reaper, 1 where there is none.
fn command_pid(status: &nanotool_runtime::kernel::SpawnStatus) -> u32 {
    if status.reaper.is_ok() { 2 } else { 1 }
}

/// A Python probe that tries to see, signal and reprioritize the process `pid` and prints
/// what each attempt gave (`ok` or the errno's name), then its own pid.
fn reach(pid: u32) -> Vec<String> {
    let script = format!(
        "import errno, os, signal\n\
         def t(f):\n    try:\n        f(); return 'ok'\n    except OSError as e:\n        return errno.errorcode[e.errno]\n\
         print(t(lambda: os.kill({pid}, 0)), t(lambda: os.kill({pid}, signal.SIGCONT)),\n\
               t(lambda: os.setpriority(os.PRIO_PROCESS, {pid}, 19)),\n\
               t(lambda: os.sched_getaffinity({pid})), os.getpid())\n"
    );
    vec!["/usr/bin/python3".into(), "-c".into(), script]
}

#[test]
fn in_its_pid_namespace_a_command_cannot_name_an_outside_pid() {
    let ws = tempfile::tempdir().unwrap();
    // A process of the agent's user outside the call: the agent itself.
    let me = std::process::id();
    let k = namespaced(ws.path());
    let status = k.spawn_status();
    // Directly for a root agent, through a user namespace for an ordinary user's.
    // SAFETY: geteuid cannot fail.
    let expected = if unsafe { libc::geteuid() } == 0 {
        nanotool_runtime::kernel::PidNamespace::Private
    } else {
        nanotool_runtime::kernel::PidNamespace::ThroughUserNamespace
    };
    assert_eq!(status.pid_namespace, expected, "{status}");
    assert!(status.to_string().contains("PID namespace"), "{status}");
    let r = k.run(&reach(me));
    // (`confined` says Landlock and the filter held: not on a Linux without Landlock.)
    assert_eq!(r.confined, k.sandbox_status().enforced(), "{r:?}");
    assert_eq!(
        r.output,
        format!("ESRCH ESRCH ESRCH ESRCH {}\n", command_pid(&status)),
        "{r:?}"
    );
    // Files it makes keep the agent's ids; exit statuses come back.
    let r = k.run_as(&sh("touch made; exit 5"), WRITES, None);
    assert_eq!(r.exit_code, 5, "{r:?}");
    let meta = std::fs::metadata(ws.path().join("made")).unwrap();
    // SAFETY: geteuid cannot fail.
    assert_eq!(std::os::unix::fs::MetadataExt::uid(&meta), unsafe {
        libc::geteuid()
    });

    // Control: without the namespace the same probe reaches the agent where the sandbox
    // lets it (kill(pid, 0) sees it: EPERM, not ESRCH).
    let without = CommandExecKernel::new(KernelSettings {
        pid_namespace: nanotool_runtime::kernel::PidNamespaceMode::Off,
        ..settings(ws.path(), SandboxMode::BestEffort)
    })
    .unwrap();
    let r = without.run(&reach(me));
    assert!(!r.output.starts_with("ESRCH"), "{r:?}");
}

#[test]
fn in_its_pid_namespace_a_background_process_dies_with_its_killed_agent() {
    if let Ok(role) = std::env::var(ROLE) {
        if let Some(seconds) = role.strip_prefix("namespaced agent ") {
            // The agent: runs a call whose command leaves a child behind, until killed.
            let ws = tempfile::tempdir().unwrap();
            let k = namespaced(ws.path());
            k.run(&sh(&format!("sleep {seconds} & exec sleep {seconds}")));
        }
        return;
    }
    let seconds = unique_seconds(3);
    let argv = ["sleep", seconds.as_str()];
    let name = test_name(
        module_path!(),
        "in_its_pid_namespace_a_background_process_dies_with_its_killed_agent",
    );
    let mut agent = Command::new(std::env::current_exe().unwrap())
        .args([name.as_str(), "--exact", "--nocapture"])
        .env(ROLE, format!("namespaced agent {seconds}"))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_until("the commands never started", || {
        processes_running(&argv).len() == 2
    });
    agent.kill().unwrap();
    agent.wait().unwrap();
    wait_until("a command outlived its killed agent", || {
        processes_running(&argv).is_empty()
    });
}

#[test]
fn an_ordinary_user_gets_the_namespace_through_a_user_namespace_or_is_told_why_not() {
    if !in_own_process(
        module_path!(),
        "an_ordinary_user_gets_the_namespace_through_a_user_namespace_or_is_told_why_not",
    ) {
        return;
    }
    // An ordinary user with ids of its own (not the overflow user's 65534).
    const ID: u32 = 12345;
    let ws = tempfile::tempdir().unwrap();
    std::os::unix::fs::chown(ws.path(), Some(ID), Some(ID)).unwrap();
    become_user(ID);
    // SAFETY: a plain call on this process's own state.
    unsafe {
        // A change of user leaves a process non-dumpable: start from what a user's agent is.
        assert_eq!(libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0), 0);
    }
    let owner = |name: &str| {
        let meta = std::fs::metadata(ws.path().join(name)).unwrap();
        (
            std::os::unix::fs::MetadataExt::uid(&meta),
            std::os::unix::fs::MetadataExt::gid(&meta),
        )
    };
    let k = namespaced(ws.path());
    let status = k.spawn_status();
    let r = k.run_as(&sh("touch made; echo $$ $(id -u) $(id -g)"), WRITES, None);
    assert_eq!(r.exit_code, 0, "{status}: {r:?}");
    match &status.pid_namespace {
        nanotool_runtime::kernel::PidNamespace::ThroughUserNamespace => {
            // The user and group are mapped to themselves: the command sees its own ids.
            let pid = command_pid(&status);
            assert_eq!(r.output, format!("{pid} {ID} {ID}\n"), "{status}: {r:?}");
            assert_eq!(owner("made"), (ID, ID));
            let r = k.run(&reach(std::process::id()));
            assert_eq!(
                r.output,
                format!("ESRCH ESRCH ESRCH ESRCH {pid}\n"),
                "{r:?}"
            );

            // A non-dumpable agent (as `nanotool` makes itself): its /proc files are root's,
            // so the maps cannot be written; the command sees the overflow ids, and what it
            // creates still belongs to the agent's user.
            // SAFETY: prctl on this process.
            assert_eq!(unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) }, 0);
            let k = namespaced(ws.path());
            let r = k.run_as(&sh("touch made2; echo $$ $(id -u)"), WRITES, None);
            assert_eq!(r.output, format!("{pid} 65534\n"), "{r:?}");
            assert_eq!(owner("made2"), (ID, ID));
        }
        nanotool_runtime::kernel::PidNamespace::Unavailable(why) => {
            // Where the host refuses user namespaces: commands run without, and it is said.
            assert!(!r.output.starts_with("2 "), "{r:?}");
            assert!(status.to_string().contains(why.as_str()), "{status}");
        }
        other => panic!("an ordinary user asking for the namespace got {other:?}"),
    }
}

#[test]
fn where_namespaces_are_refused_commands_run_without_and_the_status_says_so() {
    if !in_own_process(
        module_path!(),
        "where_namespaces_are_refused_commands_run_without_and_the_status_says_so",
    ) {
        return;
    }
    // A container's filter: no new namespaces for anyone (clone with namespace flags, unshare).
    refuse_syscalls(&[libc::SYS_unshare], libc::EPERM);
    refuse_syscall_with_flags(
        libc::SYS_clone,
        0,
        (libc::CLONE_NEWPID | libc::CLONE_NEWUSER) as u32,
        libc::EPERM,
    );
    let ws = tempfile::tempdir().unwrap();
    let k = namespaced(ws.path());
    let status = k.spawn_status();
    assert!(
        matches!(
            status.pid_namespace,
            nanotool_runtime::kernel::PidNamespace::Unavailable(_)
        ),
        "{status}"
    );
    assert!(
        status.to_string().contains("PID namespace: not available"),
        "{status}"
    );
    let r = k.run(&sh("echo $$"));
    assert_eq!(r.exit_code, 0, "{r:?}");
    assert_ne!(r.output, "2\n", "{r:?}");
    assert_eq!(r.confined, k.sandbox_status().enforced(), "{r:?}");
}

#[test]
fn with_pid_namespace_a_commands_child_dies_with_its_killed_server() {
    // The command leaves a child behind (`sleep N &`, written in Python: no shell runs).
    let work = nap_tools("/usr/bin/python3 nap.py <seconds>");
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(
        cwd.path().join("nap.py"),
        "import os, sys\n\
         os.spawnvp(os.P_NOWAIT, 'sleep', ['sleep', sys.argv[1]])\n\
         os.execvp('sleep', ['sleep', sys.argv[1]])\n",
    )
    .unwrap();
    let seconds = unique_seconds(4);
    let argv = ["sleep", seconds.as_str()];
    let mut server = serve_and_nap(work.path(), cwd.path(), &seconds, &["--pid-namespace"]);
    wait_until("the commands never started", || {
        processes_running(&argv).len() == 2
    });
    server.kill().unwrap();
    server.wait().unwrap();
    wait_until("a command's child outlived its killed server", || {
        processes_running(&argv).is_empty()
    });
}
