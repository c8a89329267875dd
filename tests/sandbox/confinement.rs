//! The sandbox tried as an attacker would, at every Landlock ABI this Linux can play (0 up to
//! its own): a probe run by a confined read-only tool tries a class of escape, and either the
//! escape fails and leaves nothing, or the status line names that promise as not holding on
//! this Linux. Each class has a control that succeeds with the sandbox off, so a probe that
//! could not work anyway proves nothing.
//!
//! x86_64 only: the probes name its system call numbers.
//!
//! Targets that would hurt if an escape worked (a signal, a lower priority) are a sacrificial
//! `sleep` the test starts outside the call, never the test process itself.

#![cfg(target_arch = "x86_64")] // the probes name x86_64 system call numbers

use crate::common::git::init_repo;
use crate::common::{WRITES, python, settings};
use nanotool_runtime::{Access, CommandExecKernel, ExecResult, KernelSettings, SandboxMode};
use std::path::Path;
use std::process::{Child, Command};

/// The Landlock ABIs to play: 0 (no Landlock) up to the running Linux's own.
fn abis() -> Vec<u32> {
    let running = kernel(Path::new("."), None, SandboxMode::BestEffort)
        .sandbox_status()
        .landlock_abi
        .clone()
        .unwrap_or(0);
    (0..=running).collect()
}

fn kernel(ws: &Path, abi: Option<u32>, mode: SandboxMode) -> CommandExecKernel {
    CommandExecKernel::new(KernelSettings {
        landlock_abi_limit: abi,
        ..settings(ws, mode)
    })
    .unwrap()
}

/// Runs `script` confined at ABI `abi` (read-only, offline) and unconfined.
fn both(ws: &Path, abi: u32, script: &str) -> (CommandExecKernel, ExecResult, ExecResult) {
    let k = kernel(ws, Some(abi), SandboxMode::BestEffort);
    let confined = k.run_as(&python(script), Access::READ_ONLY, None);
    let off = kernel(ws, None, SandboxMode::Off).run(&python(script));
    (k, confined, off)
}

/// Whether the status of `k` says `what` holds; when it does not, the status line must name
/// it as not confined.
fn holds(k: &CommandExecKernel, what: &str) -> bool {
    let status = k.sandbox_status();
    let promise = status
        .promises()
        .into_iter()
        .find(|p| p.what.contains(what))
        .unwrap_or_else(|| panic!("no promise about {what}"));
    if !promise.holds {
        let line = status.to_string();
        assert!(
            line.contains(promise.what) || line.contains("NOT enforced"),
            "`{what}` does not hold, yet the status line does not say so: {line}"
        );
        let json = serde_json::to_string(&status.partial()).unwrap();
        assert!(json.contains(promise.what) || !status.enforced(), "{json}");
    }
    promise.holds
}

/// A `sleep` outside every call: the target of escapes that would hurt the agent.
struct Victim(Child);

impl Victim {
    fn new() -> Victim {
        Victim(Command::new("sleep").arg("600").spawn().unwrap())
    }
    fn pid(&self) -> u32 {
        self.0.id()
    }
    fn alive(&mut self) -> bool {
        self.0.try_wait().unwrap().is_none()
    }
    fn nice(&self) -> String {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap();
        let after = stat.rsplit(')').next().unwrap();
        after.split_whitespace().nth(16).unwrap().to_owned()
    }
}

impl Drop for Victim {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The SysV objects of the machine (`/proc/sysvipc`), to see that a call left none.
fn sysv_objects() -> String {
    ["shm", "msg", "sem"]
        .iter()
        .map(|k| std::fs::read_to_string(format!("/proc/sysvipc/{k}")).unwrap_or_default())
        .collect()
}

/// Removes the SysV objects of key 0 (`IPC_PRIVATE`): what the unconfined controls made.
fn remove_private_sysv_objects() {
    for kind in ["shm", "msg", "sem"] {
        let table = std::fs::read_to_string(format!("/proc/sysvipc/{kind}")).unwrap_or_default();
        for line in table.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.first() != Some(&"0") || fields.get(2) != Some(&"666") {
                continue;
            }
            let Ok(id) = fields[1].parse::<i32>() else {
                continue;
            };
            // SAFETY: removing an object of the kind its table lists; a null buffer is
            // allowed for IPC_RMID.
            unsafe {
                match kind {
                    "shm" => libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()),
                    "msg" => libc::msgctl(id, libc::IPC_RMID, std::ptr::null_mut()),
                    _ => libc::semctl(id, 0, libc::IPC_RMID),
                };
            }
        }
    }
}

#[test]
fn sysv_ipc_of_other_processes_is_out_of_reach_and_nothing_is_left() {
    // A 0600 segment of a process outside the sandbox, holding a secret.
    let ws = tempfile::tempdir().unwrap();
    let key = 0x6e74_0000 + std::process::id() as i32 % 0xffff;
    // SAFETY: plain SysV calls on a segment this test creates and removes.
    let id = unsafe { libc::shmget(key, 4096, libc::IPC_CREAT | 0o600) };
    assert!(id >= 0, "{}", std::io::Error::last_os_error());
    struct Remove(i32);
    impl Drop for Remove {
        fn drop(&mut self) {
            // SAFETY: removes the test's own segment.
            unsafe { libc::shmctl(self.0, libc::IPC_RMID, std::ptr::null_mut()) };
        }
    }
    let _remove = Remove(id);
    let script = format!(
        r#"
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
i = libc.shmget({key}, 0, 0)
if i >= 0:
    p = libc.shmat(i, None, 0)
    if p not in (None, ctypes.c_void_p(-1).value):
        ctypes.memmove(p, b"overwritten", 11)
        print("REACHED")
mine = libc.shmget(0, 1 << 20, 0o1666)
q = libc.msgget(0, 0o1666)
s = libc.semget(0, 1, 0o1666)
print("LEFT" if max(mine, q, s) >= 0 else "NONE", ctypes.get_errno())
"#
    );
    for abi in abis() {
        let before = sysv_objects();
        let k = kernel(ws.path(), Some(abi), SandboxMode::BestEffort);
        let confined = k.run_as(&python(&script), Access::READ_ONLY, None);
        assert!(
            holds(&k, "SysV IPC"),
            "the filter refuses SysV IPC on every ABI"
        );
        assert!(
            !confined.output.contains("REACHED"),
            "ABI {abi}: {confined:?}"
        );
        assert!(confined.output.contains("NONE"), "ABI {abi}: {confined:?}");
        assert_eq!(sysv_objects(), before, "ABI {abi}: objects left behind");
        let off = kernel(ws.path(), None, SandboxMode::Off).run(&python(&script));
        // The control reaches the segment (and leaves objects, removed below).
        assert!(off.output.contains("REACHED"), "{off:?}");
        remove_private_sysv_objects();
    }
    // SAFETY: reads the test's own segment.
    let p = unsafe { libc::shmat(id, std::ptr::null(), 0) };
    assert_ne!(p as isize, -1);
    // SAFETY: the segment is 4096 bytes, attached above.
    let first = unsafe { std::slice::from_raw_parts(p as *const u8, 11) };
    // Only the unconfined control wrote there.
    assert_eq!(first, b"overwritten");
    // SAFETY: detaches what was attached above.
    unsafe { libc::shmdt(p) };
}

#[test]
fn watching_paths_outside_is_refused() {
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let script = format!(
        r#"
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
w = libc.inotify_add_watch(fd, b"{}", 0xfff) if fd >= 0 else -1
fa = libc.syscall(300, 0, 0)  # fanotify_init
print("WATCHING" if w >= 0 else "NO", ctypes.get_errno(), "FANOTIFY" if fa >= 0 else "")
"#,
        outside.path().display()
    );
    for abi in abis() {
        let (k, confined, off) = both(ws.path(), abi, &script);
        assert!(holds(&k, "inotify"));
        assert!(
            confined.output.starts_with("NO 38"),
            "ABI {abi}: inotify must be not implemented (38): {confined:?}"
        );
        assert!(!confined.output.contains("FANOTIFY"), "{confined:?}");
        assert!(off.output.starts_with("WATCHING"), "{off:?}");
    }
}

#[test]
fn inode_flags_and_terminal_ioctls_are_refused() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("f"), "x").unwrap();
    let script = r#"
import ctypes, fcntl, os, array
fd = os.open("f", os.O_RDONLY)
flags = array.array("l", [0])
try:
    fcntl.ioctl(fd, 0x80086601, flags)   # FS_IOC_GETFLAGS
    fcntl.ioctl(fd, 0x40086602, flags)   # FS_IOC_SETFLAGS, the same flags
    print("SET")
except OSError as e:
    print("REFUSED", e.errno)
try:
    fcntl.ioctl(0, 0x5412, b"x")          # TIOCSTI
    print("TYPED")
except OSError as e:
    print("NOTTY", e.errno)
"#;
    for abi in abis() {
        let (k, confined, off) = both(ws.path(), abi, script);
        assert!(holds(&k, "inode flags"));
        // A read-only tool's ioctls are an allowlist: anything else is "not a request this
        // file knows" (ENOTTY), the same answer whether the file system has the operation.
        assert!(
            confined.output.contains("REFUSED 25\n"),
            "ABI {abi}: {confined:?}"
        );
        assert!(
            confined.output.contains("NOTTY 25\n"),
            "ABI {abi}: {confined:?}"
        );
        // The control sets the flags where the file system has them (ENOTTY elsewhere).
        assert!(
            off.output.contains("SET") || off.output.contains("REFUSED 25"),
            "{off:?}"
        );
    }
}

#[test]
fn the_scheduling_of_processes_outside_the_call_stays_put() {
    let ws = tempfile::tempdir().unwrap();
    for abi in abis() {
        let victim = Victim::new();
        let script = format!(
            r#"
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
pid = {pid}
r = []
r.append(libc.setpriority(0, pid, 19))
mask = ctypes.c_ulong(1)
r.append(libc.sched_setaffinity(pid, ctypes.sizeof(mask), ctypes.byref(mask)))
param = ctypes.c_int(0)
r.append(libc.sched_setscheduler(pid, 5, ctypes.byref(param)))  # SCHED_IDLE
r.append(libc.syscall(251, 1, pid, (3 << 13) | 7))  # ioprio_set: IDLE class
lim = (ctypes.c_ulong * 2)(1, 1)
r.append(libc.prlimit(pid, 7, ctypes.byref(lim), None))  # RLIMIT_NOFILE
print("CHANGED" if 0 in r else "UNCHANGED", r)
"#,
            pid = victim.pid()
        );
        let nice = victim.nice();
        let k = kernel(ws.path(), Some(abi), SandboxMode::BestEffort);
        let confined = k.run_as(&python(&script), Access::READ_ONLY, None);
        assert!(holds(&k, "scheduling"));
        assert!(
            confined.output.contains("UNCHANGED"),
            "ABI {abi}: {confined:?}"
        );
        assert_eq!(victim.nice(), nice, "ABI {abi}");
        // The same probe unconfined changes the victim.
        let off = kernel(ws.path(), None, SandboxMode::Off).run(&python(&script));
        assert!(off.output.contains("CHANGED"), "{off:?}");
        assert_ne!(victim.nice(), nice);
    }
}

#[test]
fn signals_outside_the_call_are_refused_or_reported() {
    let ws = tempfile::tempdir().unwrap();
    // kill() of a process outside the call, and SIGIO through an fd owner (FIOSETOWN on a
    // socketpair, then I/O on it).
    let kill = "import os, sys; os.kill(int(sys.argv[1]), 9); print('SENT')";
    let sigio = r#"
import ctypes, fcntl, os, socket, struct, sys, time
a, b = socket.socketpair()
pid = struct.pack("i", int(sys.argv[1]))
try:
    fcntl.ioctl(a.fileno(), 0x8901, pid)              # FIOSETOWN
    fcntl.fcntl(a.fileno(), fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
    b.send(b"x")
    time.sleep(0.2)
    print("SENT")
except OSError as e:
    print("REFUSED", e.errno)
"#;
    for abi in abis() {
        for (name, script) in [("kill", kill), ("sigio", sigio)] {
            let mut victim = Victim::new();
            let pid = victim.pid().to_string();
            let argv = |k: &CommandExecKernel, access| {
                let mut argv = python(script);
                argv.push(pid.clone());
                k.run_as(&argv, access, None)
            };
            let k = kernel(ws.path(), Some(abi), SandboxMode::BestEffort);
            let confined = argv(&k, Access::READ_ONLY);
            std::thread::sleep(std::time::Duration::from_millis(50));
            if holds(&k, "signals to the agent") {
                assert!(victim.alive(), "ABI {abi}, {name}: {confined:?}");
            }
            let mut control = Victim::new();
            let mut argv_off = python(script);
            argv_off.push(control.pid().to_string());
            let off = kernel(ws.path(), None, SandboxMode::Off).run(&argv_off);
            std::thread::sleep(std::time::Duration::from_millis(300));
            assert!(
                !control.alive(),
                "the {name} control must reach its victim: {off:?}"
            );
        }
    }
}

#[test]
fn truncating_what_a_tool_may_only_read_is_refused() {
    let ws = tempfile::tempdir().unwrap();
    let shared = tempfile::tempdir().unwrap();
    let file = shared.path().join("data.txt");
    let script = format!(
        r#"
import os
r = []
try:
    os.truncate("{f}", 0); r.append("truncate")
except OSError as e:
    pass
try:
    os.close(os.open("{f}", os.O_RDONLY | os.O_TRUNC)); r.append("open")
except OSError as e:
    pass
print("TRUNCATED" if r else "INTACT", r)
"#,
        f = file.display()
    );
    for abi in abis() {
        std::fs::write(&file, "precious\n").unwrap();
        let k = CommandExecKernel::new(KernelSettings {
            cwd: ws.path().to_path_buf(),
            landlock_abi_limit: Some(abi),
            sandbox_read: vec![shared.path().to_path_buf()],
            ..KernelSettings::default()
        })
        .unwrap();
        let confined = k.run_as(&python(&script), Access::READ_ONLY, None);
        if holds(&k, "truncating") {
            assert!(
                confined.output.contains("INTACT"),
                "ABI {abi}: {confined:?}"
            );
            assert_eq!(std::fs::read_to_string(&file).unwrap(), "precious\n");
        }
        let off = kernel(ws.path(), None, SandboxMode::Off).run(&python(&script));
        assert!(off.output.contains("TRUNCATED"), "{off:?}");
    }
}

#[test]
fn the_status_names_what_does_not_hold_at_each_abi() {
    let ws = tempfile::tempdir().unwrap();
    for abi in abis() {
        let k = kernel(ws.path(), Some(abi), SandboxMode::BestEffort);
        let status = k.sandbox_status();
        let line = status.to_string();
        if abi == 0 {
            assert!(line.contains("NOT enforced"), "{line}");
            continue;
        }
        assert!(line.contains(&format!("landlock ABI {abi}")), "{line}");
        let signals = status
            .promises()
            .into_iter()
            .find(|p| p.what.starts_with("signals"))
            .unwrap();
        assert_eq!(signals.holds, abi >= 6 || status.pid_namespace, "ABI {abi}");
        if !signals.holds {
            assert!(line.contains("not confined on this Linux"), "{line}");
            // `required` refuses: the agent's own safety is at stake.
            let required = kernel(ws.path(), Some(abi), SandboxMode::Required);
            let r = required.run(&["true".to_owned()]);
            assert_ne!(r.exit_code, 0, "ABI {abi}: {r:?}");
            assert!(
                r.output.contains("signals to the agent") || r.text().contains("signals"),
                "{r:?}"
            );
        }
    }
}

/// Ordinary programs keep working under the allowlist, at every ABI.
#[test]
fn plain_programs_run_confined_at_every_abi() {
    let ws = tempfile::tempdir().unwrap();
    init_repo(
        ws.path(),
        &[("a.txt", "one\ntwo\n"), ("data.json", r#"{"k": [1, 2]}"#)],
        "first",
    );
    std::fs::write(ws.path().join("a.txt"), "one\nthree\n").unwrap();
    let mut tar = Command::new("tar")
        .args(["-cf", "in.tar", "a.txt", "data.json"])
        .current_dir(ws.path())
        .spawn()
        .unwrap();
    assert!(tar.wait().unwrap().success());
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let read_only: Vec<(Vec<String>, &str)> = vec![
        (words(&["git", "status", "--short"]), "a.txt"),
        (words(&["git", "log", "--oneline"]), "first"),
        (words(&["git", "diff"]), "+three"),
        (
            python("import json, sys; print(json.load(open('data.json'))['k'])"),
            "[1, 2]",
        ),
        (
            python("import subprocess; print(subprocess.run(['true']).returncode, 'ok')"),
            "0 ok",
        ),
        (
            python(
                "import threading; t = threading.Thread(target=print, args=('thr',)); t.start(); t.join()",
            ),
            "thr",
        ),
        (
            words(&[
                "node",
                "-e",
                "console.log(require('fs').readdirSync('.').length > 0)",
            ]),
            "true",
        ),
        (
            words(&[
                "sh",
                "-c",
                "sort a.txt > \"$TMPDIR/s\" && cat \"$TMPDIR/s\"",
            ]),
            "three",
        ),
        (words(&["find", ".", "-name", "*.txt"]), "./a.txt"),
        (words(&["jq", ".k[1]", "data.json"]), "2"),
        (words(&["tar", "-tf", "in.tar"]), "data.json"),
    ];
    for abi in abis() {
        let k = kernel(ws.path(), Some(abi), SandboxMode::BestEffort);
        for (argv, expect) in &read_only {
            let installed = argv[0].starts_with('/')
                || ["/usr/local/bin", "/usr/bin", "/bin"]
                    .iter()
                    .any(|d| Path::new(d).join(&argv[0]).exists());
            if !installed {
                continue;
            }
            let r = k.run_as(argv, Access::READ_ONLY, None);
            assert_eq!(r.exit_code, 0, "ABI {abi}: {argv:?}: {r:?}");
            assert!(r.output.contains(expect), "ABI {abi}: {argv:?}: {r:?}");
        }
        let out = ws.path().join(format!("out{abi}"));
        std::fs::create_dir(&out).unwrap();
        let r = k.run_as(
            &words(&["tar", "-xf", "in.tar", "-C", &format!("out{abi}")]),
            WRITES,
            None,
        );
        assert_eq!(r.exit_code, 0, "ABI {abi}: {r:?}");
        assert!(out.join("data.json").exists(), "ABI {abi}");
    }
}

#[test]
fn list_names_what_does_not_hold_on_an_older_linux() {
    let dir = tempfile::tempdir().unwrap();
    let list = |args: &[&str]| {
        let out = Command::new(crate::common::bin::nanotool_bin())
            .arg("list")
            .args(args)
            .current_dir(dir.path())
            .env("NANOTOOL_LOG", "off")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    if abis().len() < 5 {
        return; // this Linux cannot play ABI 4
    }
    // By default a PID namespace confines signals where Landlock cannot (before ABI 6).
    let text = list(&["--landlock-abi", "4"]);
    if !text.contains("PID namespace: not available") {
        assert!(
            text.contains("sandbox: landlock ABI 4 + seccomp + PID namespace, enforced\n"),
            "{text}"
        );
    }
    // Without it, the line names what does not hold.
    let text = list(&["--landlock-abi", "4", "--pid-namespace=off"]);
    assert!(text.contains("sandbox: landlock ABI 4 + seccomp"), "{text}");
    assert!(
        text.contains("not confined on this Linux: signals to the agent"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&list(&[
        "--json",
        "--landlock-abi",
        "4",
        "--pid-namespace=off",
    ]))
    .unwrap();
    let grep = &json.as_array().unwrap()[0];
    let not_confined = grep["sandbox"]["not_confined"].as_array().unwrap();
    assert!(
        not_confined.iter().any(|p| p["what"]
            .as_str()
            .unwrap()
            .starts_with("signals to the agent")
            && p["agent_safety"] == true),
        "{grep}"
    );
    // At the running ABI, only what this Linux lacks is listed.
    let json: serde_json::Value = serde_json::from_str(&list(&["--json"])).unwrap();
    let status = json[0]["sandbox"]["status"].as_str().unwrap();
    assert!(status.starts_with("sandbox: landlock ABI"), "{status}");
}

#[test]
fn opt_is_readable_only_when_the_host_adds_it() {
    let ws = tempfile::tempdir().unwrap();
    let Ok(vendor) = tempfile::Builder::new()
        .prefix("nanotool-test-")
        .tempdir_in("/opt")
    else {
        return; // no writable /opt on this machine
    };
    let secret = vendor.path().join("licence.key");
    std::fs::write(&secret, "opt-canary-5150\n").unwrap();
    let cat = vec!["cat".to_owned(), secret.display().to_string()];
    let k = kernel(ws.path(), None, SandboxMode::BestEffort);
    let r = k.run_as(&cat, Access::READ_ONLY, None);
    if k.sandbox_status().enforced() {
        assert!(!r.output.contains("opt-canary"), "{r:?}");
        assert_ne!(r.exit_code, 0, "{r:?}");
    }
    let added = CommandExecKernel::new(KernelSettings {
        cwd: ws.path().to_path_buf(),
        sandbox_read: vec![vendor.path().to_path_buf()],
        ..KernelSettings::default()
    })
    .unwrap();
    let r = added.run_as(&cat, Access::READ_ONLY, None);
    assert!(r.output.contains("opt-canary-5150"), "{r:?}");
}

/// `cargo metadata` of a tiny crate, confined, with the toolchain added as a host would add it
/// (`--sandbox-read ~/.cargo --sandbox-read ~/.rustup`), at every ABI.
#[test]
fn cargo_metadata_runs_confined_with_the_toolchain_added() {
    let Some(home) = std::env::var_os("HOME").map(std::path::PathBuf::from) else {
        return;
    };
    let (cargo_home, rustup_home) = (home.join(".cargo"), home.join(".rustup"));
    let cargo = cargo_home.join("bin/cargo");
    if !cargo.exists() || !rustup_home.exists() {
        return; // no rustup toolchain under $HOME on this machine
    }
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(
        ws.path().join("Cargo.toml"),
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::create_dir(ws.path().join("src")).unwrap();
    std::fs::write(ws.path().join("src/lib.rs"), "").unwrap();
    let argv: Vec<String> = [
        cargo.to_str().unwrap(),
        "metadata",
        "--offline",
        "--no-deps",
        "--format-version",
        "1",
    ]
    .map(String::from)
    .to_vec();
    for abi in abis() {
        let k = CommandExecKernel::new(KernelSettings {
            cwd: ws.path().to_path_buf(),
            landlock_abi_limit: Some(abi),
            sandbox_read: vec![cargo_home.clone(), rustup_home.clone()],
            max_output: 1 << 16,
            ..KernelSettings::default()
        })
        .unwrap();
        let r = k.run_as(&argv, Access::READ_ONLY, None);
        assert_eq!(r.exit_code, 0, "ABI {abi}: {r:?}");
        assert!(r.output.contains("\"name\":\"tiny\""), "ABI {abi}: {r:?}");
    }
}

/// A build without seccomp rules for the machine's architecture still confines with
/// Landlock, and its status says exactly what is then not confined.
#[test]
fn without_filter_rules_landlock_still_confines_and_the_status_says_what_does_not_hold() {
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "canary-no-filter-77\n").unwrap();
    let build = |mode| {
        CommandExecKernel::new(KernelSettings {
            cwd: ws.path().to_path_buf(),
            sandbox: mode,
            without_filter_rules: true,
            ..KernelSettings::default()
        })
        .unwrap()
    };
    let k = build(SandboxMode::BestEffort);
    let status = k.sandbox_status();
    let line = status.to_string();
    if abis().len() < 2 {
        assert!(line.contains("NOT enforced"), "{line}");
        return; // no Landlock here: nothing confines without the filter
    }
    assert!(line.contains("without the seccomp filter"), "{line}");
    assert!(line.contains("not confined on this Linux: "), "{line}");
    assert!(line.contains("SysV IPC"), "{line}");
    assert!(!status.enforced());
    // Landlock still keeps the file outside out of reach.
    let r = k.run_as(
        &["cat".to_owned(), secret.display().to_string()],
        Access::READ_ONLY,
        None,
    );
    assert!(!r.output.contains("canary-no-filter"), "{r:?}");
    assert_ne!(r.exit_code, 0, "{r:?}");
    // What only the filter refuses is now allowed, as the status said.
    let r = k.run_as(
        &python("import ctypes; print('MADE' if ctypes.CDLL(None).shmget(0, 4096, 0o1600) >= 0 else 'NO')"),
        Access::READ_ONLY,
        None,
    );
    assert!(r.output.contains("MADE"), "{r:?}");
    assert!(
        !r.confined,
        "confined means Landlock and the filter both held: {r:?}"
    );
    remove_private_sysv_objects_600();
    // `required` refuses to run there.
    let r = build(SandboxMode::Required).run(&["true".to_owned()]);
    assert_ne!(r.exit_code, 0, "{r:?}");
    assert!(r.text().contains("seccomp"), "{r:?}");
}

/// Removes the 0600 private shared-memory segments the test above made.
fn remove_private_sysv_objects_600() {
    let table = std::fs::read_to_string("/proc/sysvipc/shm").unwrap_or_default();
    for line in table.lines().skip(1) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.first() == Some(&"0")
            && fields.get(2) == Some(&"600")
            && let Ok(id) = fields[1].parse::<i32>()
        {
            // SAFETY: removes a segment of key 0; a null buffer is allowed for IPC_RMID.
            unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
        }
    }
}
