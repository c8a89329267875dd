//! A child's birth: `clone3` with `CLONE_INTO_CGROUP` into the call's cgroup where the kernel
//! and any filter allow it, else the plain `clone`, with the pidfd from the clone itself
//! (`CLONE_PIDFD`); the trials that tell which works ([`clone_into_works`], [`try_namespace`]);
//! [`in_child_process`], the same kind of child for work done once; and [`reap`].

use super::child::{ChildArgs, child};
use super::signals;
use std::ffi::{c_int, c_void};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::sync::atomic::Ordering;

/// Whether `clone` takes `CLONE_PIDFD` here (cleared on the first kernel that refuses it).
static CLONE_PIDFD_WORKS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Whether `clone3` with `CLONE_INTO_CGROUP` works here (cleared on the first kernel or filter
/// that refuses it: [`clone3_unsupported`]).
static CLONE3_WORKS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Starts the spawn child ([`child`]) on `args`, in new namespaces `ns_flags`: into the
/// call's cgroup `cgroup` with `clone3` where it takes it; else (and from then on, where the
/// kernel or a filter refuses `clone3`) the plain clone, in the agent's cgroup. Every signal
/// is blocked meanwhile. Returns the child's pid and, where the kernel gives one with the
/// clone, its pidfd; `Err` when no clone could start it.
pub(super) fn birth(
    args: &ChildArgs,
    cgroup: Option<BorrowedFd<'_>>,
    ns_flags: c_int,
) -> io::Result<(libc::pid_t, Option<OwnedFd>)> {
    // The child's stack: allocated, never initialised (the child writes before it reads).
    let mut stack: Vec<u8> = Vec::with_capacity(CHILD_STACK);
    // Block every signal (glibc's own included) while the child shares our memory: the
    // child unblocks once its handlers are back to their defaults.
    let old = signals::block_all();
    let base = libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD | ns_flags;
    let mut pidfd: c_int = -1;
    // Into the call's cgroup where `clone3` takes it; else (and from then on, where the
    // kernel or a filter refuses `clone3`) the plain clone, in the agent's cgroup.
    let mut in_cgroup = false;
    let mut into = (-1, None);
    if let Some(cgroup) = cgroup
        && CLONE3_WORKS.load(Ordering::Relaxed)
    {
        let (pid, e) = clone3_into(
            cgroup,
            (libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_PIDFD | ns_flags) as u32 as u64,
            &mut stack,
            child,
            (args as *const ChildArgs).cast_mut().cast::<c_void>(),
            &mut pidfd,
        );
        let errno = e.raw_os_error().unwrap_or(0);
        if pid >= 0 {
            in_cgroup = true;
            into = (pid, Some(e));
        } else if clone3_unsupported(errno) {
            CLONE3_WORKS.store(false, Ordering::Relaxed);
        } else if !falls_back(errno) {
            // No memory, too many processes: the start's error, as it would be for `clone`.
            into = (-1, Some(e));
        }
    }
    let mut clone = |flags: c_int, pidfd: &mut c_int| {
        // SAFETY: `child` runs on `stack` (its top is passed; it grows down) and reads `args`,
        // which outlive it: with CLONE_VFORK this thread resumes only after the child's
        // `execve` or exit. The child makes raw system calls only. With CLONE_PIDFD the
        // kernel writes the pidfd to `pidfd` (the parent_tid argument).
        let pid = unsafe {
            libc::clone(
                child,
                stack.as_mut_ptr().add(stack.capacity()).cast(),
                flags,
                (args as *const ChildArgs).cast_mut().cast::<c_void>(),
                pidfd as *mut c_int,
            )
        };
        (pid, io::Error::last_os_error())
    };
    let with_pidfd = CLONE_PIDFD_WORKS.load(Ordering::Relaxed);
    let (mut pid, mut clone_error) = if let (pid, Some(e)) = into {
        (pid, e)
    } else if with_pidfd {
        clone(base | libc::CLONE_PIDFD, &mut pidfd)
    } else {
        (-1, io::Error::from_raw_os_error(libc::EINVAL))
    };
    if !in_cgroup && pid < 0 && clone_error.raw_os_error() == Some(libc::EINVAL) {
        // A kernel without CLONE_PIDFD (before 5.2), or one refusing it with these flags.
        if with_pidfd {
            CLONE_PIDFD_WORKS.store(false, Ordering::Relaxed);
        }
        pidfd = -1;
        (pid, clone_error) = clone(base, &mut pidfd);
    }
    signals::restore(old);
    drop(stack);
    if pid < 0 {
        return Err(clone_error);
    }
    // SAFETY: a kernel that took CLONE_PIDFD wrote a fresh fd that nobody else owns (an old
    // kernel that ignored the flag left -1).
    let pidfd = (pidfd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(pidfd) });
    Ok((pid, pidfd))
}

/// `CLONE_INTO_CGROUP` (Linux 5.7): the child starts in the cgroup of `clone_args.cgroup`.
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;

/// The kernel's `struct clone_args` up to `cgroup` (`CLONE_ARGS_SIZE_VER2`, 88 bytes).
#[repr(C)]
#[derive(Default)]
struct CloneArgs {
    flags: u64,
    pidfd: u64,
    child_tid: u64,
    parent_tid: u64,
    exit_signal: u64,
    stack: u64,
    stack_size: u64,
    tls: u64,
    set_tid: u64,
    set_tid_size: u64,
    cgroup: u64,
}

/// A refusal that says `clone3` is not to be had in this process at all: no `clone3` (before
/// 5.3, or a filter's `ENOSYS`), a `struct clone_args` too large for the kernel. The plain
/// clone serves every later start. An `EINVAL` or `EPERM` (a flag this start adds, a
/// namespace the host's policy refuses now, one thread's filter) falls back for this start
/// only: the kernel's trial at build time already showed `CLONE_INTO_CGROUP` itself works.
fn clone3_unsupported(errno: c_int) -> bool {
    matches!(errno, libc::ENOSYS | libc::E2BIG)
}

/// Whether a start that `clone3` refused with `errno` is tried again with the plain clone
/// (outside the cgroup): any refusal but a lack of memory or processes, which the plain
/// clone would meet too.
fn falls_back(errno: c_int) -> bool {
    !matches!(errno, libc::EAGAIN | libc::ENOMEM)
}

/// `clone3` with `flags` (no signal bits: `SIGCHLD` goes in `exit_signal`) into `cgroup`: the
/// child runs `f(arg)` on `stack` and exits with what it returns; with `CLONE_PIDFD` the
/// pidfd lands in `pidfd`. Returns the child's pid, or -1 and the error.
fn clone3_into(
    cgroup: BorrowedFd<'_>,
    flags: u64,
    stack: &mut Vec<u8>,
    f: extern "C" fn(*mut c_void) -> c_int,
    arg: *mut c_void,
    pidfd: &mut c_int,
) -> (libc::pid_t, io::Error) {
    let base = stack.as_mut_ptr() as usize;
    // The top, 16-byte aligned as both ABIs want it at a call.
    let top = (base + stack.capacity()) & !15;
    let mut args = CloneArgs {
        flags: flags | CLONE_INTO_CGROUP,
        pidfd: pidfd as *mut c_int as u64,
        exit_signal: libc::SIGCHLD as u64,
        stack: base as u64,
        stack_size: (top - base) as u64,
        cgroup: cgroup.as_raw_fd() as u64,
        ..CloneArgs::default()
    };
    // SAFETY: `args` describes a stack this frame owns (the parent is suspended until the
    // child execs or exits: CLONE_VFORK) and a pidfd slot that outlives the call.
    let ret = unsafe { raw_clone3(&mut args, f, arg) };
    if ret < 0 {
        (-1, io::Error::from_raw_os_error((-ret) as c_int))
    } else {
        (ret as libc::pid_t, io::Error::from_raw_os_error(0))
    }
}

/// The `clone3` system call, the child's side included: libc has no wrapper, and a child
/// that shares the parent's memory must not return into the parent's frames, so the child
/// calls `f(arg)` on its new stack and exits with its value. Returns the pid or `-errno`
/// (`-ENOSYS` on an architecture without the sequence below: the plain clone then starts
/// commands, in the agent's cgroup).
///
/// # Safety
/// `args` is valid; its stack is free for the child to use; `f` makes raw system calls only.
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(unused_variables, reason = "no clone3 sequence for this architecture")
)]
unsafe fn raw_clone3(
    args: &mut CloneArgs,
    f: extern "C" fn(*mut c_void) -> c_int,
    arg: *mut c_void,
) -> libc::c_long {
    let size = std::mem::size_of::<CloneArgs>();
    // x86_64: `syscall` keeps every register but rax, rcx and r11; the child starts on its
    // own stack with the parent's registers (rax 0).
    // SAFETY: see the function's contract.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        let ret: libc::c_long;
        std::arch::asm!(
            "syscall",
            "test rax, rax",
            "jnz 2f",
            "mov rdi, r13",
            "call r12",
            "mov edi, eax",
            "mov eax, {exit}",
            "syscall",
            "ud2",
            "2:",
            exit = const libc::SYS_exit,
            inlateout("rax") libc::SYS_clone3 => ret,
            in("rdi") args as *mut CloneArgs,
            in("rsi") size,
            in("r12") f,
            in("r13") arg,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
        ret
    }
    // aarch64: `svc` keeps every register but x0.
    // SAFETY: as for x86_64.
    #[cfg(target_arch = "aarch64")]
    unsafe {
        let ret: libc::c_long;
        std::arch::asm!(
            "svc 0",
            "cbnz x0, 2f",
            "mov x0, x10",
            "blr x9",
            "mov x8, {exit}",
            "svc 0",
            "brk 0",
            "2:",
            exit = const libc::SYS_exit,
            inlateout("x0") args as *mut CloneArgs => ret,
            in("x1") size,
            in("x8") libc::SYS_clone3,
            in("x9") f,
            in("x10") arg,
            options(nostack),
        );
        ret
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    -(libc::ENOSYS as libc::c_long)
}

/// Tries a start into `cgroup` the way commands start (`clone3`, `CLONE_INTO_CGROUP`) with a
/// child that exits at once: whether this kernel, and any filter on this thread, allow it.
pub(crate) fn clone_into_works(cgroup: BorrowedFd<'_>) -> io::Result<()> {
    if !CLONE3_WORKS.load(Ordering::Relaxed) {
        return Err(io::Error::other(
            "clone3 was refused before in this process",
        ));
    }
    let mut stack: Vec<u8> = Vec::with_capacity(CHILD_STACK);
    let mut pidfd: c_int = -1;
    let old = signals::block_all();
    let (pid, e) = clone3_into(
        cgroup,
        (libc::CLONE_VM | libc::CLONE_VFORK) as u64,
        &mut stack,
        trial_child,
        std::ptr::null_mut(),
        &mut pidfd,
    );
    signals::restore(old);
    drop(stack);
    if pid < 0 {
        return Err(e);
    }
    let _ = reap(pid);
    Ok(())
}

/// Starts a child in new namespaces (`flags`) that exits at once: whether the host lets this
/// process make them.
pub(super) fn try_namespace(flags: c_int) -> Result<(), String> {
    // SAFETY: `trial_child` makes one raw system call (exit) and reads no argument.
    unsafe { in_child_process(trial_child, std::ptr::null_mut(), flags) }
        .map_err(|e| format!("clone refused it ({e})"))
}

/// The namespace trial's child: exits at once (the clone is what is tried).
extern "C" fn trial_child(_arg: *mut c_void) -> c_int {
    // SAFETY: exit(2) of this child.
    unsafe { libc::syscall(libc::SYS_exit, 0) };
    0
}

/// Runs `child(arg)` in a child process that shares this process's memory
/// (`CLONE_VM | CLONE_VFORK`, and `flags`: `CLONE_FILES` to share the file table, namespace
/// flags to start it in new ones) and waits for it: what it changes of its own (its mount
/// namespace, say) is not the agent's. Far lighter than a thread (no stack mapped for it, no
/// allocator arena, no thread-local set-up): for work done once in a state the agent must
/// not enter. It sends no `SIGCHLD` (a "clone" child, reaped with `__WCLONE`), so a host's
/// handler or `waitpid(-1)` neither sees nor takes it. `Err` when the clone is refused.
///
/// # Safety
///
/// `child` runs on this process's memory while this thread waits: it may make raw system
/// calls only (no allocation, no lock, no libc function that keeps state), report through
/// `arg` (valid for it to use as it does), and end with `exit`.
pub(crate) unsafe fn in_child_process(
    child: extern "C" fn(*mut c_void) -> c_int,
    arg: *mut c_void,
    flags: c_int,
) -> io::Result<()> {
    let mut stack: Vec<u8> = Vec::with_capacity(CHILD_STACK);
    // As in a start: no host handler may run in a child on our memory.
    let old = signals::block_all();
    // SAFETY: the child runs on `stack`, alive until it exits (`CLONE_VFORK` holds this
    // thread until then), and keeps to what the caller promised.
    let pid = unsafe {
        libc::clone(
            child,
            stack.as_mut_ptr().add(stack.capacity()).cast(),
            libc::CLONE_VM | libc::CLONE_VFORK | flags,
            arg,
        )
    };
    let clone_error = io::Error::last_os_error();
    signals::restore(old);
    drop(stack);
    if pid < 0 {
        return Err(clone_error);
    }
    // It has exited; only its zombie is left.
    loop {
        let mut status = 0;
        // SAFETY: waits for our own clone child; `status` is a valid int.
        if unsafe { libc::waitpid(pid, &mut status, libc::__WCLONE) } >= 0
            || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted
        {
            return Ok(());
        }
    }
}

pub(in crate::kernel) use super::super::super::sys_posix::reap;

/// The child's stack: it calls nothing deep (system calls and small loops).
const CHILD_STACK: usize = 64 * 1024;
