//! The sandbox, tried as an attacker would: each test makes a command try one escape and
//! checks that it failed and left no trace, beside a control that runs the same thing with the
//! sandbox off (or unconfined) and sees it succeed, so the test proves the sandbox did the
//! work and not something else.
//!
//! On a machine without Landlock these tests assert the documented best-effort report instead
//! (`confined_here`): never a silent pass.

use crate::common::bin::nanotool_bin;
use crate::common::git::{FILE_OK, commit, git, init_repo};
use crate::common::{OPEN_SESSION, PYTHON, WRITES, argv, env, python, script, settings, sh};
use nanotool_runtime::{
    Access, CommandExecKernel, ExecResult, KernelError, KernelSettings, SandboxMode,
};
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const RO: Access = Access::READ_ONLY;
const NETWORK: Access = Access {
    writes: false,
    network: true,
    ..Access::READ_ONLY
};

/// A kernel in `ws` at the Landlock ABI this run plays, with the variables `vars`. (The
/// system python, [`PYTHON`], is readable by confined commands; a python under `$HOME` needs
/// `--sandbox-read`, see `a_binary_under_home_is_named_with_the_flag_that_fixes_it`.)
fn kernel_with(ws: &Path, mode: SandboxMode, vars: &[(&str, &str)]) -> CommandExecKernel {
    CommandExecKernel::new(KernelSettings {
        landlock_abi_limit: played_abi(),
        env: env(vars),
        ..settings(ws, mode)
    })
    .unwrap()
}

/// The Landlock ABI this run plays (`NANOTOOL_TEST_LANDLOCK_ABI`, set by
/// `the_escape_suite_holds_at_every_landlock_abi` when it runs this suite again at each ABI).
fn played_abi() -> Option<u32> {
    std::env::var("NANOTOOL_TEST_LANDLOCK_ABI")
        .ok()
        .and_then(|v| v.parse().ok())
}

fn confined(ws: &Path) -> CommandExecKernel {
    kernel_with(ws, SandboxMode::BestEffort, &[])
}

fn unconfined(ws: &Path) -> CommandExecKernel {
    kernel_with(ws, SandboxMode::Off, &[])
}

/// Whether this machine confines commands; when it does not, checks that the kernel says so
/// (the documented best-effort report) and that `r` is marked unconfined.
fn confined_here(k: &CommandExecKernel, r: &ExecResult) -> bool {
    let status = k.sandbox_status();
    if status.enforced() {
        assert!(
            r.confined,
            "the sandbox is enforced but the call ran unconfined: {r:?}"
        );
        true
    } else {
        let line = status.to_string();
        assert!(line.contains("NOT enforced"), "{line}");
        assert!(!r.confined);
        false
    }
}

/// A directory outside every workspace of the test, with a secret in it.
fn outside() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "canary-outside-4242\n").unwrap();
    (dir, secret)
}

#[test]
fn reading_a_file_outside_the_workspace_is_refused() {
    let ws = tempfile::tempdir().unwrap();
    let (_out, secret) = outside();
    let cat = argv(&["cat", secret.to_str().unwrap()]);
    let k = confined(ws.path());
    let r = k.run(&cat);
    if confined_here(&k, &r) {
        assert_ne!(r.exit_code, 0, "{r:?}");
        assert!(!r.output.contains("canary-outside"), "{}", r.output);
        assert!(r.output.contains("Permission denied"), "{}", r.output);
    }
    // Control: the same command, unconfined, reads it.
    let r = unconfined(ws.path()).run(&cat);
    assert!(r.output.contains("canary-outside"), "{}", r.output);
}

#[test]
fn home_is_unreadable() {
    let ws = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".ssh")).unwrap();
    std::fs::write(
        home.path().join(".ssh/id_ed25519"),
        "canary-private-key-777\n",
    )
    .unwrap();
    let home_s = home.path().to_str().unwrap();
    let read = sh("cat \"$HOME/.ssh/id_ed25519\"; ls \"$HOME\"");
    let k = kernel_with(ws.path(), SandboxMode::BestEffort, &[("HOME", home_s)]);
    let r = k.run(&read);
    if confined_here(&k, &r) {
        assert!(!r.output.contains("canary-private-key"), "{}", r.output);
        assert!(!r.output.contains(".ssh\n"), "{}", r.output);
    }
    let k = kernel_with(ws.path(), SandboxMode::Off, &[("HOME", home_s)]);
    assert!(k.run(&read).output.contains("canary-private-key"));
}

#[test]
fn a_workspace_symlink_pointing_outside_reads_nothing() {
    let ws = tempfile::tempdir().unwrap();
    let (_out, secret) = outside();
    std::os::unix::fs::symlink(&secret, ws.path().join("link")).unwrap();
    std::os::unix::fs::symlink(secret.parent().unwrap(), ws.path().join("dirlink")).unwrap();
    let cat = sh("cat link; cat dirlink/secret.txt");
    let k = confined(ws.path());
    let r = k.run(&cat);
    if confined_here(&k, &r) {
        assert!(!r.output.contains("canary-outside"), "{}", r.output);
    }
    assert!(
        unconfined(ws.path())
            .run(&cat)
            .output
            .contains("canary-outside")
    );
}

#[test]
fn writing_outside_the_workspace_is_refused_even_for_a_writes_tool() {
    let ws = tempfile::tempdir().unwrap();
    let (out, _secret) = outside();
    let target = out.path().join("planted");
    let write = sh(&format!("echo x > {}", target.display()));
    let k = confined(ws.path());
    let r = k.run_as(&write, WRITES, None);
    if confined_here(&k, &r) {
        assert_ne!(r.exit_code, 0, "{r:?}");
        assert!(!target.exists(), "a confined command wrote outside");
    }
    unconfined(ws.path()).run(&write);
    assert!(
        target.exists(),
        "control: the unconfined write did not happen"
    );
}

#[test]
fn a_read_only_tool_cannot_write_create_delete_or_chmod_in_the_workspace() {
    let ws = tempfile::tempdir().unwrap();
    let keep = ws.path().join("keep.txt");
    std::fs::write(&keep, "kept\n").unwrap();
    std::fs::set_permissions(&keep, std::fs::Permissions::from_mode(0o644)).unwrap();
    let attempt = sh(
        "echo x > made.txt; mkdir made.d; echo y >> keep.txt; rm -f keep.txt; chmod 777 keep.txt; ln -s keep.txt made.link; true",
    );
    let k = confined(ws.path());
    let r = k.run(&attempt);
    if confined_here(&k, &r) {
        for made in ["made.txt", "made.d", "made.link"] {
            assert!(
                std::fs::symlink_metadata(ws.path().join(made)).is_err(),
                "{made} was created: {}",
                r.output
            );
        }
        assert_eq!(std::fs::read_to_string(&keep).unwrap(), "kept\n");
        let mode = std::fs::metadata(&keep).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "chmod went through");
    }
    // Control: unconfined, every one of them happens.
    unconfined(ws.path()).run(&attempt);
    assert!(ws.path().join("made.txt").exists() && ws.path().join("made.d").is_dir());
    assert!(!keep.exists(), "control: rm did not happen");
}

#[test]
fn a_writes_tool_writes_creates_and_deletes_inside_the_workspace() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("old.txt"), "old\n").unwrap();
    let k = confined(ws.path());
    let r = k.run_as(
        &sh("echo new > new.txt && mkdir -p d/e && mv new.txt d/e/ && rm old.txt && cat d/e/new.txt"),
        WRITES,
        None,
    );
    confined_here(&k, &r);
    assert_eq!((r.exit_code, r.output.as_str()), (0, "new\n"), "{r:?}");
    assert!(!ws.path().join("old.txt").exists());
}

#[test]
fn metadata_outside_what_landlock_governs_stays_put() {
    // Landlock has no right for modes, extended attributes (ACLs are `system.posix_acl_*`)
    // or timestamps: the filter keeps them. A read-only tool changes none of them; a
    // `writes` tool sets ordinary modes but never setuid or world-writable ones, and
    // no extended attribute (setgid stays allowed: `chmod` keeps a directory's setgid bit).
    let ws = tempfile::tempdir().unwrap();
    let file = ws.path().join("f.txt");
    let reset = || {
        std::fs::write(&file, "f\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    };
    let mode = || std::fs::metadata(&file).unwrap().permissions().mode() & 0o7777;
    let xattr = python(
        "import os\ntry:\n    os.setxattr('f.txt', 'user.k', b'v')\n    print('xattr set')\nexcept OSError as e:\n    print('xattr refused', e.errno)",
    );
    let touch = argv(&["touch", "-d", "2001-01-01", "f.txt"]);
    let k = confined(ws.path());
    for (access, name) in [(RO, "read-only"), (WRITES, "writes")] {
        reset();
        let r = k.run_as(&xattr, access, None);
        if confined_here(&k, &r) {
            assert!(r.output.starts_with("xattr refused"), "{name}: {r:?}");
        }
    }
    reset();
    let before = std::fs::metadata(&file).unwrap().modified().unwrap();
    let r = k.run_as(&touch, RO, None);
    if confined_here(&k, &r) {
        assert_ne!(r.exit_code, 0, "{r:?}");
        assert_eq!(
            std::fs::metadata(&file).unwrap().modified().unwrap(),
            before
        );
    }
    for bits in ["u+s", "o+w", "4755", "0666"] {
        reset();
        let r = k.run_as(&argv(&["chmod", bits, "f.txt"]), WRITES, None);
        if confined_here(&k, &r) {
            assert_ne!(r.exit_code, 0, "chmod {bits}: {r:?}");
            assert_eq!(mode(), 0o644, "chmod {bits} went through");
        }
    }
    // What a writes tool legitimately does still works.
    reset();
    let r = k.run_as(
        &sh("chmod +x f.txt && chmod 600 f.txt && chmod 750 f.txt"),
        WRITES,
        None,
    );
    assert_eq!(r.exit_code, 0, "{r:?}");
    assert_eq!(mode(), 0o750);
    let r = k.run_as(&touch, WRITES, None);
    assert_eq!(r.exit_code, 0, "{r:?}");
    // Control: unconfined, all of it goes through.
    let u = unconfined(ws.path());
    reset();
    // (A file system without user extended attributes refuses them to everyone; then the
    // control shows that instead, and the confined answer above proves nothing more.)
    let control = u.run(&xattr).output;
    assert!(
        control == "xattr set\n" || control == format!("xattr refused {}\n", libc::EOPNOTSUPP),
        "{control}"
    );
    assert_eq!(u.run(&argv(&["chmod", "u+s,o+w", "f.txt"])).exit_code, 0);
    assert_eq!(mode(), 0o4646);
}

#[test]
fn the_private_tmpdir_is_writable_and_removed_with_the_kernel() {
    let ws = tempfile::tempdir().unwrap();
    let k = confined(ws.path());
    let tmp = k.sandbox_tmpdir().unwrap().to_path_buf();
    let r = k.run(&sh(
        "echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\" && echo \"$TMPDIR\"",
    ));
    confined_here(&k, &r);
    let printed = r.output.strip_prefix("t\n").unwrap_or_default().trim_end();
    assert!(
        std::path::Path::new(printed).starts_with(&tmp) && printed != tmp.to_str().unwrap(),
        "the command's TMPDIR {printed} is not its profile's folder inside {}",
        tmp.display()
    );
    // The host's /tmp is not the command's.
    let r = k.run(&sh("ls /tmp"));
    if confined_here(&k, &r) {
        assert_ne!(r.exit_code, 0, "{r:?}");
    }
    drop(k);
    assert!(!tmp.exists(), "the private temp dir outlived its kernel");
}

fn tcp_listener() -> (std::net::TcpListener, u16) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.set_nonblocking(true).unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

/// Whether a connection reached `l` within a moment (the command has already returned).
fn accepted(l: &std::net::TcpListener) -> bool {
    let until = Instant::now() + Duration::from_millis(300);
    loop {
        if l.accept().is_ok() {
            return true;
        }
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn tcp_connect_and_bind_are_refused_without_network() {
    let ws = tempfile::tempdir().unwrap();
    let (l, port) = tcp_listener();
    let connect = argv(&[
        "bash",
        "-c",
        &format!("echo hi > /dev/tcp/127.0.0.1/{port}"),
    ]);
    let bind = python(
        "import socket\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen()\nprint('bound', s.getsockname()[1])",
    );
    // TCP Fast Open connects from `sendto`, which Landlock's connect rule does not see.
    let fast_open = python(&format!(
        "import socket\ns = socket.socket()\ns.sendto(b'hi', socket.MSG_FASTOPEN, ('127.0.0.1', {port}))\nprint('sent')"
    ));
    let k = confined(ws.path());
    let r = k.run(&connect);
    if confined_here(&k, &r) {
        assert_ne!(r.exit_code, 0, "{r:?}");
        assert!(!accepted(&l), "a confined command connected");
        let r = k.run(&bind);
        assert!(!r.output.contains("bound"), "{}", r.output);
        let r = k.run(&fast_open);
        assert!(!r.output.contains("sent"), "{r:?}");
        assert!(
            !accepted(&l),
            "a confined command connected by TCP Fast Open"
        );
    }
    // Control.
    let u = unconfined(ws.path());
    assert_eq!(u.run(&connect).exit_code, 0);
    assert!(accepted(&l), "control: no connection");
    assert!(u.run(&bind).output.contains("bound"));
    // Fast Open from a client only where the machine enables it (bit 1 of tcp_fastopen).
    let client_tfo = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_fastopen")
        .ok()
        .and_then(|v| v.trim().parse::<u32>().ok())
        .is_some_and(|v| v & 1 != 0);
    if client_tfo {
        assert!(u.run(&fast_open).output.contains("sent"), "control");
        assert!(accepted(&l), "control: no Fast Open connection");
    }
}

#[test]
fn udp_is_refused_without_network_and_both_work_for_a_network_tool() {
    let ws = tempfile::tempdir().unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let uport = udp.local_addr().unwrap().port();
    let send = argv(&[
        "bash",
        "-c",
        &format!("echo datagram > /dev/udp/127.0.0.1/{uport}"),
    ]);
    let (l, tport) = tcp_listener();
    let connect = argv(&[
        "bash",
        "-c",
        &format!("echo hi > /dev/tcp/127.0.0.1/{tport}"),
    ]);
    let mut buf = [0u8; 64];
    let k = confined(ws.path());
    let r = k.run(&send);
    if confined_here(&k, &r) {
        assert_ne!(r.exit_code, 0, "{r:?}");
        assert!(udp.recv(&mut buf).is_err(), "a confined command sent UDP");
    }
    // A tool that declares `network`: TCP and UDP over IP work.
    let r = k.run_as(&send, NETWORK, None);
    assert_eq!(r.exit_code, 0, "{r:?}");
    let n = udp.recv(&mut buf).expect("the network tool's datagram");
    assert_eq!(&buf[..n], b"datagram\n");
    let r = k.run_as(&connect, NETWORK, None);
    assert_eq!(r.exit_code, 0, "{r:?}");
    assert!(accepted(&l), "the network tool did not connect");
}

#[test]
fn unix_sockets_by_path_are_refused_even_with_network() {
    let ws = tempfile::tempdir().unwrap();
    let listener = std::os::unix::net::UnixListener::bind(ws.path().join("agent.sock")).unwrap();
    listener.set_nonblocking(true).unwrap();
    let connect = python(
        "import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect('agent.sock')\nprint('connected')",
    );
    let k = confined(ws.path());
    for access in [RO, NETWORK, WRITES] {
        let r = k.run_as(&connect, access, None);
        if confined_here(&k, &r) {
            assert!(!r.output.contains("connected"), "{access:?}: {}", r.output);
            assert!(listener.accept().is_err(), "{access:?}: connected");
        }
    }
    let r = unconfined(ws.path()).run(&connect);
    assert!(r.output.contains("connected"), "control: {}", r.output);
}

#[test]
fn abstract_unix_sockets_are_refused() {
    use std::os::linux::net::SocketAddrExt;
    let ws = tempfile::tempdir().unwrap();
    let name = format!("nanotool-test-{}", std::process::id());
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let listener = std::os::unix::net::UnixListener::bind_addr(&addr).unwrap();
    listener.set_nonblocking(true).unwrap();
    let connect = python(&format!(
        "import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect('\\0{name}')\nprint('connected')"
    ));
    let k = confined(ws.path());
    let r = k.run_as(&connect, NETWORK, None);
    if confined_here(&k, &r) {
        assert!(!r.output.contains("connected"), "{}", r.output);
    }
    let r = unconfined(ws.path()).run(&connect);
    assert!(r.output.contains("connected"), "control: {}", r.output);
}

#[test]
fn signals_ptrace_and_memory_reads_towards_the_agent_are_refused() {
    let ws = tempfile::tempdir().unwrap();
    let me = std::process::id();
    // A canary in this process's memory, at an address the command is told.
    static CANARY: [u8; 16] = *b"canary-memory-99";
    let addr = CANARY.as_ptr() as usize;
    let read_memory = python(&format!(
        "import ctypes\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         class Iov(ctypes.Structure):\n    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]\n\
         buf = ctypes.create_string_buffer(16)\n\
         local = Iov(ctypes.cast(buf, ctypes.c_void_p), 16)\n\
         remote = Iov({addr}, 16)\n\
         n = libc.process_vm_readv({me}, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)\n\
         print('read', n, buf.raw)"
    ));
    let signal = sh(&format!("kill -0 {me} && echo reachable"));
    let k = confined(ws.path());
    let r = k.run(&signal);
    if confined_here(&k, &r) {
        assert!(!r.output.contains("reachable"), "{}", r.output);
        let r = k.run(&read_memory);
        assert!(!r.output.contains("canary-memory"), "{}", r.output);
        // Nor a thread of the agent, nor attaching to it.
        // SAFETY: gettid cannot fail.
        let tid = unsafe { libc::gettid() };
        let tgkill = libc::SYS_tgkill;
        let ptrace_attach = python(&format!(
            "import ctypes\n\
             libc = ctypes.CDLL(None, use_errno=True)\n\
             print('tgkill', libc.syscall({tgkill}, {me}, {tid}, 0), ctypes.get_errno())\n\
             print('seize', libc.ptrace(0x4206, {me}, 0, 0), ctypes.get_errno())"
        ));
        let r = k.run(&ptrace_attach);
        // Refused by the filter and Landlock, or (in a PID namespace of its own, on a kernel
        // without Landlock's signal scope) unknown to the command.
        let errno = match k.spawn_status().pid_namespace {
            nanotool_runtime::kernel::PidNamespace::Private
            | nanotool_runtime::kernel::PidNamespace::ThroughUserNamespace => libc::ESRCH,
            _ => libc::EPERM,
        };
        assert!(
            r.output.contains(&format!("tgkill -1 {errno}")),
            "{}",
            r.output
        );
        assert!(
            r.output.contains(&format!("seize -1 {errno}")),
            "{}",
            r.output
        );
    }
    // Control: unconfined, the same calls reach this process.
    let u = unconfined(ws.path());
    assert!(u.run(&signal).output.contains("reachable"));
    let r = u.run(&read_memory);
    assert!(r.output.contains("canary-memory"), "control: {}", r.output);
}

#[test]
fn new_namespaces_and_siblings_are_refused_by_clone_and_unshare() {
    let ws = tempfile::tempdir().unwrap();
    // clone(CLONE_NEWUSER | SIGCHLD): a new user namespace holds a fresh set of capabilities.
    let clone_ns = python(&format!(
        "import ctypes, os\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         pid = libc.syscall({clone}, {flags}, 0, 0, 0, 0)\n\
         if pid == 0:\n    os._exit(0)\n\
         if pid > 0:\n    os.waitpid(pid, 0)\n\
         print('clone', 'made' if pid > 0 else 'refused', ctypes.get_errno())",
        clone = libc::SYS_clone,
        flags = libc::CLONE_NEWUSER | libc::SIGCHLD,
    ));
    let unshare = python(&format!(
        "import ctypes\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         print('unshare', libc.unshare({flags}), ctypes.get_errno())",
        flags = libc::CLONE_NEWUSER
    ));
    let k = confined(ws.path());
    let r = k.run(&clone_ns);
    confined_here(&k, &r);
    // The seccomp filter refuses it whether or not Landlock is there.
    assert_eq!(
        r.output,
        format!("clone refused {}\n", libc::EPERM),
        "{r:?}"
    );
    let r = k.run(&unshare);
    assert_eq!(r.output, format!("unshare -1 {}\n", libc::EPERM), "{r:?}");
    // clone(CLONE_PARENT): a child of the agent's, which the agent would never reap.
    let clone_parent = python(&format!(
        "import ctypes, os, time\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         pid = libc.syscall({clone}, {flags}, 0, 0, 0, 0)\n\
         if pid == 0:\n    os._exit(0)\n\
         print('clone', 'made' if pid > 0 else 'refused', ctypes.get_errno())",
        clone = libc::SYS_clone,
        flags = libc::CLONE_PARENT,
    ));
    let r = k.run(&clone_parent);
    assert_eq!(
        r.output,
        format!("clone refused {}\n", libc::EPERM),
        "{r:?}"
    );
    // Control: unconfined, the namespace is made.
    let u = unconfined(ws.path());
    let r = u.run(&clone_ns);
    assert!(r.output.starts_with("clone made"), "control: {r:?}");
    assert_eq!(u.run(&unshare).output, "unshare 0 0\n", "control");
    let r = u.run(&clone_parent);
    assert!(r.output.starts_with("clone made"), "control: {r:?}");
}

#[test]
fn confined_calls_from_many_threads_each_get_their_own_output() {
    let ws = tempfile::tempdir().unwrap();
    let k = std::sync::Arc::new(confined(ws.path()));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let k = std::sync::Arc::clone(&k);
            std::thread::spawn(move || {
                for i in 0..25 {
                    let word = format!("thread-{t}-call-{i}");
                    let access = if i % 2 == 0 { RO } else { WRITES };
                    let r = k.run_as(&argv(&["echo", &word]), access, None);
                    assert_eq!(r.exit_code, 0, "{r:?}");
                    assert_eq!(r.output, format!("{word}\n"), "{r:?}");
                    assert_eq!(r.confined, k.sandbox_status().enforced());
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn the_agents_environ_and_memory_are_unreadable_through_proc() {
    let ws = tempfile::tempdir().unwrap();
    let me = std::process::id();
    let peek = sh(&format!(
        "cat /proc/{me}/environ; head -c 64 /proc/{me}/mem; ls /proc/{me}/task; true"
    ));
    let k = confined(ws.path());
    let r = k.run(&peek);
    if confined_here(&k, &r) {
        // Every process's environ holds `PATH=`: none of it came through.
        assert!(!r.output.contains("PATH="), "{}", r.output);
        assert!(r.output.contains("Permission denied"), "{}", r.output);
    }
    assert!(unconfined(ws.path()).run(&peek).output.contains("PATH="));
}

#[test]
fn no_host_fd_reaches_a_command() {
    let ws = tempfile::tempdir().unwrap();
    let (_out, secret) = outside();
    let path = std::ffi::CString::new(secret.to_str().unwrap()).unwrap();
    // SAFETY: open(2) without O_CLOEXEC, as a careless host (or a C library) does.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY) };
    assert!(fd > 2);
    // bash, not sh: the fd may be past 9 (the tests beside this one hold fds of their own),
    // and dash reads `<&10` as a syntax error, which would pass the confined check for nothing.
    let read = argv(&["bash", "-c", &format!("cat <&{fd}")]);
    let k = confined(ws.path());
    let r = k.run(&read);
    let enforced = confined_here(&k, &r);
    // Whether or not Landlock is there, the command's fd table holds none of the host's.
    assert!(!r.output.contains("canary-outside"), "{}", r.output);
    let _ = enforced;
    let control = unconfined(ws.path()).run(&read);
    // SAFETY: our own fd.
    unsafe { libc::close(fd) };
    assert!(
        control.output.contains("canary-outside"),
        "control: {}",
        control.output
    );
}

/// Scripts that try to outlive the call, each writing a marker a second later. Each leaves
/// a `ready_*` file once it is out of the call's group (or was refused), and the call waits
/// for it (2 s at most), so the control's escapes never lose a race with the group kill.
fn escapes(ws: &Path) -> Vec<(&'static str, Vec<String>)> {
    let py = |name: &str, body: &str| {
        let script = format!(
            "import os, time\ntry:\n{body}\nexcept OSError as e:\n    print('refused', e)\n\
             open('ready_{name}', 'w').close()\ntime.sleep(1)\nopen('marker_{name}', 'w').write('x')\n"
        );
        std::fs::write(ws.join(format!("{name}.py")), script).unwrap();
    };
    py("setsid_py", "    os.setsid()");
    py("setpgid_py", "    os.setpgid(0, 0)");
    py(
        "daemon_py",
        "    if os.fork():\n        for _ in range(100):\n            if os.path.exists('ready_daemon_py'): break\n            time.sleep(0.02)\n        os._exit(0)\n    os.setsid()\n    if os.fork(): os._exit(0)",
    );
    let wait = |name: &str| {
        format!(
            "i=0; while [ ! -e ready_{name} ] && [ $i -lt 100 ]; do sleep 0.02; i=$((i+1)); done"
        )
    };
    vec![
        (
            "marker_setsid",
            sh(&format!(
                "setsid sh -c 'touch ready_setsid; sleep 1; echo x > marker_setsid' > /dev/null 2>&1 & {}",
                wait("setsid")
            )),
        ),
        (
            "marker_setsid_py",
            sh(&format!(
                "{PYTHON} setsid_py.py > /dev/null 2>&1 & {}",
                wait("setsid_py")
            )),
        ),
        (
            "marker_setpgid_py",
            sh(&format!(
                "{PYTHON} setpgid_py.py > /dev/null 2>&1 & {}",
                wait("setpgid_py")
            )),
        ),
        ("marker_daemon_py", argv(&[PYTHON, "daemon_py.py"])),
    ]
}

fn wait_for_markers(ws: &Path, markers: &[&str]) -> Vec<String> {
    std::thread::sleep(Duration::from_millis(1800));
    markers
        .iter()
        .filter(|m| ws.join(m).exists())
        .map(|m| m.to_string())
        .collect()
}

#[test]
fn no_process_outlives_its_call() {
    let ws = tempfile::tempdir().unwrap();
    let k = confined(ws.path());
    let cases = escapes(ws.path());
    let mut enforced = true;
    for (_, script) in &cases {
        let r = k.run_as(script, WRITES, None);
        enforced &= confined_here(&k, &r);
    }
    let markers: Vec<&str> = cases.iter().map(|(m, _)| *m).collect();
    let left = wait_for_markers(ws.path(), &markers);
    // The seccomp filter holds with or without Landlock.
    let _ = enforced;
    assert_eq!(left, Vec::<String>::new(), "processes outlived their call");

    // Control: unconfined and without a cgroup per call (whose `cgroup.kill` ends them too,
    // `cgroup::a_process_that_left_the_group_dies_with_its_call`), each of them survives the
    // group kill.
    for entry in std::fs::read_dir(ws.path()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("ready_")
        {
            std::fs::remove_file(path).unwrap();
        }
    }
    let u = CommandExecKernel::new(KernelSettings {
        cgroup: nanotool_runtime::kernel::CgroupMode::Off,
        ..settings(ws.path(), SandboxMode::Off)
    })
    .unwrap();
    for (_, script) in &cases {
        u.run(script);
    }
    let left = wait_for_markers(ws.path(), &markers);
    assert_eq!(left.len(), markers.len(), "control: only {left:?} escaped");
}

#[test]
fn no_process_outlives_a_timeout_or_a_cancel() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(
        ws.path().join("escape.py"),
        "import os, time\nif os.fork() == 0:\n    try:\n        os.setsid()\n    except OSError:\n        pass\n    time.sleep(1)\n    open('marker_timeout', 'w').write('x')\n    os._exit(0)\ntime.sleep(100)\n",
    )
    .unwrap();
    let k = CommandExecKernel::new(KernelSettings {
        cwd: ws.path().to_path_buf(),
        timeout: Duration::from_millis(500),
        ..KernelSettings::default()
    })
    .unwrap();
    let r = k.run_as(&argv(&[PYTHON, "escape.py"]), WRITES, None);
    assert!(r.timed_out, "{r:?}");
    std::thread::sleep(Duration::from_millis(1500));
    if k.sandbox_status().enforced() || r.confined {
        assert!(!ws.path().join("marker_timeout").exists());
    }
    let handle = nanotool_runtime::CancelHandle::new();
    let canceller = {
        let handle = handle.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            handle.cancel();
        })
    };
    let k = confined(ws.path());
    let r = k.run_as(&argv(&[PYTHON, "escape.py"]), WRITES, Some(&handle));
    canceller.join().unwrap();
    assert!(r.cancelled, "{r:?}");
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!ws.path().join("marker_timeout").exists());
}

/// A payload that leaves a marker outside the workspace when it runs.
fn payload(ws: &Path, name: &str, marker: &Path) -> PathBuf {
    script(
        &ws.join(name),
        &format!("#!/bin/sh\necho pwned > {}\n", marker.display()),
    )
}

fn bundled_toolbox(ws: &Path, env: &[(&str, &str)]) -> nanotool_runtime::Toolbox {
    let mut toolbox = nanotool_runtime::Toolbox::new(kernel_with(ws, SandboxMode::BestEffort, env));
    let errors =
        toolbox.load_descriptors(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/tools"));
    assert!(errors.is_empty(), "{errors:?}");
    toolbox
}

#[test]
fn a_planted_git_config_program_leaves_no_trace_through_the_bundled_git_log() {
    let ws = tempfile::tempdir().unwrap();
    let (out, _secret) = outside();
    let marker = out.path().join("git-pwned");
    init_repo(ws.path(), &[("a.txt", "a\n")], "a");
    let evil = payload(ws.path(), "evil.sh", &marker);
    // Programs the repository's own config makes git run on a plain `git log`.
    let mut config = std::fs::read_to_string(ws.path().join(".git/config")).unwrap();
    config.push_str(&format!(
        "[core]\n\tfsmonitor = {e}\n\tpager = {e}\n[log]\n\tshowSignature = true\n[gpg]\n\tprogram = {e}\n[diff]\n\texternal = {e}\n",
        e = evil.display()
    ));
    std::fs::write(ws.path().join(".git/config"), config).unwrap();
    // A signed-looking commit, so that log.showSignature asks gpg.program to verify it.
    let tree = std::process::Command::new("git")
        .args(["rev-parse", "HEAD^{tree}"])
        .current_dir(ws.path())
        .output()
        .unwrap();
    let tree = String::from_utf8(tree.stdout).unwrap();
    let commit = format!(
        "tree {}\nauthor t <t@t> 0 +0000\ncommitter t <t@t> 0 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n\nsigned\n",
        tree.trim()
    );
    let mut hash = std::process::Command::new("git")
        .args(["hash-object", "-t", "commit", "-w", "--stdin"])
        .current_dir(ws.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    hash.stdin
        .take()
        .unwrap()
        .write_all(commit.as_bytes())
        .unwrap();
    let id = String::from_utf8(hash.wait_with_output().unwrap().stdout).unwrap();
    git(ws.path(), &["update-ref", "HEAD", id.trim()]);

    let toolbox = bundled_toolbox(ws.path(), &[]);
    let output = toolbox
        .call("git_log", &serde_json::json!({}), None)
        .expect("git_log is bundled");
    let confined_run = output.exec.as_ref().is_some_and(|e| e.confined);
    if toolbox.kernel().sandbox_status().enforced() {
        assert!(confined_run, "{output:?}");
    }
    assert!(!marker.exists(), "the planted program ran: {}", output.text);
    // Control: the payload itself works when nothing confines it.
    unconfined(ws.path()).run(&argv(&[evil.to_str().unwrap()]));
    assert!(marker.exists(), "control: the payload did not run");
}

#[test]
fn a_planted_python_module_leaves_no_trace_through_the_bundled_json_pretty() {
    let ws = tempfile::tempdir().unwrap();
    let (out, _secret) = outside();
    let marker = out.path().join("py-pwned");
    std::fs::write(ws.path().join("data.json"), "{\"a\": 1}\n").unwrap();
    // `python3 -m json.tool` imports `json`: a workspace that plants its own...
    std::fs::write(
        ws.path().join("json.py"),
        format!(
            "open('{}', 'w').write('pwned')\nimport sys\nsys.exit(0)\n",
            marker.display()
        ),
    )
    .unwrap();
    // The system python (a python under $HOME would need --sandbox-read).
    let toolbox = bundled_toolbox(ws.path(), &[("PATH", "/usr/bin:/bin")]);
    let output = toolbox
        .call(
            "json_pretty",
            &serde_json::json!({"file": "data.json"}),
            None,
        )
        .expect("json_pretty is bundled");
    if toolbox.kernel().sandbox_status().enforced() {
        assert!(
            output.exec.as_ref().is_some_and(|e| e.confined),
            "{output:?}"
        );
    }
    assert!(!marker.exists(), "the planted module ran: {}", output.text);
    // Control: the module writes its marker when run unconfined.
    unconfined(ws.path()).run(&argv(&[PYTHON, "json.py"]));
    assert!(marker.exists(), "control: the payload did not run");
}

#[test]
fn a_confined_command_starts_with_no_signal_blocked_or_ignored() {
    let ws = tempfile::tempdir().unwrap();
    let k = confined(ws.path());
    let r = k.run(&python(
        "import signal\nprint('blocked', sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])))\nprint('term', signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)",
    ));
    confined_here(&k, &r);
    assert_eq!(r.output, "blocked []\nterm True\n", "{r:?}");
}

#[test]
fn plain_tools_keep_working_confined() {
    let ws = tempfile::tempdir().unwrap();
    let w = ws.path();
    // Big enough that `sort -S 64K` spills to temporary files in TMPDIR.
    let big: String = (0..200_000).rev().map(|i| format!("{i:08}\n")).collect();
    init_repo(
        w,
        &[
            ("a.txt", "one\ntwo\n"),
            ("b.txt", "one\nthree\n"),
            ("x.json", "{\"b\": [1, 2], \"a\": \"z\"}\n"),
            (
                "scripts/report.py",
                "import sys\nprint('report', sys.argv[1])\n",
            ),
            ("big.txt", &big),
        ],
        "first",
    );
    std::fs::write(w.join("a.txt"), "one\ntwo\nfour\n").unwrap();
    let k = confined(w);
    let cases: Vec<(Vec<String>, &str)> = vec![
        (argv(&["git", "log", "--format=%s"]), "first\n"),
        (argv(&["git", "status", "--short"]), " M a.txt\n"),
        (
            argv(&["git", "show", "--format=%s", "--stat", "HEAD"]),
            "first\n",
        ),
        (argv(&["git", "diff", "--stat"]), " a.txt | 1 +\n"),
        (
            argv(&[PYTHON, "scripts/report.py", "2026-11"]),
            "report 2026-11\n",
        ),
        (
            argv(&[PYTHON, "-m", "json.tool", "x.json"]),
            "{\n    \"b\": [\n",
        ),
        (argv(&["jq", "-c", ".b", "x.json"]), "[1,2]\n"),
        (
            argv(&["sort", "-S", "64K", "big.txt"]),
            "00000000\n00000001\n",
        ),
        (argv(&["diff", "a.txt", "b.txt"]), "2,3c2\n"),
        (argv(&["wc", "-l", "a.txt"]), "3 a.txt\n"),
        (argv(&["ls", "-la"]), "a.txt"),
        (argv(&["stat", "-c", "%n %s", "b.txt"]), "b.txt 10\n"),
        (argv(&["date", "+%Y"]), "20"),
        (
            argv(&["find", ".", "-name", "*.py"]),
            "./scripts/report.py\n",
        ),
        (argv(&["grep", "-rn", "three", "."]), "./b.txt:2:three\n"),
    ];
    for (argv, expected) in cases {
        let r = k.run(&argv);
        confined_here(&k, &r);
        assert!(
            r.exit_code == 0 || (argv[0] == "diff" && r.exit_code == 1),
            "{argv:?}: {}",
            r.text()
        );
        assert!(r.output.contains(expected), "{argv:?}: {}", r.text());
        assert!(!r.output.contains("warning"), "{argv:?}: {}", r.text());
    }
}

#[test]
fn a_binary_under_home_is_named_with_the_flag_that_fixes_it() {
    let ws = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let bin = home.path().join(".toolchain/bin");
    std::fs::create_dir_all(&bin).unwrap();
    script(&bin.join("mytool"), "#!/bin/sh\necho from-mytool\n");
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let home_s = home.path().to_str().unwrap();
    let env = [("PATH", path.as_str()), ("HOME", home_s)];
    let k = kernel_with(ws.path(), SandboxMode::BestEffort, &env);
    if !k.sandbox_status().enforced() {
        assert_eq!(k.unreadable_binary("mytool"), None);
        return;
    }
    let hint = k.unreadable_binary("mytool").expect("a hint");
    let root = home.path().join(".toolchain");
    // The toolchain's top folder under the commands' $HOME.
    assert_eq!(hint.add, std::slice::from_ref(&root));
    let hint = hint.to_string();
    assert!(
        hint.contains(&format!("--sandbox-read {} (", root.display())),
        "{hint}"
    );
    let r = k.run(&argv(&["mytool"]));
    assert_eq!(r.exit_code, 126, "{r:?}");
    assert!(
        r.start_error
            .as_deref()
            .unwrap_or("")
            .contains("--sandbox-read"),
        "{r:?}"
    );
    // With the path added, it runs confined.
    let k = CommandExecKernel::new(KernelSettings {
        cwd: ws.path().to_path_buf(),
        env: env
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        sandbox_read: vec![root],
        ..KernelSettings::default()
    })
    .unwrap();
    assert_eq!(k.unreadable_binary("mytool"), None);
    let r = k.run(&argv(&["mytool"]));
    assert_eq!(
        (r.exit_code, r.output.as_str(), r.confined),
        (0, "from-mytool\n", true)
    );
}

#[test]
fn host_added_paths_are_readable_or_writable_as_added() {
    let ws = tempfile::tempdir().unwrap();
    let (extra, secret) = outside();
    let out = tempfile::tempdir().unwrap();
    let k = CommandExecKernel::new(KernelSettings {
        cwd: ws.path().to_path_buf(),
        sandbox_read: vec![extra.path().to_path_buf()],
        sandbox_write: vec![out.path().to_path_buf()],
        ..KernelSettings::default()
    })
    .unwrap();
    let r = k.run(&argv(&["cat", secret.to_str().unwrap()]));
    assert!(r.output.contains("canary-outside"), "{r:?}");
    let r = k.run(&sh(&format!(
        "echo w > {}/w; echo r > {}/r",
        out.path().display(),
        extra.path().display()
    )));
    assert!(out.path().join("w").exists(), "{r:?}");
    if confined_here(&k, &r) {
        assert!(
            !extra.path().join("r").exists(),
            "a read-only path was written"
        );
    }
}

#[test]
fn a_sandbox_path_that_does_not_exist_is_a_clear_error() {
    let ws = tempfile::tempdir().unwrap();
    for (read, write) in [
        (vec![PathBuf::from("/no/such/dir")], vec![]),
        (vec![], vec![PathBuf::from("/no/such/out")]),
    ] {
        let err = CommandExecKernel::new(KernelSettings {
            cwd: ws.path().to_path_buf(),
            sandbox_read: read,
            sandbox_write: write,
            ..KernelSettings::default()
        })
        .unwrap_err();
        assert!(matches!(err, KernelError::SandboxPath { .. }), "{err}");
        assert!(err.to_string().contains("/no/such/"), "{err}");
    }
}

#[test]
fn a_workspace_renamed_under_a_running_kernel_is_a_clear_error() {
    let parent = tempfile::tempdir().unwrap();
    let ws = parent.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let k = confined(&ws);
    assert_eq!(k.run(&argv(&["true"])).exit_code, 0);
    std::fs::rename(&ws, parent.path().join("moved")).unwrap();
    let r = k.run(&argv(&["true"]));
    assert_ne!(r.exit_code, 0, "{r:?}");
    let why = r.start_error.unwrap_or_default();
    assert!(
        why.contains("working directory") && why.contains("ws"),
        "{why}"
    );
}

#[test]
fn the_status_line_says_what_is_enforced() {
    let ws = tempfile::tempdir().unwrap();
    let k = confined(ws.path());
    let line = k.sandbox_status().to_string();
    if k.sandbox_status().enforced() {
        assert!(line.starts_with("sandbox: landlock ABI "), "{line}");
        // With a PID namespace where Landlock cannot confine signals (ABI 6).
        let expected = if k.sandbox_status().pid_namespace {
            "+ seccomp + PID namespace, enforced"
        } else {
            "+ seccomp, enforced"
        };
        assert!(line.contains(expected), "{line}");
    } else {
        assert!(line.contains("NOT enforced"), "{line}");
    }
    let off = unconfined(ws.path());
    assert!(off.sandbox_status().to_string().starts_with("sandbox: off"));
    assert!(!off.run(&argv(&["true"])).confined);
}

/// A project folder with descriptors: `touch_it` declares `writes`, `fetch` declares
/// `network`, `lines` declares nothing.
fn project() -> tempfile::TempDir {
    let p = tempfile::tempdir().unwrap();
    let tools = p.path().join(".work/tools");
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::write(
        tools.join("touch_it.tool.json"),
        r#"{"name": "touch_it", "description": "Create a file", "command": "touch <file>", "writes": true,
            "arguments": {"file": {"type": "path", "description": "The file"}}}"#,
    )
    .unwrap();
    std::fs::write(
        tools.join("fetch.tool.json"),
        r#"{"name": "fetch", "description": "Fetch the crate's dependencies", "command": "cargo fetch", "network": true}"#,
    )
    .unwrap();
    std::fs::write(
        tools.join("lines.tool.json"),
        r#"{"name": "lines", "description": "Count lines", "command": "wc -l <file>",
            "arguments": {"file": {"type": "path", "description": "The file"}}}"#,
    )
    .unwrap();
    // A `writes` tool beside the work folder: its content runs once approved.
    let approved = nanotool(p.path(), &["trust"]);
    assert!(approved.status.success(), "{approved:?}");
    p
}

/// The user's state folder, where `nanotool trust` keeps its approvals: cargo's scratch
/// folder for tests, out of every project's reach.
fn state_home() -> std::path::PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("nanotool-state")
}

fn nanotool(dir: &Path, args: &[&str]) -> Output {
    Command::new(nanotool_bin())
        .args(args)
        .current_dir(dir)
        .env("XDG_STATE_HOME", state_home())
        .env("NANOTOOL_LOG", "off")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn list_check_and_schema_show_the_profile_and_the_status() {
    let p = project();
    let out = nanotool(p.path(), &["list"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = text(&out.stdout);
    assert!(
        stdout.lines().any(|l| l.starts_with("sandbox: ")),
        "{stdout}"
    );

    let out = nanotool(p.path(), &["list", "--json"]);
    let tools: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tool = |name: &str| {
        tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(
        (
            tool("touch_it")["writes"].clone(),
            tool("touch_it")["network"].clone()
        ),
        (Value::Bool(true), Value::Bool(false))
    );
    assert_eq!(tool("fetch")["network"], true);
    assert_eq!(
        (
            tool("grep")["writes"].clone(),
            tool("grep")["network"].clone()
        ),
        (Value::Bool(false), Value::Bool(false))
    );

    let out = nanotool(p.path(), &["schema", "--format", "mcp"]);
    let defs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let def = |name: &str| {
        defs.as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()["annotations"]
            .clone()
    };
    assert_eq!(def("lines")["readOnlyHint"], true);
    assert_eq!(def("lines")["openWorldHint"], false);
    assert_eq!(def("touch_it")["readOnlyHint"], false);
    assert_eq!(def("touch_it")["destructiveHint"], true);
    assert_eq!(def("fetch")["openWorldHint"], true);
}

#[test]
fn a_writes_descriptor_writes_and_the_call_says_it_ran_confined() {
    let p = project();
    let out = nanotool(
        p.path(),
        &["call", "touch_it", r#"{"file": "made.txt"}"#, "--json"],
    );
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["exit_code"], 0, "{v}");
    assert!(p.path().join("made.txt").exists());
    let status = text(&nanotool(p.path(), &["list"]).stdout);
    assert_eq!(
        v["confined"],
        status.contains(", enforced"),
        "{v} / {status}"
    );
}

#[test]
fn a_bad_writes_field_is_a_613_naming_the_file_and_the_field() {
    let p = project();
    std::fs::write(
        p.path().join(".work/tools/bad.tool.json"),
        r#"{"name": "bad", "description": "Bad flag", "command": "touch x", "writes": "yes"}"#,
    )
    .unwrap();
    let out = nanotool(p.path(), &["check"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("bad.tool.json"), "{stdout}");
    assert!(
        stdout.contains("writes") && stdout.contains("`true` or `false`"),
        "{stdout}"
    );
    // The other files still load.
    assert!(stdout.contains("3 descriptor(s) loaded"), "{stdout}");
}

#[test]
fn bad_sandbox_flags_are_clear_errors() {
    let p = project();
    let out = nanotool(p.path(), &["list", "--sandbox", "strict"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("required"),
        "{}",
        text(&out.stderr)
    );
    let out = nanotool(p.path(), &["list", "--sandbox-read", "/no/such/dir"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("/no/such/dir") && stderr.contains("--sandbox-read"),
        "{stderr}"
    );
}

/// A seccomp filter that makes this process's Landlock calls fail with ENOSYS, as on a kernel
/// without Landlock: installed in the child before it runs nanotool.
fn without_landlock(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec of the test's own child: prctl and seccomp only.
    unsafe {
        cmd.pre_exec(|| {
            let ld_nr = libc::sock_filter {
                code: 0x20,
                jt: 0,
                jf: 0,
                k: 0,
            };
            let filter = [
                ld_nr,
                // nr == landlock_create_ruleset -> ENOSYS, else allow
                libc::sock_filter {
                    code: 0x15,
                    jt: 0,
                    jf: 1,
                    k: libc::SYS_landlock_create_ruleset as u32,
                },
                libc::sock_filter {
                    code: 0x06,
                    jt: 0,
                    jf: 0,
                    k: 0x0005_0000 | libc::ENOSYS as u32,
                },
                libc::sock_filter {
                    code: 0x06,
                    jt: 0,
                    jf: 0,
                    k: 0x7fff_0000,
                },
            ];
            let prog = libc::sock_fprog {
                len: filter.len() as u16,
                filter: filter.as_ptr().cast_mut(),
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0, &prog) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[test]
fn required_without_landlock_runs_nothing_and_best_effort_says_what_is_missing() {
    let p = project();
    let run = |args: &[&str]| {
        let mut cmd = Command::new(nanotool_bin());
        cmd.env("XDG_STATE_HOME", state_home());
        cmd.args(args)
            .current_dir(p.path())
            .env("NANOTOOL_LOG", "off");
        without_landlock(&mut cmd);
        cmd.output().unwrap()
    };
    let out = run(&["list", "--sandbox", "required"]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("sandbox: required but not available"),
        "{stdout}"
    );
    assert!(stdout.contains("Landlock"), "{stdout}");

    let out = run(&[
        "call",
        "touch_it",
        r#"{"file": "required.txt"}"#,
        "--sandbox",
        "required",
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("Landlock") && stdout.contains("required"),
        "{stdout}"
    );
    assert!(
        !p.path().join("required.txt").exists(),
        "required mode ran a command unconfined"
    );

    // Best-effort: the report says what is not enforced, and the call runs, marked unconfined.
    let out = run(&["list"]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("NOT enforced") && stdout.contains("Landlock"),
        "{stdout}"
    );
    let out = run(&["call", "touch_it", r#"{"file": "best.txt"}"#, "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["exit_code"].clone(), v["confined"].clone()),
        (Value::from(0), Value::Bool(false)),
        "{v}"
    );
    assert!(p.path().join("best.txt").exists());
}

#[test]
fn serve_logs_the_status_and_each_tool_out_of_reach_at_start_up() {
    let p = project();
    // A tool whose binary sits under $HOME, out of the commands' reach.
    let home = tempfile::tempdir().unwrap();
    let bin = home.path().join(".local/bin");
    std::fs::create_dir_all(&bin).unwrap();
    script(&bin.join("homebrewed"), "#!/bin/sh\necho hi\n");
    std::fs::write(
        p.path().join(".work/tools/homebrewed.tool.json"),
        r#"{"name": "homebrewed", "description": "A tool from ~/.local/bin", "command": "homebrewed"}"#,
    )
    .unwrap();
    assert!(nanotool(p.path(), &["trust"]).status.success());
    let out = Command::new(nanotool_bin())
        .env("XDG_STATE_HOME", state_home())
        .arg("serve")
        .current_dir(p.path())
        .env("NANOTOOL_LOG", "info")
        .env("HOME", home.path())
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(stderr.contains("sandbox: "), "{stderr}");
    if stderr.contains(", enforced") {
        assert!(stderr.contains("tool `homebrewed`"), "{stderr}");
        let fix = format!("--sandbox-read {}", home.path().join(".local").display());
        assert!(stderr.contains(&fix), "{stderr}");
    }
}

#[test]
fn git_works_in_a_workspace_that_is_a_subfolder_or_a_worktree_of_a_repository() {
    let repo = tempfile::tempdir().unwrap();
    init_repo(repo.path(), &[("pkg/lib.txt", "lib\n")], "pkg");
    std::fs::write(repo.path().join("top-secret.txt"), "canary-untracked\n").unwrap();
    let k = confined(&repo.path().join("pkg"));
    let r = k.run(&argv(&["git", "log", "--format=%s"]));
    confined_here(&k, &r);
    assert_eq!((r.exit_code, r.output.as_str()), (0, "pkg\n"), "{r:?}");
    // The repository's data, not its work tree: a file outside the workspace stays unreadable.
    let r = k.run(&argv(&["cat", "../top-secret.txt"]));
    if confined_here(&k, &r) {
        assert!(!r.output.contains("canary-untracked"), "{}", r.output);
    }
    // A linked worktree elsewhere: its .git file points into the main repository.
    let wt_parent = tempfile::tempdir().unwrap();
    let wt = wt_parent.path().join("wt");
    git(
        repo.path(),
        &["worktree", "add", "-q", wt.to_str().unwrap()],
    );
    let k = confined(&wt);
    let r = k.run(&argv(&["git", "log", "--format=%s"]));
    confined_here(&k, &r);
    assert_eq!((r.exit_code, r.output.as_str()), (0, "pkg\n"), "{r:?}");
}

/// A repository (its one commit "in the submodule") and a superproject that adds it at
/// `sub`, committed ("with a submodule"): (submodule source, superproject).
fn repo_with_submodule() -> (tempfile::TempDir, tempfile::TempDir) {
    let sub = tempfile::tempdir().unwrap();
    init_repo(sub.path(), &[("a.txt", "a\n")], "in the submodule");
    let repo = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "-q", "."]);
    let url = sub.path().to_str().unwrap();
    git(
        repo.path(),
        &[&FILE_OK[..], &["submodule", "add", "-q", url, "sub"]].concat(),
    );
    commit(repo.path(), "with a submodule");
    (sub, repo)
}

#[test]
fn git_works_in_a_submodule_workspace() {
    let (_sub, repo) = repo_with_submodule();
    // The submodule's .git is a file pointing into the superproject's .git/modules.
    assert!(repo.path().join("sub/.git").is_file());
    let k = confined(&repo.path().join("sub"));
    let r = k.run(&argv(&["git", "log", "--format=%s"]));
    confined_here(&k, &r);
    assert_eq!(
        (r.exit_code, r.output.as_str()),
        (0, "in the submodule\n"),
        "{r:?}"
    );
}

/// `to` relative to the directory `from` (both absolute).
fn relative(from: &Path, to: &Path) -> PathBuf {
    let (from, to): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for part in &to[common..] {
        out.push(part);
    }
    out
}

#[test]
fn git_works_in_a_submodule_of_a_worktree_and_with_relative_worktree_links() {
    let (_sub, repo) = repo_with_submodule();
    // A linked worktree of the superproject, its submodule checked out there: the
    // submodule's git directory is under .git/worktrees/<id>/modules.
    let wt_parent = tempfile::tempdir().unwrap();
    let wt = wt_parent
        .path()
        .join("wt")
        .canonicalize()
        .unwrap_or(wt_parent.path().join("wt"));
    git(
        repo.path(),
        &["worktree", "add", "-q", wt.to_str().unwrap()],
    );
    git(
        &wt,
        &[&FILE_OK[..], &["submodule", "update", "-q", "--init"]].concat(),
    );
    let k = confined(&wt.join("sub"));
    let r = k.run(&argv(&["git", "log", "--format=%s"]));
    confined_here(&k, &r);
    assert_eq!(
        (r.exit_code, r.output.as_str()),
        (0, "in the submodule\n"),
        "{r:?}"
    );
    // The worktree's back link written relative to its admin dir (git's
    // worktree.useRelativePaths).
    let wt = wt.canonicalize().unwrap();
    let admin = repo
        .path()
        .canonicalize()
        .unwrap()
        .join(".git/worktrees/wt");
    std::fs::write(
        admin.join("gitdir"),
        format!("{}\n", relative(&admin, &wt.join(".git")).display()),
    )
    .unwrap();
    let k = confined(&wt);
    let r = k.run(&argv(&["git", "log", "-1", "--format=%s"]));
    confined_here(&k, &r);
    assert_eq!(
        (r.exit_code, r.output.as_str()),
        (0, "with a submodule\n"),
        "{r:?}"
    );
}

#[test]
fn a_workspace_symlink_does_not_forge_a_worktrees_link_back() {
    // An outside repository has a worktree inside the workspace (`ws/wt`). The workspace's
    // writer turns `ws/wt` into a link to the workspace and points `ws/.git` at that
    // worktree's admin dir: its link back (`ws/wt/.git`) now resolves to `ws/.git`.
    let repo = tempfile::tempdir().unwrap();
    init_repo(repo.path(), &[("f.txt", "f\n")], "outside");
    std::fs::write(repo.path().join(".git/secret.txt"), "canary-outside-4242\n").unwrap();
    let ws = tempfile::tempdir().unwrap();
    let ws_path = ws.path().canonicalize().unwrap();
    let wt = ws_path.join("wt");
    git(
        repo.path(),
        &["worktree", "add", "-q", wt.to_str().unwrap()],
    );
    std::fs::remove_dir_all(&wt).unwrap();
    std::os::unix::fs::symlink(&ws_path, &wt).unwrap();
    let admin = repo
        .path()
        .canonicalize()
        .unwrap()
        .join(".git/worktrees/wt");
    std::fs::write(
        ws_path.join(".git"),
        format!("gitdir: {}\n", admin.display()),
    )
    .unwrap();
    let secret = repo.path().join(".git/secret.txt");
    let cat = argv(&["cat", secret.to_str().unwrap()]);
    let k = confined(&ws_path);
    let r = k.run(&cat);
    if confined_here(&k, &r) {
        assert!(!r.output.contains("canary-outside"), "{r:?}");
    }
    assert!(
        unconfined(&ws_path)
            .run(&cat)
            .output
            .contains("canary-outside")
    );
}

/// A directory that looks like a git directory (HEAD, objects, refs), with a secret beside.
fn fake_git_dir(dir: &Path) {
    std::fs::create_dir_all(dir.join("objects")).unwrap();
    std::fs::create_dir_all(dir.join("refs")).unwrap();
    std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
}

#[test]
fn a_planted_git_file_opens_nothing_outside_the_workspace() {
    // The workspace's `.git` file is the workspace's to write (a `writes` tool, an unpacked
    // archive): it must not choose what the next kernel lets commands read.
    let (out, secret) = outside();
    fake_git_dir(out.path());
    let other = tempfile::tempdir().unwrap();
    git(other.path(), &["init", "-q", "."]);
    std::fs::write(
        other.path().join(".git/secret.txt"),
        "canary-outside-4242\n",
    )
    .unwrap();
    let other_secret = other.path().join(".git/secret.txt");
    let forged_wt = tempfile::tempdir().unwrap();
    fake_git_dir(forged_wt.path());
    std::fs::write(
        forged_wt.path().join("commondir"),
        format!("{}\n", out.path().display()),
    )
    .unwrap();
    for (pointer, read) in [
        // Straight at a directory dressed as a git directory.
        (out.path().to_path_buf(), &secret),
        // At another repository's real git directory (not a submodule of an ancestor).
        (other.path().join(".git"), &other_secret),
        // At a forged linked worktree whose commondir names the directory.
        (forged_wt.path().to_path_buf(), &secret),
    ] {
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(
            ws.path().join(".git"),
            format!("gitdir: {}\n", pointer.display()),
        )
        .unwrap();
        let cat = argv(&["cat", read.to_str().unwrap()]);
        let k = confined(ws.path());
        let r = k.run(&cat);
        if confined_here(&k, &r) {
            assert!(
                !r.output.contains("canary-outside"),
                "gitdir: {} opened {}: {r:?}",
                pointer.display(),
                read.display()
            );
        }
        let r = unconfined(ws.path()).run(&cat);
        assert!(r.output.contains("canary-outside"), "{}", r.output);
    }
}

#[test]
fn system_information_tools_work_but_no_process_of_proc_is_readable() {
    let ws = tempfile::tempdir().unwrap();
    let k = confined(ws.path());
    for (argv, expected) in [
        (argv(&["free", "-m"]), "Mem:"),
        (argv(&["uptime"]), "load average"),
        (argv(&["getent", "hosts", "localhost"]), "localhost"),
        (argv(&["cat", "/proc/loadavg"]), "."),
    ] {
        let r = k.run(&argv);
        confined_here(&k, &r);
        assert_eq!(r.exit_code, 0, "{argv:?}: {}", r.text());
        assert!(r.output.contains(expected), "{argv:?}: {}", r.text());
    }
    let r = k.run(&sh(
        "cat /proc/self/status; cat /proc/1/cmdline; ls /proc; ls /etc/ssl; true",
    ));
    if confined_here(&k, &r) {
        assert!(!r.output.contains("Name:"), "{}", r.output);
        assert_eq!(
            r.output.matches("Permission denied").count(),
            4,
            "{}",
            r.output
        );
    }
}

#[test]
fn exec_is_read_only_unless_the_host_enables_writes_and_never_has_the_network() {
    let p = project();
    let call = |extra: &[&str]| {
        let mut args = vec![
            "--allow-exec",
            "touch",
            "call",
            "exec",
            r#"{"command": "touch made-by-exec"}"#,
            "--json",
        ];
        args.extend_from_slice(extra);
        let out = nanotool(p.path(), &args);
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let v = call(&[]);
    if v["confined"] == true {
        assert_ne!(v["exit_code"], 0, "{v}");
        assert!(
            !p.path().join("made-by-exec").exists(),
            "exec wrote without --exec-writes"
        );
    }
    let v = call(&["--exec-writes"]);
    assert_eq!(v["exit_code"], 0, "{v}");
    assert!(p.path().join("made-by-exec").exists());
    // What clients are told: the exec tool may write (with the flag), and never goes online.
    let out = nanotool(
        p.path(),
        &["--allow-exec", "touch", "--exec-writes", "schema"],
    );
    let defs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let exec = defs
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "exec")
        .unwrap();
    assert_eq!(exec["annotations"]["readOnlyHint"], false);
    assert_eq!(exec["annotations"]["openWorldHint"], false);
}

#[test]
fn serve_lists_each_tools_profile_as_annotations() {
    use std::io::Write;
    let p = project();
    // With `structuredContent` asked for: the result's fields, `confined` among them.
    let mut child = Command::new(nanotool_bin())
        .env("XDG_STATE_HOME", state_home())
        .args(["serve", "--structured-content"])
        .current_dir(p.path())
        .env("NANOTOOL_LOG", "off")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        for line in OPEN_SESSION.into_iter().chain([
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lines","arguments":{"file":".work/tools/lines.tool.json"}}}"#,
        ]) {
            writeln!(stdin, "{line}").unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    let replies: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let list = replies
        .iter()
        .find(|r| r["id"] == 2)
        .expect("tools/list reply");
    let tools = list["result"]["tools"].as_array().unwrap();
    let annotations =
        |name: &str| tools.iter().find(|t| t["name"] == name).unwrap()["annotations"].clone();
    assert_eq!(annotations("lines")["readOnlyHint"], true);
    assert_eq!(annotations("touch_it")["readOnlyHint"], false);
    assert_eq!(annotations("fetch")["openWorldHint"], true);
    let call = replies
        .iter()
        .find(|r| r["id"] == 3)
        .expect("tools/call reply");
    let structured = &call["result"]["structuredContent"];
    assert_eq!(structured["exit_code"], 0, "{call}");
    assert!(structured["confined"].is_boolean(), "{call}");
}

#[test]
fn every_bundled_descriptor_and_built_in_works_confined() {
    let ws = tempfile::tempdir().unwrap();
    let w = ws.path();
    init_repo(
        w,
        &[
            ("notes.txt", "alpha\nbeta\ngamma\n"),
            ("data.json", "{\"k\": [1]}\n"),
        ],
        "seed",
    );
    // The system python: a python under $HOME needs --sandbox-read (named by `list`).
    let mut toolbox = bundled_toolbox(w, &[("PATH", "/usr/bin:/bin")]);
    for tool in nanotool::builtins::all() {
        toolbox.register_arc(tool).unwrap();
    }
    let cases = [
        (
            "count_lines",
            serde_json::json!({"file": "notes.txt"}),
            "3 ./notes.txt",
        ),
        ("git_log", serde_json::json!({}), "seed"),
        (
            "head_file",
            serde_json::json!({"file": "notes.txt", "lines": 1}),
            "alpha",
        ),
        (
            "json_pretty",
            serde_json::json!({"file": "data.json"}),
            "\"k\": [",
        ),
        ("list_dir", serde_json::json!({}), "notes.txt"),
        (
            "grep",
            serde_json::json!({"pattern": "bet", "path": "."}),
            "./notes.txt:2:beta",
        ),
        (
            "find",
            serde_json::json!({"path": ".", "pattern": "notes*"}),
            "./notes.txt",
        ),
        (
            "sed_print",
            serde_json::json!({"range": "1,2", "path": "notes.txt"}),
            "alpha\nbeta",
        ),
    ];
    let enforced = toolbox.kernel().sandbox_status().enforced();
    for (name, args, expected) in cases {
        let out = toolbox.call(name, &args, None).unwrap();
        let exec = out
            .exec
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: {}", out.text));
        assert_eq!(
            (exec.exit_code, exec.confined),
            (0, enforced),
            "{name}: {}",
            out.text
        );
        assert!(
            out.output().unwrap().contains(expected),
            "{name}: {}",
            out.text
        );
    }
}

/// The whole escape suite above, again at every Landlock ABI below this Linux's own (0: no
/// Landlock at all), each in a run of this test binary of its own that runs this module's
/// tests only (the other modules of the binary play no ABI): every test here either sees the
/// escape fail or sees the status say the sandbox is not enforced.
#[test]
fn the_escape_suite_holds_at_every_landlock_abi() {
    if played_abi().is_some() {
        return; // a replay itself
    }
    let ws = tempfile::tempdir().unwrap();
    let running = confined(ws.path())
        .sandbox_status()
        .landlock_abi
        .clone()
        .unwrap_or(0);
    let exe = std::env::current_exe().unwrap();
    let this_module = crate::common::test_name(module_path!(), "");
    for abi in 0..running {
        let out = Command::new(&exe)
            .args([
                this_module.as_str(),
                "--test-threads=2",
                "--skip",
                "the_escape_suite_holds_at_every_landlock_abi",
            ])
            .env("NANOTOOL_TEST_LANDLOCK_ABI", abi.to_string())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("test result: ok"),
            "the escape suite at Landlock ABI {abi}:\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // What the replay ran: this module's tests, and nothing else.
        let ran: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("test ")?.split_once(" ... "))
            .map(|(name, _)| name)
            .collect();
        assert!(
            !ran.is_empty(),
            "the replay at ABI {abi} ran nothing:\n{text}"
        );
        let others: Vec<&&str> = ran
            .iter()
            .filter(|t| !t.starts_with(&this_module))
            .collect();
        assert!(
            others.is_empty(),
            "the replay at ABI {abi} ran tests of other modules: {others:?}"
        );
    }
}

/// The probe of the host-wide and inode ioctls and calls a read-only tool must not make:
/// one line per attempt, `name errno` (0: it worked).
const HOST_WIDE_PROBE: &str = r#"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
def say(name, r):
    print(name, 0 if r >= 0 else ctypes.get_errno())
fd = os.open(sys.argv[1], os.O_RDONLY)
v = ctypes.c_long(7)
for name, req in [("EXT4_IOC_SETVERSION", 0x40086604), ("FS_IOC_SETVERSION", 0x40087602),
                  ("BTRFS_IOC_SUBVOL_SETFLAGS", 0x4008941A), ("FIONREAD", 0x541B)]:
    say(name, libc.ioctl(fd, req, ctypes.byref(v)))
buf = ctypes.create_string_buffer(256)
say("getxattr", libc.getxattr(sys.argv[2].encode(), b"user.canary", buf, 256))
say("listxattr", libc.listxattr(sys.argv[2].encode(), buf, 256))
say("fgetxattr", libc.fgetxattr(fd, b"user.none", buf, 256))
ctx = ctypes.c_ulong(0)
r = libc.syscall(206, 1, ctypes.byref(ctx))  # io_setup
say("io_setup", r)
if r == 0:
    libc.syscall(207, ctx)  # io_destroy
say("modify_ldt", libc.syscall(154, 0, buf, 16))
r = libc.syscall(447, 0)  # memfd_secret
say("memfd_secret", r)
"#;

/// The tools that copy extended attributes keep working where a path's attributes answer as
/// on a file system without them: `ls -l`, `cp -a`, `tar` and `tar --xattrs` both ways, Python's
/// `shutil.copy2` and, where it is installed, `rsync -a`, each copying a file that carries a
/// user attribute (where this file system takes one), its bytes and mode arriving. The
/// control, unconfined, gives the same output and carries the attribute across.
#[test]
fn copies_and_archives_keep_working_without_path_xattrs() {
    let copies: &[(&str, &str)] = &[
        (
            "ls -l",
            "ls -l src >/dev/null && cat src/f.txt && stat -c %a src/f.txt",
        ),
        (
            "cp -a",
            "cp -a src cp && cat cp/f.txt && stat -c %a cp/f.txt",
        ),
        (
            "tar",
            "tar -cf a.tar src && mkdir x && tar -xf a.tar -C x && cat x/src/f.txt && stat -c %a x/src/f.txt",
        ),
        (
            "tar --xattrs",
            "tar --xattrs -cf a.tar src && mkdir x && tar --xattrs -xf a.tar -C x && cat x/src/f.txt && stat -c %a x/src/f.txt",
        ),
        (
            "shutil.copy2",
            "$PYTHON -c 'import shutil; shutil.copy2(\"src/f.txt\", \"c2.txt\")' && cat c2.txt && stat -c %a c2.txt",
        ),
        (
            "rsync -a",
            "rsync -a src/ rs/ && cat rs/f.txt && stat -c %a rs/f.txt",
        ),
    ];
    let has_rsync = Command::new("rsync")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    // Each copy in a fresh workspace holding src/f.txt (mode 640, a user attribute where the
    // file system takes one); returns the result and whether the attribute was there to copy.
    let run = |confine: bool, script: &str| {
        let ws = tempfile::tempdir().unwrap();
        let w = ws.path();
        std::fs::create_dir(w.join("src")).unwrap();
        std::fs::write(w.join("src/f.txt"), "payload\n").unwrap();
        std::fs::set_permissions(w.join("src/f.txt"), std::fs::Permissions::from_mode(0o640))
            .unwrap();
        let tagged = unconfined(w)
            .run(&python(
                "import os\ntry:\n    os.setxattr('src/f.txt', 'user.note', b'kept')\n    print('set')\nexcept OSError:\n    print('none')",
            ))
            .output
            == "set\n";
        let k = if confine { confined(w) } else { unconfined(w) };
        let r = k.run_as(&sh(&script.replace("$PYTHON", PYTHON)), WRITES, None);
        // Where the copy landed, whether the attribute came along (read unconfined).
        let carried = unconfined(w)
            .run(&python(
                "import os, glob\nfor p in glob.glob('*/f.txt') + glob.glob('x/src/f.txt') + glob.glob('c2.txt'):\n    if p != 'src/f.txt':\n        try:\n            print(p, os.getxattr(p, 'user.note').decode())\n        except OSError:\n            print(p, '-')",
            ))
            .output;
        (k, r, tagged, carried)
    };
    for (name, script) in copies {
        if *name == "rsync -a" && !has_rsync {
            eprintln!("rsync is not installed here: `rsync -a` is not tried");
            continue;
        }
        let (k, r, tagged, carried) = run(true, script);
        if !confined_here(&k, &r) {
            return;
        }
        // tar reads an archived file's attributes through its fd (the fd forms stay) and, told
        // to restore them, says it cannot, as on a file system without them: a warning, and
        // the file extracted.
        let cannot_set = "tar: setxattrat: Cannot set 'user.note' extended attribute for file 'src/f.txt': Operation not supported\n";
        let output = match r.output.strip_prefix(cannot_set) {
            Some(rest) if *name == "tar --xattrs" && tagged => rest,
            _ => r.output.as_str(),
        };
        assert_eq!(
            (r.exit_code, output),
            (0, "payload\n640\n"),
            "{name}, confined: {}",
            r.text()
        );
        // Control: unconfined, the same output, and the attribute copied where there was one
        // (rsync copies attributes only when asked, with -X, tar with --xattrs).
        let (_, u, _, carried_unconfined) = run(false, script);
        assert_eq!(
            (u.exit_code, u.output.as_str()),
            (0, "payload\n640\n"),
            "{name}, unconfined: {}",
            u.text()
        );
        if tagged && !matches!(*name, "ls -l" | "rsync -a" | "tar") {
            assert!(
                carried_unconfined.contains(" kept\n"),
                "{name}: {carried_unconfined}"
            );
            // Confined, the path's attributes read as absent: the copy has none.
            assert!(carried.ends_with(" -\n"), "{name}: {carried}");
        }
    }
}

/// Inode versions (the generic and ext4's own number), a file system's private flag ioctl,
/// extended attributes of a path outside, legacy AIO (the host-wide `aio-max-nr`), `modify_ldt`
/// and `memfd_secret`: a read-only tool gets none of them; FIONREAD and an fd's own xattrs
/// stay. The control, unconfined, shows each is there to take on this machine.
#[test]
#[cfg(target_arch = "x86_64")]
fn inode_versions_private_ioctls_outside_xattrs_and_host_wide_quotas_are_refused() {
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("f"), "x").unwrap();
    let secret = outside.path().join("private");
    std::fs::write(&secret, "x").unwrap();
    let has_xattr = Command::new("setfattr")
        .args(["-n", "user.canary", "-v", "leaked"])
        .arg(&secret)
        .status()
        .is_ok_and(|s| s.success());
    let probe = |k: &CommandExecKernel| {
        let mut cmd = python(HOST_WIDE_PROBE);
        cmd.push("f".into());
        cmd.push(secret.display().to_string());
        let r = k.run(&cmd);
        let answers: std::collections::HashMap<String, i32> = r
            .output
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(n, e)| (n.to_owned(), e.parse().unwrap()))
            .collect();
        (r, answers)
    };
    let k = confined(ws.path());
    let (r, got) = probe(&k);
    if !confined_here(&k, &r) {
        return;
    }
    assert_eq!(r.exit_code, 0, "{}", r.text());
    for name in [
        "EXT4_IOC_SETVERSION",
        "FS_IOC_SETVERSION",
        "BTRFS_IOC_SUBVOL_SETFLAGS",
    ] {
        assert_eq!(got[name], libc::ENOTTY, "{name}: {}", r.output);
    }
    assert_eq!(got["FIONREAD"], 0, "{}", r.output);
    assert_eq!(got["getxattr"], libc::EOPNOTSUPP, "{}", r.output);
    assert_eq!(got["listxattr"], libc::EOPNOTSUPP, "{}", r.output);
    let confined_fgetxattr = got["fgetxattr"];
    for name in ["io_setup", "modify_ldt", "memfd_secret"] {
        assert_eq!(got[name], libc::ENOSYS, "{name}: {}", r.output);
    }
    // Control: unconfined, the same file system takes the version and the AIO context.
    let (r, got) = probe(&unconfined(ws.path()));
    assert_eq!(r.exit_code, 0, "{}", r.text());
    // The fd-based xattr calls are kept: they answer as the file system does unconfined (a
    // tmpfs before Linux 6.6 has no user xattrs at all: EOPNOTSUPP both ways).
    assert_eq!(confined_fgetxattr, got["fgetxattr"], "{}", r.output);
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } == 0 && got["FS_IOC_SETVERSION"] == 0 {
        assert_eq!(got["EXT4_IOC_SETVERSION"], 0, "{}", r.output);
    }
    assert_eq!(got["io_setup"], 0, "{}", r.output);
    if has_xattr {
        assert_eq!(got["getxattr"], 0, "{}", r.output);
    }
}
