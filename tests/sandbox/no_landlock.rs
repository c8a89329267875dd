//! A kernel on a machine without Landlock, in a process of its own ([`in_own_process`]): this
//! test blocks Landlock for the whole test process and, when it starts as root, becomes an
//! ordinary user (a command of a root agent is already kept from the agent's files by the
//! capability drop).
//!
//! Without Landlock nothing keeps `/proc` from a command, and a process of the same user may
//! read (and, where ptrace is allowed, write) another's `environ` and `mem`: a kernel that
//! confines makes the agent non-dumpable, which closes those files to everyone but itself.

use crate::common::refuse::refuse_syscalls;
use crate::common::{PYTHON, become_user, in_own_process, kernel};
use nanotool_runtime::SandboxMode;

/// Makes every later Landlock call of this thread (and of what it starts) fail with ENOSYS,
/// as on a kernel built without it.
fn block_landlock() {
    refuse_syscalls(
        &[
            libc::SYS_landlock_create_ruleset,
            libc::SYS_landlock_add_rule,
            libc::SYS_landlock_restrict_self,
        ],
        libc::ENOSYS,
    );
}

#[test]
fn without_landlock_the_agents_proc_files_stay_closed_to_its_commands() {
    if !in_own_process(
        module_path!(),
        "without_landlock_the_agents_proc_files_stay_closed_to_its_commands",
    ) {
        return;
    }
    become_user(65534);
    // SAFETY: a plain call on this process's own state.
    unsafe {
        // A change of user leaves a process non-dumpable: start from what a user's agent is.
        assert_eq!(libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0), 0);
    }
    block_landlock();
    let ws = tempfile::tempdir().unwrap();
    let peek = vec![
        PYTHON.to_owned(),
        "-c".to_owned(),
        "import os\ntry:\n    print(open('/proc/%d/environ' % os.getppid()).read())\nexcept OSError as e:\n    print('refused', e.errno)".to_owned(),
    ];
    // Control first: a kernel with the sandbox off leaves the agent as it is, readable.
    let off = kernel(ws.path(), SandboxMode::Off);
    let r = off.run(&peek);
    // `environ` holds the environment this process started with (cargo's, with its PATH).
    assert!(r.output.contains("PATH="), "control: {r:?}");

    let k = kernel(ws.path(), SandboxMode::BestEffort);
    let status = k.sandbox_status().to_string();
    assert!(status.contains("NOT enforced"), "{status}");
    let r = k.run(&peek);
    assert_eq!(r.output, "refused 13\n", "{r:?}");
    // The seccomp filter still holds for an ordinary user's commands (it needs
    // `no_new_privs`, which only Landlock's trial used to set), and so does the PID
    // namespace that keeps the agent's threads out of reach where the host allows one.
    let r = k.run(&[
        PYTHON.to_owned(),
        "-c".to_owned(),
        "for l in open('/proc/self/status'):\n    if l.startswith(('Seccomp:', 'NoNewPrivs:')): print(l.split()[1])".to_owned(),
    ]);
    assert_eq!(r.output, "1\n2\n", "{r:?}");
}
