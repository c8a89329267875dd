//! A cgroup v2 child per call, where the host delegates one: each command starts inside its
//! call's cgroup (`clone3` with `CLONE_INTO_CGROUP`), every process of the call dies with it
//! (`cgroup.kill`), even one that left the call's process group and session, nothing is left
//! behind when the kernel drops or `serve` stops, and where no cgroup is delegated (or
//! `clone3` is refused) the kernel works as without one and says so.
//!
//! Where this host has no writable cgroup v2 hierarchy, each test checks the other side: the
//! status line says why processes are not bounded per call.

use crate::common::bin::nanotool_bin;
use crate::common::refuse::refuse_syscalls;
use crate::common::{
    Stop, become_user, in_own_process, processes_running, settings, sh, stop_serve, unique_seconds,
};
use nanotool_runtime::kernel::CgroupMode;
use nanotool_runtime::{CommandExecKernel, KernelSettings, SandboxMode};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a wait for a process to die may take before the test fails as hung.
const WATCHDOG: Duration = Duration::from_secs(20);

/// The agent's own cgroup v2 folder, when this host mounts cgroup v2 and this process may
/// create cgroups in it (found here independently of the kernel's own detection).
fn delegated_cgroup() -> Option<PathBuf> {
    let mount = cgroup2_mount()?;
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = mount.join(path.trim_start_matches('/'));
    let probe = dir.join(format!("nanotool-test-probe-{}", std::process::id()));
    std::fs::create_dir(&probe).ok()?;
    std::fs::remove_dir(&probe).ok()?;
    Some(dir)
}

/// Where cgroup v2 is mounted (its root), from `/proc/self/mountinfo`.
fn cgroup2_mount() -> Option<PathBuf> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    mountinfo.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let fstype = right.split(' ').next()?;
        let fields: Vec<&str> = left.split(' ').collect();
        (fstype == "cgroup2" && fields.get(3) == Some(&"/")).then(|| PathBuf::from(fields[4]))
    })
}

/// Whether `pid` is alive: neither gone, nor a zombie.
fn alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat
        .rfind(')')
        .and_then(|i| stat[i + 2..].chars().next())
        .unwrap_or('X');
    state != 'Z' && state != 'X'
}

/// Kills `pid` if it still runs (a failed test leaves nothing behind).
fn kill(pid: i32) {
    if alive(pid) {
        // SAFETY: a signal to a process this test started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

/// A command that leaves its call's process group and session (`setsid sleep SECONDS`): the
/// group kill misses it; only the call's cgroup still holds it.
fn escape(seconds: &str) -> Vec<String> {
    sh(&format!(
        "setsid sleep {seconds} </dev/null >/dev/null 2>&1 & echo started"
    ))
}

/// The escapee of [`escape`], found by its command line (the pid a command sees of it is its
/// PID namespace's where it has one), once it runs.
fn escapee(seconds: &str) -> Option<i32> {
    for _ in 0..200 {
        if let Some(pid) = processes_running(&["sleep", seconds]).first() {
            return Some(*pid);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    None
}

#[test]
fn a_process_that_left_the_group_dies_with_its_call() {
    let ws = tempfile::tempdir().unwrap();
    // With the sandbox off nothing refuses `setsid`: only the cgroup can end the escapee.
    let k = CommandExecKernel::new(settings(ws.path(), SandboxMode::Off)).unwrap();
    let seconds = unique_seconds(21);
    let r = k.run(&escape(&seconds));
    assert_eq!(r.exit_code, 0, "{}", r.text());
    let status = k.limits_status().to_string();
    if delegated_cgroup().is_none() {
        let pid = escapee(&seconds).expect("the escapee runs where no cgroup ends it");
        kill(pid);
        assert!(
            status.contains("processes: not bounded per call"),
            "{status}"
        );
        return;
    }
    // Dead when the call returned (no waiting: `run` waits for the cgroup to empty).
    let left = processes_running(&["sleep", &seconds]);
    left.iter().for_each(|&pid| kill(pid));
    assert!(
        left.is_empty(),
        "{left:?} left its call's group and outlived the call ({status})"
    );
    // The calls after it run as usual (a killed cgroup is not reused: Linux would kill what
    // starts in it), confined or not.
    for mode in [SandboxMode::Off, SandboxMode::BestEffort] {
        let k = CommandExecKernel::new(on(settings(ws.path(), mode))).unwrap();
        for round in 0..3 {
            let seconds = unique_seconds(22 + round);
            let r = k.run(&escape(&seconds));
            assert_eq!(r.exit_code, 0, "{mode}: {}", r.text());
            let left = processes_running(&["sleep", &seconds]);
            left.iter().for_each(|&pid| kill(pid));
            assert!(left.is_empty(), "{mode}: {left:?} outlived its call");
            let r = k.run(&sh("echo next"));
            assert_eq!(r.output, "next\n", "{mode}: {}", r.text());
        }
    }
}

/// `settings` with a cgroup per call wherever one is delegated.
fn on(settings: KernelSettings) -> KernelSettings {
    KernelSettings {
        cgroup: CgroupMode::On,
        ..settings
    }
}

#[test]
fn a_confined_call_gets_a_cgroup_only_where_it_bounds_something() {
    let ws = tempfile::tempdir().unwrap();
    let k = CommandExecKernel::new(settings(ws.path(), SandboxMode::BestEffort)).unwrap();
    let status = k.limits_status();
    let Some(agent) = delegated_cgroup() else {
        assert_eq!(status.cgroup.parent, None, "{status}");
        return;
    };
    let controllers = hands_down_a_controller(&agent);
    // A confined command cannot leave its group (the filter refuses `setsid`): without a
    // controller to set, a cgroup would bound nothing.
    assert_eq!(status.cgroup.parent.is_some(), controllers, "{status}");
    if !controllers {
        let text = status.to_string();
        assert!(
            text.contains("confined commands cannot leave their process group"),
            "{text}"
        );
        let r = k.run(&sh("echo ran"));
        assert_eq!(r.output, "ran\n", "{}", r.text());
    }
    // `On` makes one all the same; with the sandbox off (commands may leave their group)
    // `Auto` does too.
    let forced = CommandExecKernel::new(on(settings(ws.path(), SandboxMode::BestEffort))).unwrap();
    assert!(
        forced.limits_status().cgroup.parent.is_some(),
        "{}",
        forced.limits_status()
    );
    let plain = CommandExecKernel::new(settings(ws.path(), SandboxMode::Off)).unwrap();
    assert!(
        plain.limits_status().cgroup.parent.is_some(),
        "{}",
        plain.limits_status()
    );
}

/// Whether `agent`'s cgroup can hand its children one of pids, memory, cpu.
fn hands_down_a_controller(agent: &Path) -> bool {
    let available = std::fs::read_to_string(agent.join("cgroup.controllers")).unwrap();
    ["pids", "memory", "cpu"]
        .iter()
        .any(|c| available.split_whitespace().any(|a| a == *c))
}

/// The calls' folder of kernel `k`, from its status.
fn calls_folder(k: &CommandExecKernel) -> PathBuf {
    let status = k.limits_status();
    status
        .cgroup
        .parent
        .clone()
        .unwrap_or_else(|| panic!("no cgroup per call on a delegated host: {status}"))
}

#[test]
fn a_command_is_born_in_its_calls_cgroup() {
    let ws = tempfile::tempdir().unwrap();
    let Some(agent) = delegated_cgroup() else {
        let k = CommandExecKernel::new(settings(ws.path(), SandboxMode::Off)).unwrap();
        assert!(k.limits_status().cgroup.parent.is_none());
        return;
    };
    // Unconfined, the command can read its own /proc: it is in a call's cgroup of this
    // kernel's folder, inside the agent's cgroup.
    let k = CommandExecKernel::new(settings(ws.path(), SandboxMode::Off)).unwrap();
    let folder = calls_folder(&k);
    assert_eq!(folder.parent(), Some(agent.as_path()));
    let r = k.run(&sh("cat /proc/self/cgroup"));
    let line = r
        .output
        .lines()
        .find(|l| l.starts_with("0::"))
        .unwrap_or_default();
    let mount = cgroup2_mount().unwrap();
    let cgroup = mount.join(line.trim_start_matches("0::").trim_start_matches('/'));
    assert_eq!(cgroup.parent(), Some(folder.as_path()), "{}", r.text());

    // Confined (no /proc for the command): seen from outside while it runs. `On`: this
    // host may hand down no controller, where `Auto` makes no cgroup for confined calls.
    let k = CommandExecKernel::new(on(settings(ws.path(), SandboxMode::BestEffort))).unwrap();
    let folder = calls_folder(&k);
    std::thread::scope(|s| {
        let call = s.spawn(|| k.run(&sh("exec sleep 2")));
        let until = Instant::now() + WATCHDOG;
        let found = loop {
            let sleeper = std::fs::read_dir(&folder)
                .unwrap()
                .flatten()
                .filter(|e| e.path().is_dir())
                .flat_map(|e| {
                    std::fs::read_to_string(e.path().join("cgroup.procs"))
                        .unwrap_or_default()
                        .split_whitespace()
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                })
                .find(|pid| {
                    std::fs::read_to_string(format!("/proc/{pid}/comm"))
                        .is_ok_and(|c| c.trim() == "sleep")
                });
            if sleeper.is_some() || Instant::now() > until || call.is_finished() {
                break sleeper;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let r = call.join().unwrap();
        assert_eq!(r.exit_code, 0, "{}", r.text());
        assert!(
            found.is_some(),
            "the confined sleep was never seen in {}",
            folder.display()
        );
    });
}

#[test]
fn no_cgroup_is_left_behind_when_the_kernel_drops() {
    let ws = tempfile::tempdir().unwrap();
    let k = CommandExecKernel::new(settings(ws.path(), SandboxMode::Off)).unwrap();
    let Some(folder) = k.limits_status().cgroup.parent else {
        assert!(delegated_cgroup().is_none(), "{}", k.limits_status());
        return;
    };
    // Several calls at once (several cgroups), one of them leaving a process behind that
    // outlives its own call only if the kernel fails.
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| assert_eq!(k.run(&sh("sleep 0.2")).exit_code, 0));
        }
    });
    let seconds = unique_seconds(31);
    assert_eq!(k.run(&escape(&seconds)).exit_code, 0);
    assert!(folder.is_dir());
    drop(k);
    let left = processes_running(&["sleep", &seconds]);
    left.iter().for_each(|&pid| kill(pid));
    assert!(left.is_empty(), "{left:?} outlived its kernel");
    assert!(!folder.exists(), "{} outlived its kernel", folder.display());
}

#[test]
fn clone3_refused_when_the_kernel_is_built_means_no_cgroup_per_call() {
    if !in_own_process(
        module_path!(),
        "clone3_refused_when_the_kernel_is_built_means_no_cgroup_per_call",
    ) {
        return;
    }
    // A Linux before 5.3 or a container's filter: no clone3.
    refuse_syscalls(&[libc::SYS_clone3], libc::ENOSYS);
    let ws = tempfile::tempdir().unwrap();
    let before = leftovers();
    for mode in [SandboxMode::Off, SandboxMode::BestEffort] {
        let k = CommandExecKernel::new(on(settings(ws.path(), mode))).unwrap();
        let status = k.limits_status();
        assert_eq!(status.cgroup.parent, None, "{status}");
        let text = status.to_string();
        assert!(text.contains("processes: not bounded per call"), "{text}");
        if delegated_cgroup().is_some() {
            assert!(text.contains("clone3"), "{text}");
        }
        let r = k.run(&sh("echo ran"));
        assert_eq!(r.output, "ran\n", "{mode}: {}", r.text());
    }
    assert_eq!(leftovers(), before, "a refused trial left a cgroup behind");
}

#[test]
fn clone3_refused_later_falls_back_to_clone() {
    if !in_own_process(module_path!(), "clone3_refused_later_falls_back_to_clone") {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let plain = CommandExecKernel::new(settings(ws.path(), SandboxMode::Off)).unwrap();
    let confined =
        CommandExecKernel::new(on(settings(ws.path(), SandboxMode::BestEffort))).unwrap();
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap();
    // A kernel that does not know CLONE_INTO_CGROUP (5.3 to 5.6) refuses the flag.
    refuse_syscalls(&[libc::SYS_clone3], libc::EINVAL);
    for _ in 0..2 {
        let r = plain.run(&sh("cat /proc/self/cgroup"));
        assert_eq!(r.exit_code, 0, "{}", r.text());
        // In the agent's own cgroup, as without a cgroup per call.
        assert_eq!(r.output, own, "{}", r.text());
        let r = confined.run(&sh("echo confined"));
        assert_eq!(r.output, "confined\n", "{}", r.text());
    }
}

#[test]
fn an_ordinary_user_without_a_delegated_cgroup_is_told_not_refused() {
    if !in_own_process(
        module_path!(),
        "an_ordinary_user_without_a_delegated_cgroup_is_told_not_refused",
    ) {
        return;
    }
    become_user(12345);
    let ws = tempfile::tempdir().unwrap();
    for mode in [SandboxMode::Off, SandboxMode::BestEffort] {
        let k = CommandExecKernel::new(settings(ws.path(), mode)).unwrap();
        let status = k.limits_status();
        assert_eq!(status.cgroup.parent, None, "{status}");
        let text = status.to_string();
        assert!(
            text.contains(
                "processes: not bounded per call (no delegated cgroup v2 with the pids controller: "
            ),
            "{text}"
        );
        assert!(
            text.contains("not delegated to this user")
                || text.contains("no cgroup v2")
                || text.contains("is in this cgroup v2 hierarchy"),
            "{text}"
        );
        // The reason is said once, however many limits it leaves unbounded.
        let note = status.cgroup.note.as_deref().unwrap();
        assert_eq!(text.matches(note).count(), 1, "{text}");
        let r = k.run(&sh("echo ran"));
        assert_eq!(r.output, "ran\n", "{mode}: {}", r.text());
    }
}

#[test]
fn the_cgroup_can_be_turned_off() {
    let ws = tempfile::tempdir().unwrap();
    let k = CommandExecKernel::new(KernelSettings {
        cgroup: CgroupMode::Off,
        ..settings(ws.path(), SandboxMode::Off)
    })
    .unwrap();
    let status = k.limits_status();
    assert_eq!(status.cgroup.parent, None);
    assert!(
        status
            .to_string()
            .contains("no cgroup per call (turned off (`--cgroup off`"),
        "{status}"
    );
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap();
    let r = k.run(&sh("cat /proc/self/cgroup"));
    assert_eq!(r.output, own);
}

/// The calls' folders of this process's kernels in the agent's cgroup.
fn leftovers() -> Vec<PathBuf> {
    let Some(agent) = delegated_cgroup() else {
        return Vec::new();
    };
    let prefix = format!("nanotool-{}-", std::process::id());
    let mut found: Vec<PathBuf> = std::fs::read_dir(agent)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// Starts `nanotool serve`, waits for its calls' cgroup folder, stops it as `stop` says,
/// and checks the folder is gone.
fn serve_leaves_no_cgroup(agent: &Path, stop: Stop) {
    use std::process::{Command, Stdio};
    let ws = tempfile::tempdir().unwrap();
    let mut child = Command::new(nanotool_bin())
        .args(["serve", "--cgroup", "on", "--cwd"])
        .arg(ws.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let prefix = format!("nanotool-{}-", child.id());
    let until = Instant::now() + WATCHDOG;
    let folder = loop {
        let made = std::fs::read_dir(agent)
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with(&prefix));
        if let Some(e) = made {
            break e.path();
        }
        assert!(Instant::now() < until, "serve made no cgroup");
        std::thread::sleep(Duration::from_millis(20));
    };
    let (status, log) = stop_serve(&mut child, stop);
    assert!(
        !folder.exists(),
        "{stop:?} ({status}): {} outlived serve:\n{log}",
        folder.display()
    );
}

#[test]
fn serve_removes_its_cgroups_on_stdin_eof_and_sigterm() {
    let Some(agent) = delegated_cgroup() else {
        eprintln!("no delegated cgroup v2 here: serve makes no cgroup to remove");
        return;
    };
    serve_leaves_no_cgroup(&agent, Stop::StdinClosed);
    serve_leaves_no_cgroup(&agent, Stop::Signal(libc::SIGTERM));
}

#[test]
fn list_json_says_which_limits_hold_per_call() {
    let ws = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(nanotool_bin())
        .args(["list", "--json", "--cwd"])
        .arg(ws.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tools: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let limits = &tools[0]["limits"];
    let status = limits["status"].as_str().unwrap();
    assert!(status.starts_with("limits: "), "{status}");
    let pids = status.contains("processes: bounded per call by cgroup (pids.max 4096)");
    assert_eq!(limits["processes_per_call"], pids, "{limits}");
    // The temp dir's bound, where it is a tmpfs (a root agent's), in bytes.
    let tmpfs = status.contains("temp dir: a tmpfs of 1 GiB, 131072 files");
    assert_eq!(
        limits["temp_dir_size"].as_u64(),
        tmpfs.then_some(1 << 30),
        "{limits}"
    );
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        assert!(!tmpfs, "{status}");
    }
    // `list` builds a confined kernel: a cgroup per call where one can bound something.
    assert_eq!(
        limits["cgroup"].is_string(),
        delegated_cgroup().is_some_and(|a| hands_down_a_controller(&a)),
        "{limits}"
    );
    if !pids {
        assert!(
            status.contains(
                "processes: not bounded per call (no delegated cgroup v2 with the pids controller"
            ),
            "{status}"
        );
    }
}
