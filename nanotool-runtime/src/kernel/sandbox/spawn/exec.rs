//! What the child runs, its step 6: argv and environment blocks as `execve` takes them
//! ([`CStrings`], prepared by the parent); in a PID namespace with a reaper, the reaper from
//! its memfd (`reaper`), which starts the command as its child; else, or where the reaper's
//! `execveat` is refused, the command itself; no signal blocked, then `execve`.

use super::signals;
use super::step::Step;
use std::ffi::{CString, OsString, c_char};
use std::io;
use std::sync::atomic::{AtomicI32, Ordering};

/// A NUL-terminated array of C strings (argv or an environment), ready for `execve`.
pub(crate) struct CStrings {
    _owned: Vec<CString>,
    /// A pointer to each string, then null.
    pub(super) ptrs: Vec<*const c_char>,
}

// SAFETY: `ptrs` points into `_owned`, which is never changed after construction and moves
// with it (a CString's bytes live on the heap).
unsafe impl Send for CStrings {}
// SAFETY: as above; nothing is mutated through a shared reference.
unsafe impl Sync for CStrings {}

impl std::fmt::Debug for CStrings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(&self._owned).finish()
    }
}

impl CStrings {
    /// From byte strings; one holding a NUL byte is an error naming it.
    pub(crate) fn new<I, B>(items: I) -> io::Result<CStrings>
    where
        I: IntoIterator<Item = B>,
        B: Into<Vec<u8>>,
    {
        let owned = super::super::c_strings::c_strings(items)?;
        let mut ptrs: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
        ptrs.push(std::ptr::null());
        Ok(CStrings {
            _owned: owned,
            ptrs,
        })
    }

    /// An environment block: `KEY=VALUE` strings.
    pub(crate) fn env(vars: &[(OsString, OsString)]) -> io::Result<CStrings> {
        CStrings::new(super::super::c_strings::env_entries(vars))
    }

    /// The array as `execve` takes it.
    pub(super) fn as_ptr(&self) -> *const *const c_char {
        self.ptrs.as_ptr()
    }
}

/// Whether the reaper runs here (cleared, by the child in the memory it shares with the agent,
/// the first time its `execveat` is refused: the command is then pid 1 from that start on).
pub(super) static REAPER_WORKS: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(true);
/// The errno of that refusal.
pub(super) static REAPER_ERRNO: AtomicI32 = AtomicI32::new(0);

/// Step 6: with a reaper (`reaper`: its image at fd 4, its record pipe at 3), the reaper, which
/// starts the command as its child with nothing blocked; where its `execveat` is refused, the
/// command itself, as pid 1, from then on. No signal blocked, then `execve` of `program` with
/// `argv` and `envp` (the reaper's argv: `reaper_argv`). Returns only when the `execve`
/// failed: [`Step::Exec`], with its errno.
///
/// # Safety
/// The spawn child's only: raw system calls; the pointers are NUL-terminated strings and
/// NULL-terminated arrays the parent keeps alive.
pub(super) unsafe fn run(
    reaper: bool,
    program: *const c_char,
    argv: *const *const c_char,
    envp: *const *const c_char,
    reaper_argv: *const *const c_char,
) -> Step {
    // SAFETY (each call): raw system calls on this child's own state, with arguments the
    // parent prepared and keeps alive.
    unsafe {
        // The reaper, which starts the command as its child with nothing blocked; where its
        // `execveat` is refused, the command itself, as pid 1, from then on.
        if reaper {
            libc::syscall(
                libc::SYS_execveat,
                4,
                c"".as_ptr(),
                reaper_argv,
                envp,
                libc::AT_EMPTY_PATH,
            );
            // Linux 5.10 answers `execveat` of a memfd by fd with ENOENT, and runs it by its
            // /proc path (which Landlock, from 5.13, would refuse; there the fd serves).
            if *libc::__errno_location() == libc::ENOENT {
                libc::syscall(
                    libc::SYS_execve,
                    c"/proc/self/fd/4".as_ptr(),
                    reaper_argv,
                    envp,
                );
            }
            REAPER_ERRNO.store(*libc::__errno_location(), Ordering::Relaxed);
            REAPER_WORKS.store(false, Ordering::Relaxed);
            libc::syscall(libc::SYS_close, 3);
            libc::syscall(libc::SYS_close, 4);
        }
        signals::unblock_all();
        libc::syscall(libc::SYS_execve, program, argv, envp);
    }
    Step::Exec
}
