//! The private PID namespace by default wherever Landlock cannot keep a command's signals
//! inside its call (no signal scope before ABI 6, Linux 6.12; played here with
//! `landlock_abi_limit`, real on such a kernel), and its reaper as pid 1.
//!
//! The probes try what a read-only tool's script could do to the agent on Debian 12's or
//! Ubuntu 24.04's kernel: kill the agent's process or one of its threads. The controls show
//! the same probes reaching the agent with the namespace switched off.

use crate::common::{PYTHON, ROLE, in_own_process, python, settings, sh};
use nanotool_runtime::kernel::{PidNamespace, PidNamespaceMode};
use nanotool_runtime::{CommandExecKernel, KernelSettings, SandboxMode};
use std::path::Path;
use std::process::Command;

/// A kernel in `ws` playing Landlock ABI `abi` at most, with the PID namespace `pidns`.
fn at_abi(ws: &Path, abi: u32, mode: SandboxMode, pidns: PidNamespaceMode) -> CommandExecKernel {
    CommandExecKernel::new(KernelSettings {
        landlock_abi_limit: Some(abi),
        pid_namespace: pidns,
        ..settings(ws, mode)
    })
    .unwrap()
}

/// The Landlock ABI commands get at most `abi` here (the running kernel's may be lower).
fn effective_abi(k: &CommandExecKernel) -> u32 {
    k.sandbox_status().landlock_abi.clone().unwrap_or(0)
}

/// A probe that asks whether the processes `pids` exist for it (`kill(pid, 0)`): `ok` or
/// the errno's name, one per pid.
fn can_see(pids: &[i64]) -> Vec<String> {
    let list = pids
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    python(&format!(
        "import errno, os\n\
         def t(p):\n    try:\n        os.kill(p, 0); return 'ok'\n    except OSError as e:\n        return errno.errorcode[e.errno]\n\
         print(*[t(p) for p in ({list},)])\n"
    ))
}

/// This process's pid and the id of the calling thread (a thread of the agent).
fn agent_ids() -> [i64; 2] {
    // SAFETY: gettid cannot fail.
    [
        i64::from(std::process::id()),
        i64::from(unsafe { libc::gettid() }),
    ]
}

#[test]
fn without_the_signal_scope_commands_cannot_reach_the_agent_by_default() {
    let ws = tempfile::tempdir().unwrap();
    for abi in [0, 2, 5] {
        let k = at_abi(
            ws.path(),
            abi,
            SandboxMode::BestEffort,
            PidNamespaceMode::default(),
        );
        let status = k.spawn_status();
        let sandbox = k.sandbox_status().to_string();
        let r = k.run(&can_see(&agent_ids()));
        match &status.pid_namespace {
            PidNamespace::Private | PidNamespace::ThroughUserNamespace => {
                assert_eq!(r.output, "ESRCH ESRCH\n", "ABI {abi}: {status}: {r:?}");
                assert!(sandbox.contains("PID namespace"), "ABI {abi}: {sandbox}");
                assert!(
                    !sandbox.contains("signals to the agent"),
                    "ABI {abi}: {sandbox}"
                );
                if effective_abi(&k) >= 1 {
                    // `required` runs: every promise about the agent holds.
                    let k = at_abi(
                        ws.path(),
                        abi,
                        SandboxMode::Required,
                        PidNamespaceMode::default(),
                    );
                    let r = k.run(&sh("echo ran"));
                    assert_eq!(
                        (r.exit_code, r.output.as_str()),
                        (0, "ran\n"),
                        "ABI {abi}: {r:?}"
                    );
                    assert!(r.confined, "{r:?}");
                }
            }
            PidNamespace::Unavailable(why) => {
                // A host that refuses namespaces: said, with how to allow them.
                let line = status.to_string();
                assert!(line.contains(why.as_str()), "{line}");
                assert!(line.contains("to allow it"), "{line}");
                assert!(sandbox.contains("signals to the agent"), "{sandbox}");
            }
            PidNamespace::Off => panic!("ABI {abi}: auto made no PID namespace: {status}"),
        }
    }
    // Control: the same probe with the namespace switched off sees the agent (the filter
    // refuses its pid, EPERM, yet a thread's id gets through: what the kill probe uses), and
    // `required` refuses for the signals' sake.
    let k = at_abi(ws.path(), 2, SandboxMode::BestEffort, PidNamespaceMode::Off);
    assert_eq!(k.spawn_status().pid_namespace, PidNamespace::Off);
    let r = k.run(&can_see(&agent_ids()));
    assert_eq!(r.output, "EPERM ok\n", "{r:?}");
    if effective_abi(&k) >= 1 {
        let k = at_abi(ws.path(), 2, SandboxMode::Required, PidNamespaceMode::Off);
        let r = k.run(&sh("echo ran"));
        assert_ne!(r.exit_code, 0, "{r:?}");
        assert!(r.text().contains("signals to the agent"), "{}", r.text());
    }
}

#[test]
fn with_the_signal_scope_auto_makes_no_namespace() {
    let ws = tempfile::tempdir().unwrap();
    let k = CommandExecKernel::new(settings(ws.path(), SandboxMode::BestEffort)).unwrap();
    let status = k.spawn_status();
    if effective_abi(&k) >= 6 {
        assert_eq!(status.pid_namespace, PidNamespace::Off, "{status}");
        // Landlock's scope keeps the agent out of reach all the same.
        let r = k.run(&can_see(&agent_ids()));
        assert_eq!(r.output, "EPERM EPERM\n", "{r:?}");
    } else {
        // An older kernel: this is the default of the test above, unplayed.
        assert_ne!(status.pid_namespace, PidNamespace::Off, "{status}");
    }
}

#[test]
fn a_confined_command_that_kills_the_agent_does_not_end_it() {
    // The probe of a real agent: a copy of this binary runs a call whose command sends
    // SIGKILL to the agent's pid and to the thread that runs the call, then says whether
    // it is still there.
    const TEST: &str = "a_confined_command_that_kills_the_agent_does_not_end_it";
    if let Ok(role) = std::env::var(ROLE) {
        if let Some(abi) = role.strip_prefix("kill-probe agent, ABI ") {
            let ws = tempfile::tempdir().unwrap();
            let abi: u32 = abi.parse().unwrap();
            let k = at_abi(
                ws.path(),
                abi,
                SandboxMode::BestEffort,
                PidNamespaceMode::default(),
            );
            let [pid, tid] = agent_ids();
            let r = k.run(&python(&format!(
                "import os, signal\n\
                 for p in ({tid}, {pid}):\n    try:\n        os.kill(p, signal.SIGKILL)\n    except OSError:\n        pass\n"
            )));
            println!(
                "agent alive after the call ({}); {}",
                r.exit_code,
                k.spawn_status()
            );
        }
        return;
    }
    let name = crate::common::test_name(module_path!(), TEST);
    for abi in [2, 5] {
        let out = Command::new(std::env::current_exe().unwrap())
            .args([name.as_str(), "--exact", "--nocapture", "--test-threads=1"])
            .env(ROLE, format!("kill-probe agent, ABI {abi}"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        if text.contains("PID namespace: not available") {
            // Where no namespace can be had the probe kills the agent: the status says so.
            continue;
        }
        assert!(
            out.status.success() && text.contains("agent alive after the call"),
            "ABI {abi}: the agent was killed by its command ({:?}):\n{text}",
            out.status
        );
    }
}

#[test]
fn the_reaper_is_pid_1_and_the_command_keeps_its_signals() {
    crate::common::interrupts_at_default();
    let ws = tempfile::tempdir().unwrap();
    let on = at_abi(ws.path(), 7, SandboxMode::BestEffort, PidNamespaceMode::On);
    let status = on.spawn_status();
    if matches!(status.pid_namespace, PidNamespace::Unavailable(_)) {
        return;
    }
    assert_eq!(status.reaper, Ok(()), "{status}");
    assert!(
        status.to_string().contains("a reaper as its pid 1"),
        "{status}"
    );
    let off = at_abi(ws.path(), 7, SandboxMode::BestEffort, PidNamespaceMode::Off);

    // The command is pid 2; its parent is the reaper.
    let r = on.run(&python("import os; print(os.getpid(), os.getppid())"));
    assert_eq!(r.output, "2 1\n", "{r:?}");

    // Signals it has no handler for end it, from itself and from a closed pipe; the status
    // is the command's own, as without the namespace.
    let cases = [
        sh("kill -TERM $$; echo survived"),
        python(
            "import os, signal\n\
             signal.signal(signal.SIGPIPE, signal.SIG_DFL)\n\
             r, w = os.pipe(); os.close(r); os.write(w, b'x'); print('survived')",
        ),
        python("import os, signal; os.kill(os.getpid(), signal.SIGINT); print('survived')"),
        sh("exit 7"),
        sh("echo out; echo err >&2; exit 0"),
    ];
    for argv in &cases {
        let (a, b) = (on.run(argv), off.run(argv));
        assert_eq!(
            (a.exit_code, a.signal, a.output.as_str()),
            (b.exit_code, b.signal, b.output.as_str()),
            "{argv:?}"
        );
        assert!(!a.output.contains("survived"), "{argv:?}: {a:?}");
    }
    assert_eq!(on.run(&cases[0]).signal, Some(libc::SIGTERM));
    assert_eq!(on.run(&cases[1]).signal, Some(libc::SIGPIPE));

    // A program the kernel cannot execute fails to start, as it does without the namespace.
    let junk = ws.path().join("junk");
    std::fs::write(&junk, "\x01\x02 not a program\n").unwrap();
    std::fs::set_permissions(&junk, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let argv = vec!["./junk".to_owned()];
    let (a, b) = (on.run(&argv), off.run(&argv));
    assert_eq!(
        (a.exit_code, &a.start_error),
        (b.exit_code, &b.start_error),
        "{a:?}"
    );
    assert!(a.start_error.is_some(), "{a:?}");

    // Orphans die with the call and the reaper, which waits for nothing but the command.
    let r = on.run(&sh("sleep 30 & echo started"));
    assert_eq!((r.exit_code, r.output.as_str()), (0, "started\n"), "{r:?}");
    assert!(r.duration < std::time::Duration::from_secs(25), "{r:?}");
}

#[test]
fn the_reaper_forwards_signals_sent_to_pid_1() {
    let ws = tempfile::tempdir().unwrap();
    let on = at_abi(ws.path(), 7, SandboxMode::BestEffort, PidNamespaceMode::On);
    if matches!(
        on.spawn_status().pid_namespace,
        PidNamespace::Unavailable(_)
    ) {
        return;
    }
    // A child of the command signals pid 1: the reaper passes it on to the command.
    let r = on.run(&argv_of(&[
        PYTHON,
        "-c",
        "import os, signal, time\n\
         got = []\n\
         signal.signal(signal.SIGUSR1, lambda *a: got.append(1))\n\
         if os.fork() == 0:\n    os.kill(1, signal.SIGUSR1); os._exit(0)\n\
         os.wait()\n\
         for _ in range(500):\n    if got: break\n    time.sleep(0.01)\n\
         print('forwarded' if got else 'lost')",
    ]));
    assert_eq!(r.output, "forwarded\n", "{r:?}");
}

fn argv_of(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

#[test]
fn the_cli_says_the_namespace_on_an_older_kernel() {
    if !in_own_process(
        module_path!(),
        "the_cli_says_the_namespace_on_an_older_kernel",
    ) {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let out = Command::new(crate::common::bin::nanotool_bin())
        .args(["--landlock-abi", "2", "--work"])
        .arg(ws.path())
        .arg("list")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("pid_namespace auto (default)"), "{text}");
    if text.contains("NOT enforced") {
        // A Linux without Landlock: the namespace still keeps the agent out of reach.
        assert!(text.contains("a PID namespace per call"), "{text}");
    } else if !text.contains("PID namespace: not available") {
        assert!(
            text.contains("landlock ABI 2 + seccomp + PID namespace, enforced"),
            "{text}"
        );
    }
}
