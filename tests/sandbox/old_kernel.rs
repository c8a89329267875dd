//! The confined spawn on a kernel without `close_range` (before Linux 5.9), or under a
//! container's filter that refuses it: the child falls back to closing each fd, so a host fd
//! still never reaches a command, and the command still runs.

use crate::common::{PYTHON, kernel, refuse};
use nanotool_runtime::SandboxMode;
use std::os::fd::AsRawFd;

fn host_fd_stays_out_when_close_range_answers(errno: i32) {
    refuse::refuse_syscalls(&[libc::SYS_close_range], errno);
    let ws = tempfile::tempdir().unwrap();
    let kernel = kernel(ws.path(), SandboxMode::BestEffort);
    // An fd the host opened without O_CLOEXEC.
    let file = std::fs::File::open("/dev/zero").unwrap();
    let fd = file.as_raw_fd();
    // SAFETY: clears FD_CLOEXEC on an fd this test owns.
    assert_eq!(unsafe { libc::fcntl(fd, libc::F_SETFD, 0) }, 0);
    let probe = vec![
        PYTHON.to_owned(),
        "-c".to_owned(),
        format!(
            "import os\ntry:\n    os.fstat({fd})\n    print('inherited')\nexcept OSError as e:\n    print('closed', e.errno)"
        ),
    ];
    let r = kernel.run(&probe);
    assert_eq!(
        (r.exit_code, r.output.as_str()),
        (0, format!("closed {}\n", libc::EBADF).as_str()),
        "{r:?}"
    );
    drop(file);
}

#[test]
fn without_close_range_the_child_closes_each_fd() {
    // Each test runs on a thread of its own, and the filter binds that thread alone.
    host_fd_stays_out_when_close_range_answers(libc::ENOSYS);
}

#[test]
fn with_close_range_refused_the_child_closes_each_fd() {
    host_fd_stays_out_when_close_range_answers(libc::EPERM);
}
