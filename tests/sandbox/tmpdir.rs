//! The commands' private TMPDIR never outlives its kernel, whatever a command left in it: a
//! tree deeper than the open-file limit and than a thread's stack allows to recurse, and
//! directories whose modes refuse their owner. Where the agent may mount, it is a tmpfs of
//! bounded size that only the commands see.

use crate::common::bin::nanotool_bin;
use crate::common::{
    Stop, WRITES, become_user, command_tmpdir, in_own_process, kernel, python, settings, sh,
    stop_serve,
};
use nanotool_runtime::{
    CommandExecKernel, KernelSettings, LimitHit, Limits, SandboxMode, TempDirStatus,
};
use std::path::PathBuf;
use std::process::Command;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn tmpdir_of(k: &CommandExecKernel) -> PathBuf {
    k.sandbox_tmpdir().expect("the sandbox is on").to_path_buf()
}

/// Drops `k` on a thread with a 256 KiB stack: a removal that recursed once per level would
/// overflow it (and abort the process).
fn drop_on_small_stack(k: CommandExecKernel) {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || drop(k))
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_tree_deeper_than_the_fd_limit_and_the_stack_is_removed() {
    if !in_own_process(
        module_path!(),
        "a_tree_deeper_than_the_fd_limit_and_the_stack_is_removed",
    ) {
        return;
    }
    let limit = libc::rlimit {
        rlim_cur: 64,
        rlim_max: 64,
    };
    // SAFETY: setrlimit of this process (alone in its copy).
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) }, 0);
    let ws = tempfile::tempdir().unwrap();
    // On disk (no tmpfs, which would take the tree with it): the removal is what is tried.
    let k = CommandExecKernel::new(KernelSettings {
        temp_size: None,
        // A hang detector only: 10,000 nested folders take minutes on an emulated machine.
        timeout: std::time::Duration::from_secs(600),
        ..settings(ws.path(), SandboxMode::BestEffort)
    })
    .unwrap();
    let tmp = tmpdir_of(&k);
    let script = "import os\nos.chdir(os.environ['TMPDIR'])\nfor i in range(10000):\n    \
                  os.mkdir('d')\n    os.chdir('d')\nopen('leaf', 'w').write('x')\nprint('built')\n";
    let r = k.run(&python(script));
    assert_eq!(r.output, "built\n", "{}", r.text());
    let own = command_tmpdir(&k, nanotool_runtime::Access::READ_ONLY);
    assert!(
        own.starts_with(&tmp),
        "{} is not inside {}",
        own.display(),
        tmp.display()
    );
    assert!(own.join("d/d/d").is_dir());
    drop_on_small_stack(k);
    assert!(!tmp.exists(), "{} outlived its kernel", tmp.display());
}

#[test]
fn directories_that_refuse_their_owner_are_removed() {
    if !in_own_process(
        module_path!(),
        "directories_that_refuse_their_owner_are_removed",
    ) {
        return;
    }
    // An ordinary user: root's capabilities would ignore the modes.
    become_user(12345);
    let ws = tempfile::tempdir().unwrap();
    let k = kernel(ws.path(), SandboxMode::BestEffort);
    let tmp = tmpdir_of(&k);
    let script = "cd \"$TMPDIR\" && mkdir -p a/b/c w && : > a/b/c/f && : > a/b/g && : > w/f && \
                  chmod 0300 a/b && chmod 0 a/b/c && chmod 0500 w && chmod 0 a/b/g && echo built";
    // A tool that declares `writes` may change modes.
    let r = k.run_as(&sh(script), WRITES, None);
    assert_eq!(r.output, "built\n", "{}", r.text());
    assert!(
        std::fs::read_dir(command_tmpdir(&k, WRITES).join("a/b")).is_err(),
        "the mode does not refuse"
    );
    drop(k);
    assert!(!tmp.exists(), "{} outlived its kernel", tmp.display());
}

#[test]
fn the_removal_never_follows_a_symlink_out() {
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("keep"), "x").unwrap();
    let k = kernel(ws.path(), SandboxMode::BestEffort);
    let tmp = tmpdir_of(&k);
    std::os::unix::fs::symlink(outside.path(), tmp.join("link")).unwrap();
    drop(k);
    assert!(!tmp.exists());
    assert!(
        outside.path().join("keep").exists(),
        "the removal followed a symlink"
    );
}

/// Starts `nanotool serve` with its own temp base, lets a command fill its TMPDIR with a
/// locked, deep tree, stops it as `stop` says, and checks the TMPDIR is gone.
fn serve_leaves_nothing(stop: Stop) {
    let ws = tempfile::tempdir().unwrap();
    let base = tempfile::tempdir().unwrap();
    let mut child = Command::new(nanotool_bin())
        .args(["serve", "--cwd"])
        .arg(ws.path())
        .env("TMPDIR", base.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    // The agent's own folder in the shared temp dir holds it.
    let own = base
        .path()
        .join(format!("nanotool-{}", unsafe { libc::geteuid() }));
    let tmp = loop {
        let made: Vec<PathBuf> = std::fs::read_dir(&own)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        if let Some(dir) = made.into_iter().next() {
            break dir;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "serve made no TMPDIR"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // What a command could leave there: deep, and a directory its owner cannot read.
    let mut deep = tmp.clone();
    for _ in 0..200 {
        deep.push("d");
    }
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(deep.join("f"), "x").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tmp.join("d"), std::fs::Permissions::from_mode(0o300)).unwrap();
    let (status, log) = stop_serve(&mut child, stop);
    assert!(
        !tmp.exists(),
        "{stop:?} ({status}): {} outlived serve:\n{log}",
        tmp.display()
    );
}

#[test]
fn serve_removes_its_tmpdir_when_stdin_closes() {
    serve_leaves_nothing(Stop::StdinClosed);
}

#[test]
fn serve_removes_its_tmpdir_on_sigterm_sigint_and_sighup() {
    crate::common::interrupts_at_default();
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        serve_leaves_nothing(Stop::Signal(sig));
    }
}

/// What a call leaves in its private home or temp dir (an `.npmrc` whose `node-options`
/// loads a script, a `~/.cargo/config.toml` with a `rustc-wrapper`, a program in `TMPDIR`)
/// reaches the next calls with the same rights, whose caches it serves, and never a call with
/// other rights: an offline read-only tool cannot plant what a `writes` or `network` tool then
/// runs, by the variables or by the absolute path.
#[test]
fn state_left_in_the_private_home_or_temp_dir_never_reaches_other_rights() {
    let ws = tempfile::tempdir().unwrap();
    let k = kernel(ws.path(), SandboxMode::BestEffort);
    if !k.sandbox_status().enforced() {
        eprintln!("the sandbox is not enforced here: nothing separates the calls' rights");
        return;
    }
    let plant = k.run(&sh(
        "echo planted > \"$HOME/.npmrc\" && echo planted > \"$TMPDIR/evil\" && echo \"$HOME/.npmrc\" && echo \"$TMPDIR/evil\"",
    ));
    assert_eq!(plant.exit_code, 0, "{}", plant.text());
    let planted: Vec<&str> = plant.output.lines().collect();
    assert_eq!(planted.len(), 2, "{}", plant.output);
    // The same rights: the state serves the next call (npm's and pip's caches).
    let same = k.run(&sh("cat \"$HOME/.npmrc\" \"$TMPDIR/evil\""));
    assert_eq!(same.output, "planted\nplanted\n", "{}", same.text());
    let network = nanotool_runtime::Access {
        network: true,
        ..nanotool_runtime::Access::READ_ONLY
    };
    let both = nanotool_runtime::Access {
        network: true,
        ..WRITES
    };
    for (what, access) in [
        ("writes", WRITES),
        ("network", network),
        ("writes+network", both),
    ] {
        let by_var = k.run_as(
            &sh("cat \"$HOME/.npmrc\" \"$TMPDIR/evil\" 2>&1; echo \"home=$HOME tmp=$TMPDIR\""),
            access,
            None,
        );
        assert!(
            !by_var.output.contains("planted"),
            "{what}: the read-only call's state reached it: {}",
            by_var.text()
        );
        for path in &planted {
            let by_path = k.run_as(&sh(&format!("cat '{path}' 2>&1")), access, None);
            assert!(
                !by_path.output.contains("planted"),
                "{what}: {path} is readable: {}",
                by_path.text()
            );
            let overwrite = k.run_as(&sh(&format!("echo replaced > '{path}' 2>&1")), access, None);
            assert_ne!(overwrite.exit_code, 0, "{what}: {path} is writable");
        }
    }
    // And the other way: what a writes tool leaves is not the read-only tool's either.
    let w = k.run_as(
        &sh("echo from-writes > \"$TMPDIR/w\" && echo \"$TMPDIR/w\""),
        WRITES,
        None,
    );
    assert_eq!(w.exit_code, 0, "{}", w.text());
    let read = k.run(&sh(&format!(
        "cat '{}' 2>&1; cat \"$TMPDIR/w\" 2>&1",
        w.output.trim()
    )));
    assert!(!read.output.contains("from-writes"), "{}", read.text());
}

/// A kernel whose temp dir is a tmpfs of `size` bytes, where this agent may mount one (root):
/// `None` elsewhere, after saying why.
fn tmpfs_kernel(ws: &std::path::Path, size: u64, pid_namespace: bool) -> Option<CommandExecKernel> {
    let k = CommandExecKernel::new(KernelSettings {
        temp_size: Some(size),
        pid_namespace: if pid_namespace {
            nanotool_runtime::kernel::PidNamespaceMode::On
        } else {
            nanotool_runtime::kernel::PidNamespaceMode::Off
        },
        ..settings(ws, SandboxMode::BestEffort)
    })
    .unwrap();
    match k.limits_status().temp_dir {
        TempDirStatus::Tmpfs { .. } => Some(k),
        other => {
            // SAFETY: geteuid cannot fail.
            assert_ne!(
                unsafe { libc::geteuid() },
                0,
                "a root agent got no tmpfs: {other}"
            );
            eprintln!("no tmpfs here: {other}");
            None
        }
    }
}

/// Every file and folder under `dir`, as the agent sees it.
fn everything_under(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push(entry.path());
            }
            found.push(entry.path());
        }
    }
    found
}

/// A read-only tool writes past the temp dir's size, and makes more files than it may hold:
/// the write fails with "No space left on device", the result names the limit, and nothing
/// reached the disk or the agent's mount table. The next call finds the space it left.
#[test]
fn the_temp_dir_is_a_tmpfs_of_bounded_size_that_only_commands_see() {
    let ws = tempfile::tempdir().unwrap();
    for pid_namespace in [false, true] {
        let Some(k) = tmpfs_kernel(ws.path(), 4 << 20, pid_namespace) else {
            return;
        };
        let status = k.limits_status().to_string();
        assert!(
            status.contains("temp dir: a tmpfs of 4 MiB, 512 files"),
            "{status}"
        );
        let tmp = tmpdir_of(&k);
        let r = k.run(&sh("head -c 8388608 /dev/zero > \"$TMPDIR/big\""));
        confined_or_say(&k, &r);
        assert_ne!(r.exit_code, 0, "{}", r.text());
        assert!(r.output.contains("No space left on device"), "{}", r.text());
        assert_eq!(r.limit, Some(LimitHit::TempDir(4 << 20)), "{}", r.text());
        assert!(
            r.text().contains("temp dir limit 4 MiB reached"),
            "{}",
            r.text()
        );
        // What the call wrote is in the tmpfs, where the next call of its rights sees it.
        let r = k.run(&sh("wc -c < \"$TMPDIR/big\" && stat -f -c %T \"$TMPDIR\""));
        let mut lines = r.output.lines();
        let written: u64 = lines.next().unwrap_or("").trim().parse().unwrap_or(0);
        assert!(written > 3 << 20 && written <= 4 << 20, "{}", r.text());
        assert_eq!(lines.next(), Some("tmpfs"), "{}", r.text());
        // A full temp dir is named only where the failure says "no space": not for a call
        // that fails for its own reasons beside it.
        let r = k.run(&sh("echo no match; exit 1"));
        assert_eq!((r.exit_code, r.limit), (1, None), "{}", r.text());
        // Files: 512 at most, whatever their size.
        let r = k.run(&python(
            "import os\nos.chdir(os.environ['TMPDIR'])\nos.remove('big')\nn = 0\ntry:\n    \
             for i in range(2000):\n        open('f%d' % i, 'w').close()\n        n += 1\n\
             except OSError as e:\n    print(n, e.strerror)\n",
        ));
        let (made, why) = r.output.trim().split_once(' ').unwrap_or(("", ""));
        let made: u32 = made.parse().unwrap_or(u32::MAX);
        assert!(made < 512, "{}", r.text());
        assert_eq!(why, "No space left on device", "{}", r.text());
        // Nothing of it on the disk under the mount point, nor in the agent's mount table.
        assert_eq!(everything_under(&tmp), Vec::<PathBuf>::new());
        let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        assert!(
            !mounts.contains(tmp.to_str().unwrap()),
            "the agent's mount table shows the tmpfs:\n{mounts}"
        );
        drop(k);
        assert!(!tmp.exists(), "{} outlived its kernel", tmp.display());
    }
}

/// The private home lives in the same tmpfs as the temp dir: bounded by the same size, seen
/// by commands only, and no folder of its own on disk (the one folder the kernel makes there
/// is the tmpfs's mount point).
#[test]
fn the_private_home_shares_the_temp_dirs_tmpfs() {
    let ws = tempfile::tempdir().unwrap();
    let Some(k) = tmpfs_kernel(ws.path(), 4 << 20, false) else {
        return;
    };
    let (tmp, home) = (tmpdir_of(&k), k.sandbox_home().unwrap().to_path_buf());
    assert!(
        home.starts_with(&tmp),
        "the home {} is a folder of its own on disk, beside {}",
        home.display(),
        tmp.display()
    );
    let r = k.run(&sh(
        "stat -f -c %T \"$HOME\" && head -c 8388608 /dev/zero > \"$HOME/big\"",
    ));
    confined_or_say(&k, &r);
    assert_eq!(r.output.lines().next(), Some("tmpfs"), "{}", r.text());
    assert_ne!(r.exit_code, 0, "{}", r.text());
    assert!(r.output.contains("No space left on device"), "{}", r.text());
    assert_eq!(r.limit, Some(LimitHit::TempDir(4 << 20)), "{}", r.text());
    // The home's content is the commands' alone: nothing on disk under the mount point.
    assert_eq!(everything_under(&tmp), Vec::<PathBuf>::new());
    drop(k);
    assert!(!tmp.exists(), "{} outlived its kernel", tmp.display());
}

/// The folder the tmpfs covers holds nothing on the host's side: where the host names no
/// temp dir it is made in `/dev/shm` (a tmpfs, where a folder costs no disk write), where it
/// names one, there; removed with the kernel either way.
#[test]
fn the_tmpfs_mount_point_is_made_where_a_folder_costs_least() {
    if !in_own_process(
        module_path!(),
        "the_tmpfs_mount_point_is_made_where_a_folder_costs_least",
    ) {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let named = tempfile::tempdir().unwrap();
    let shm_is_tmpfs = std::process::Command::new("stat")
        .args(["-f", "-c", "%T", "/dev/shm"])
        .output()
        .is_ok_and(|o| o.stdout == b"tmpfs\n");
    for host_names_one in [false, true] {
        // SAFETY: this test runs alone in its own process; each kernel reads it once.
        unsafe {
            if host_names_one {
                std::env::set_var("TMPDIR", named.path());
            } else {
                std::env::remove_var("TMPDIR");
            }
        }
        let Some(k) = tmpfs_kernel(ws.path(), 4 << 20, false) else {
            return;
        };
        let tmp = tmpdir_of(&k);
        let expected = match (host_names_one, shm_is_tmpfs) {
            (true, _) => named.path().canonicalize().unwrap(),
            (false, true) => PathBuf::from("/dev/shm").canonicalize().unwrap(),
            (false, false) => std::env::temp_dir().canonicalize().unwrap(),
        }
        .join(own_folder_name());
        assert_eq!(tmp.parent(), Some(expected.as_path()), "{}", tmp.display());
        let r = k.run(&sh("echo x > \"$TMPDIR/f\" && stat -f -c %T \"$TMPDIR\""));
        assert_eq!(r.output, "tmpfs\n", "{}", r.text());
        drop(k);
        assert!(!tmp.exists(), "{} outlived its kernel", tmp.display());
    }
}

/// The name of the agent's own folder in a shared place: `nanotool-<euid>`.
fn own_folder_name() -> String {
    // SAFETY: geteuid cannot fail.
    format!("nanotool-{}", unsafe { libc::geteuid() })
}

/// The agent's own folder in `/dev/shm`, made as the kernel makes it (`0700`) where missing:
/// `None` (after saying why) where `/dev/shm` cannot hold it or it is not this user's.
fn own_shm_folder() -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let own = PathBuf::from("/dev/shm").join(own_folder_name());
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&own);
    match std::fs::symlink_metadata(&own) {
        // SAFETY: geteuid cannot fail.
        Ok(m) if m.is_dir() && m.uid() == unsafe { libc::geteuid() } => Some(own),
        other => {
            eprintln!(
                "{} cannot be this user's folder here: {other:?}",
                own.display()
            );
            None
        }
    }
}

/// A FIFO at `path`.
fn mkfifo(path: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: mkfifo of a NUL-terminated path.
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o666) },
        0,
        "{}",
        path.display()
    );
}

/// What an inotify instance watching `paths` (each itself, never a link's target) saw being
/// opened, changed, moved or removed, read once without waiting.
struct Watch(std::os::fd::OwnedFd, Vec<(i32, PathBuf)>);

impl Watch {
    fn new(paths: &[&std::path::Path]) -> Watch {
        use std::os::fd::FromRawFd;
        use std::os::unix::ffi::OsStrExt;
        // SAFETY: inotify_init1 returns a fresh fd or -1; each watch takes a NUL-terminated
        // path.
        unsafe {
            let fd = libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC);
            assert!(fd >= 0);
            let mut wds = Vec::new();
            for path in paths {
                let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
                let mask = libc::IN_OPEN
                    | libc::IN_ATTRIB
                    | libc::IN_MODIFY
                    | libc::IN_DELETE_SELF
                    | libc::IN_MOVE_SELF
                    | libc::IN_DONT_FOLLOW;
                let wd = libc::inotify_add_watch(fd, c.as_ptr(), mask);
                assert!(wd >= 0, "{}", path.display());
                wds.push((wd, path.to_path_buf()));
            }
            Watch(std::os::fd::OwnedFd::from_raw_fd(fd), wds)
        }
    }

    /// The events waiting: each watched path with its event mask.
    fn seen(&self) -> Vec<(PathBuf, u32)> {
        use std::os::fd::AsRawFd;
        let mut buf = [0u8; 4096];
        // SAFETY: read into a buffer of ours, from an fd we own (non-blocking).
        let n = unsafe { libc::read(self.0.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        let mut events = Vec::new();
        let mut at = 0;
        let head = std::mem::size_of::<libc::inotify_event>();
        while n > 0 && at + head <= n as usize {
            // SAFETY: the kernel wrote whole events into the buffer; read unaligned.
            let ev: libc::inotify_event =
                unsafe { std::ptr::read_unaligned(buf.as_ptr().add(at).cast()) };
            let path = self
                .1
                .iter()
                .find(|(wd, _)| *wd == ev.wd)
                .map(|(_, p)| p.clone());
            events.push((path.unwrap_or_default(), ev.mask));
            at += head + ev.len as usize;
        }
        events
    }
}

/// Whatever another user plants where a kernel looks for its folders (a FIFO named like a
/// stale mount point — whose blocking open hung every start —, a link, a folder of theirs;
/// in `/dev/shm`, in the agent's own folder there, and squatting the agent's folder's name in
/// the host's temp dir): a kernel still starts, and nothing of theirs is opened, changed or
/// removed. The control, a stale folder of the agent's own, is swept
/// (`mount_points_of_agents_gone_are_swept_from_dev_shm`).
#[test]
fn nothing_another_user_plants_where_a_kernel_looks_is_opened_or_removed() {
    if !in_own_process(
        module_path!(),
        "nothing_another_user_plants_where_a_kernel_looks_is_opened_or_removed",
    ) {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    const NOBODY: u32 = 65534;
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("planting files of another user needs a root test");
        return;
    }
    let gone = std::process::Command::new("true")
        .spawn()
        .and_then(|mut c| c.wait().map(|_| c.id()))
        .unwrap();
    let chown =
        |p: &std::path::Path| std::os::unix::fs::lchown(p, Some(NOBODY), Some(NOBODY)).unwrap();
    let mut planted: Vec<PathBuf> = Vec::new();
    // In `/dev/shm` itself, the reproduction, and in the agent's folder there.
    let top = PathBuf::from(format!("/dev/shm/nanotool-{gone}-deadbeef-0"));
    let own = own_shm_folder();
    let target = tempfile::tempdir().unwrap();
    let theirs = target.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    chown(&theirs);
    if std::fs::metadata("/dev/shm").is_ok() {
        mkfifo(&top);
        chown(&top);
        planted.push(top.clone());
    }
    if let Some(own) = &own {
        let fifo = own.join(format!("nanotool-{gone}-deadbeef-1"));
        let link = own.join(format!("nanotool-{gone}-deadbeef-2"));
        let dir = own.join(format!("nanotool-{gone}-deadbeef-3"));
        mkfifo(&fifo);
        std::os::unix::fs::symlink(&theirs, &link).unwrap();
        std::fs::create_dir(&dir).unwrap();
        for p in [&fifo, &link, &dir] {
            chown(p);
            planted.push(p.clone());
        }
    }
    // The host's temp dir (sticky, anyone's), where the agent's folder's name is taken by
    // another user: a FIFO, a link, a folder of theirs.
    let shared = [
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    ];
    for (i, base) in shared.iter().enumerate() {
        std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        let squat = base.path().join(own_folder_name());
        match i {
            0 => mkfifo(&squat),
            1 => std::os::unix::fs::symlink(&theirs, &squat).unwrap(),
            _ => std::fs::create_dir(&squat).unwrap(),
        }
        chown(&squat);
        planted.push(squat);
    }
    let mut watched: Vec<&std::path::Path> = planted.iter().map(PathBuf::as_path).collect();
    watched.push(&theirs);
    let watch = Watch::new(&watched);
    let ws = tempfile::tempdir().unwrap();
    let mut tmpdirs = Vec::new();
    for base in [None]
        .into_iter()
        .chain(shared.iter().map(|b| Some(b.path())))
    {
        // SAFETY: this test runs alone in its own process; each kernel reads it once.
        unsafe {
            match base {
                Some(dir) => std::env::set_var("TMPDIR", dir),
                None => std::env::remove_var("TMPDIR"),
            }
        }
        let settings = KernelSettings {
            temp_size: Some(4 << 20),
            ..settings(ws.path(), SandboxMode::BestEffort)
        };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(CommandExecKernel::new(settings));
        });
        let k = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| {
                panic!("a kernel did not start beside what uid {NOBODY} planted (TMPDIR {base:?})")
            })
            .unwrap();
        let tmp = tmpdir_of(&k);
        let r = k.run(&sh("echo x > \"$TMPDIR/f\" && cat \"$TMPDIR/f\""));
        assert_eq!(r.output, "x\n", "{}", r.text());
        tmpdirs.push(tmp.clone());
        if let Some(base) = base {
            assert_eq!(
                tmp.parent(),
                Some(base.canonicalize().unwrap().as_path()),
                "{}",
                tmp.display()
            );
        }
        drop(k);
        assert!(!tmp.exists(), "{} outlived its kernel", tmp.display());
    }
    let seen = watch.seen();
    let left: Vec<_> = planted
        .iter()
        .filter(|p| std::fs::symlink_metadata(p).is_err())
        .collect();
    for p in planted.iter().chain([&theirs]) {
        if std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()) {
            let _ = std::fs::remove_dir(p);
        } else {
            let _ = std::fs::remove_file(p);
        }
    }
    assert_eq!(
        seen,
        [],
        "something uid {NOBODY} planted was opened or changed"
    );
    assert!(left.is_empty(), "removed: {left:?}");
}

/// An agent killed with `SIGKILL` runs no cleanup: its tmpfs goes with its namespace, but
/// the empty folder it covered stays. The next kernel that makes its mount point in
/// `/dev/shm` removes those of agents no longer running, and nothing of a running one, in
/// this PID namespace or another (whose kernels hold a lock on theirs).
#[test]
fn mount_points_of_agents_gone_are_swept_from_dev_shm() {
    if !in_own_process(
        module_path!(),
        "mount_points_of_agents_gone_are_swept_from_dev_shm",
    ) {
        return;
    }
    // SAFETY: this test runs alone in its own process; the kernel reads it once.
    unsafe { std::env::remove_var("TMPDIR") };
    // A pid that no process has any more: a child's, once reaped.
    let gone = std::process::Command::new("true")
        .spawn()
        .and_then(|mut c| c.wait().map(|_| c.id()))
        .unwrap();
    let Some(own) = own_shm_folder() else {
        return;
    };
    let stale = own.join(format!("nanotool-{gone}-5eed0000-0"));
    let alive = own.join(format!("nanotool-{}-5eed0000-7", std::process::id()));
    let stale_not_empty = own.join(format!("nanotool-{gone}-5eed0000-1"));
    let not_ours = own.join(format!("nanotool-{gone}-notours"));
    // An agent in another PID namespace sharing `/dev/shm` (its pid unseen here): its kernel
    // holds a shared lock on its folder.
    let elsewhere = own.join(format!("nanotool-{gone}-5eed0000-2"));
    for dir in [&stale, &alive, &stale_not_empty, &not_ours, &elsewhere] {
        if std::fs::create_dir(dir).is_err() {
            eprintln!("/dev/shm cannot hold a folder here");
            return;
        }
    }
    std::fs::write(stale_not_empty.join("f"), "x").unwrap();
    let held = std::fs::File::open(&elsewhere).unwrap();
    // SAFETY: flock on an fd this test owns.
    assert_eq!(
        unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&held), libc::LOCK_SH) },
        0
    );
    let ws = tempfile::tempdir().unwrap();
    let Some(k) = tmpfs_kernel(ws.path(), 4 << 20, false) else {
        return;
    };
    let in_shm = tmpdir_of(&k).starts_with(PathBuf::from("/dev/shm").canonicalize().unwrap());
    let left = |dir: &PathBuf| dir.exists();
    let (stale_left, alive_left, full_left, odd_left, held_left) = (
        left(&stale),
        left(&alive),
        left(&stale_not_empty),
        left(&not_ours),
        left(&elsewhere),
    );
    drop(held);
    let _ = std::fs::remove_file(stale_not_empty.join("f"));
    for dir in [&stale, &alive, &stale_not_empty, &not_ours, &elsewhere] {
        let _ = std::fs::remove_dir(dir);
    }
    if !in_shm {
        eprintln!("the mount point is not made in /dev/shm here");
        return;
    }
    assert!(!stale_left, "{} outlived the sweep", stale.display());
    assert!(alive_left, "a running agent's folder was removed");
    assert!(full_left, "a folder with something in it was removed");
    assert!(
        odd_left,
        "a folder not named as the kernel names them was removed"
    );
    assert!(held_left, "a folder another kernel holds was removed");
}

/// Where the agent may not mount (an ordinary user), the temp dir stays on disk, the limits
/// line says why, and calls still use it.
#[test]
fn an_agent_that_may_not_mount_keeps_the_temp_dir_on_disk_and_says_so() {
    if !in_own_process(
        module_path!(),
        "an_agent_that_may_not_mount_keeps_the_temp_dir_on_disk_and_says_so",
    ) {
        return;
    }
    become_user(12345);
    let ws = tempfile::tempdir().unwrap();
    let k = kernel(ws.path(), SandboxMode::BestEffort);
    let status = k.limits_status().to_string();
    assert!(
        status.contains(
            "temp dir: on disk, not bounded in size (mounting a tmpfs needs a root agent)"
        ),
        "{status}"
    );
    let r = k.run(&sh("echo x > \"$TMPDIR/f\" && cat \"$TMPDIR/f\""));
    assert_eq!(r.output, "x\n", "{}", r.text());
    assert!(
        command_tmpdir(&k, nanotool_runtime::Access::READ_ONLY)
            .join("f")
            .is_file()
    );
}

/// A size or limit out of range is refused when the kernel is built, naming the setting.
#[test]
fn a_temp_size_or_limit_out_of_range_is_refused() {
    let ws = tempfile::tempdir().unwrap();
    let refused = |settings: KernelSettings, field: &str, range: &str| {
        let e = CommandExecKernel::new(settings).unwrap_err().to_string();
        assert!(e.contains(field) && e.contains(range), "{e}");
    };
    for size in [0, 4096, 2 << 40] {
        let s = KernelSettings {
            temp_size: Some(size),
            ..settings(ws.path(), SandboxMode::BestEffort)
        };
        refused(s, "temp_size", "1 MiB to 1 TiB");
    }
    let with = |limits: Limits| KernelSettings {
        limits,
        ..settings(ws.path(), SandboxMode::BestEffort)
    };
    let base = Limits::default;
    let cases = [
        (
            Limits {
                processes: Some(2),
                ..base()
            },
            "processes",
            "8 to 4194304",
        ),
        (
            Limits {
                memory: Some(4096),
                ..base()
            },
            "memory",
            "1 MiB to 1 TiB",
        ),
        (
            Limits {
                open_files: Some(3),
                ..base()
            },
            "open_files",
            "16 to 1048576",
        ),
        (
            Limits {
                cpu_time: Some(Duration::from_millis(200)),
                ..base()
            },
            "cpu_time",
            "1 to 86400",
        ),
    ];
    for (limits, field, range) in cases {
        refused(with(limits), field, range);
    }
}

/// Says when the sandbox could not confine `r` (the tmpfs holds either way: it is the
/// commands' mount namespace, not Landlock).
fn confined_or_say(k: &CommandExecKernel, r: &nanotool_runtime::ExecResult) {
    if !r.confined {
        eprintln!("not confined here: {}", k.sandbox_status());
    }
}

/// A host whose temp dir is on a `noexec` file system keeps commands from running programs
/// from their `TMPDIR` too; elsewhere they may (build tools do).
#[test]
fn the_tmpfs_is_noexec_where_the_hosts_temp_dir_is() {
    if !in_own_process(
        module_path!(),
        "the_tmpfs_is_noexec_where_the_hosts_temp_dir_is",
    ) {
        return;
    }
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("needs a root agent: only root mounts the tmpfs");
        return;
    }
    // This process's own copy of the mount table, where two temp dirs are mounted: one
    // `noexec`, one not (nothing here reaches the host's mounts).
    // SAFETY: unshare and mount of this thread's own namespace, with NUL-terminated strings.
    unsafe {
        assert_eq!(libc::unshare(libc::CLONE_NEWNS), 0);
        let root = c"/";
        assert_eq!(
            libc::mount(
                std::ptr::null(),
                root.as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null()
            ),
            0
        );
    }
    let base = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    for noexec in [true, false] {
        let dir = base.path().join(if noexec { "noexec" } else { "exec" });
        std::fs::create_dir(&dir).unwrap();
        let c_dir = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
        let flags = if noexec { libc::MS_NOEXEC } else { 0 };
        // SAFETY: mount with NUL-terminated strings, in this process's own namespace.
        let mounted = unsafe {
            libc::mount(
                c"tmpfs".as_ptr(),
                c_dir.as_ptr(),
                c"tmpfs".as_ptr(),
                flags,
                std::ptr::null(),
            )
        };
        assert_eq!(mounted, 0, "{}", std::io::Error::last_os_error());
        // SAFETY: this test runs alone in its own process; the kernel reads it once.
        unsafe { std::env::set_var("TMPDIR", &dir) };
        let Some(k) = tmpfs_kernel(ws.path(), 4 << 20, false) else {
            return;
        };
        assert!(tmpdir_of(&k).starts_with(&dir));
        let r = k.run(&sh(
            "cp /bin/true \"$TMPDIR/t\" && \"$TMPDIR/t\" && echo ran",
        ));
        if noexec {
            assert!(
                r.output.contains("Permission denied") && !r.output.contains("ran"),
                "{}",
                r.text()
            );
        } else {
            assert_eq!(r.output, "ran\n", "{}", r.text());
        }
    }
}
