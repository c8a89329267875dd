//! Signals and process hardening: every `unsafe` of the binary lives here.
//!
//! - [`make_non_dumpable`]: no command (same user) can read this process's memory or
//!   environment through `/proc`.
//! - [`SignalWatch`]: SIGINT, SIGTERM and SIGHUP caught by a handler that only writes a byte to
//!   a pipe; a thread reads it and cancels the running calls, so their process groups die
//!   with nanotool instead of being orphaned.
//! - [`cancel_on_signal`]: the same signals, for one call, cancel it from the handler itself:
//!   no thread.
#![allow(unsafe_code)] // this module is where the binary's `unsafe` lives.

use std::io;

/// Makes this process non-dumpable, so no tool it runs (same user) can read its
/// `/proc/<pid>/environ` or `mem`: the host's secrets stay out of reach.
pub(crate) fn make_non_dumpable() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(PR_SET_DUMPABLE) takes plain integers and touches no memory of ours.
        let rc = unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
        if rc != 0 {
            tracing::warn!(
                "prctl(PR_SET_DUMPABLE, 0) failed: {}",
                io::Error::last_os_error()
            );
        }
    }
}

/// The write end of the signal pipe, for the handler (`-1`: none yet).
static SIGNAL_PIPE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// The handle [`cancel_on_signal`] fires, and the first signal's number (0: none yet).
static CANCEL: std::sync::OnceLock<nanotool::CancelHandle> = std::sync::OnceLock::new();
static SIGNALLED: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// The handler of [`cancel_on_signal`]: the first signal fires the call's handle (an atomic
/// store and an eventfd `write`, async-signal-safe), a second exits at once.
extern "C" fn cancel_call(signal: libc::c_int) {
    use std::sync::atomic::Ordering;
    if SIGNALLED
        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        // SAFETY: _exit(2) is async-signal-safe and never returns.
        unsafe { libc::_exit(128 + signal) };
    }
    if let Some(cancel) = CANCEL.get() {
        with_errno_kept(|| cancel.cancel());
    }
}

/// For one call (`nanotool call`): SIGINT, SIGTERM and SIGHUP (those not ignored on entry)
/// fire `cancel` from the handler, so the call's process group dies with nanotool; a second
/// signal exits at once. No thread: [`nanotool::CancelHandle::cancel`] may run in a handler.
/// Returns the first signal's number once one came (0 before); `None` when a handler could
/// not be installed (a signal then ends nanotool as it would have without it).
pub(crate) fn cancel_on_signal(
    cancel: nanotool::CancelHandle,
) -> Option<&'static std::sync::atomic::AtomicI32> {
    if CANCEL.set(cancel).is_err() {
        return None;
    }
    install(cancel_call).map(|_| &SIGNALLED)
}

/// Runs `f`, then puts back the calling thread's `errno` as it was, so the code a handler
/// interrupted sees its own.
fn with_errno_kept(f: impl FnOnce()) {
    let errno = errno_location();
    // SAFETY: reads and writes the thread's errno slot, which `errno_location` returned.
    let saved = errno.map(|e| unsafe { *e });
    f();
    if let (Some(e), Some(saved)) = (errno, saved) {
        // SAFETY: as above.
        unsafe { *e = saved };
    }
}

/// The handler of SIGINT, SIGTERM and SIGHUP: writes the signal's number to the pipe (a
/// `write` is async-signal-safe), for the watching thread to act on.
extern "C" fn note_signal(signal: libc::c_int) {
    let fd = SIGNAL_PIPE.load(std::sync::atomic::Ordering::Relaxed);
    if fd >= 0 {
        let byte = signal as u8;
        // SAFETY: write(2) on a pipe fd we own, from a one-byte local.
        with_errno_kept(|| unsafe {
            libc::write(fd, (&byte as *const u8).cast(), 1);
        });
    }
}

/// Where the calling thread's `errno` lives (each libc names it its own way); `None` on a
/// system not listed, where the handler then leaves `errno` as its `write` set it.
fn errno_location() -> Option<*mut libc::c_int> {
    // SAFETY (each arm): returns the thread's errno slot; touches nothing.
    #[cfg(any(target_os = "linux", target_os = "emscripten", target_os = "redox"))]
    return Some(unsafe { libc::__errno_location() });
    #[cfg(any(
        target_vendor = "apple",
        target_os = "freebsd",
        target_os = "dragonfly"
    ))]
    return Some(unsafe { libc::__error() });
    #[cfg(any(target_os = "android", target_os = "netbsd", target_os = "openbsd"))]
    return Some(unsafe { libc::__errno() });
    #[allow(unreachable_code)]
    None
}

/// A pipe whose fds are close-on-exec: at once where the system has `pipe2`, else just after
/// (macOS; the binary makes it at start, before any command runs).
fn cloexec_pipe(fds: &mut [libc::c_int; 2]) -> libc::c_int {
    #[cfg(not(target_vendor = "apple"))]
    // SAFETY: pipe2 writes two fds into the array.
    return unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    #[cfg(target_vendor = "apple")]
    // SAFETY: pipe writes two fds into the array; F_SETFD on the fds it made.
    unsafe {
        if libc::pipe(fds.as_mut_ptr()) != 0 {
            return -1;
        }
        for fd in *fds {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        }
        0
    }
}

/// SIGINT, SIGTERM and SIGHUP caught by a handler that wakes one thread, so that a signal
/// cancels the running calls (killing their process groups, which the terminal's or
/// client's signal does not reach) instead of leaving them orphaned.
///
/// A handler, not a blocked mask and `sigwait`: a blocked mask is inherited through
/// `posix_spawn` and `exec` (std's `Command` passes the spawning thread's mask on, measured
/// with Rust 1.95), so every command would start deaf to SIGTERM (`timeout` could not stop
/// its child, nothing could die of SIGINT). A caught signal goes back to its default action in
/// the child at `exec`, and the child's mask stays empty. A signal ignored on entry (SIGHUP
/// under `nohup`) stays ignored, for nanotool and its commands alike.
pub(crate) struct SignalWatch {
    read: std::os::fd::OwnedFd,
    /// The signals whose handler is ours, with the action each had before.
    installed: Vec<(libc::c_int, libc::sigaction)>,
}

impl SignalWatch {
    /// Opens the pipe and installs the handler for each of the signals not ignored on entry
    /// (under `nohup`, SIGHUP stays ignored). On any failure nothing stays installed.
    pub(crate) fn start() -> Option<Self> {
        use std::os::fd::FromRawFd;
        let mut fds = [-1; 2];
        if cloexec_pipe(&mut fds) != 0 {
            tracing::warn!(
                "no signal pipe ({}); a signal ends nanotool without cancelling calls",
                io::Error::last_os_error()
            );
            return None;
        }
        // SAFETY: fresh fds from pipe2, owned by nobody else.
        let (read, write) = unsafe {
            (
                std::os::fd::OwnedFd::from_raw_fd(fds[0]),
                std::os::fd::OwnedFd::from_raw_fd(fds[1]),
            )
        };
        // The handler must never block: a full pipe drops the byte (one is enough).
        // SAFETY: fcntl on an fd we own.
        unsafe {
            let flags = libc::fcntl(fds[1], libc::F_GETFL);
            libc::fcntl(fds[1], libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        // The write end lives as long as the process: the handler may run at any time.
        SIGNAL_PIPE.store(
            std::os::fd::IntoRawFd::into_raw_fd(write),
            std::sync::atomic::Ordering::SeqCst,
        );
        let installed = install(note_signal)?;
        Some(SignalWatch { read, installed })
    }

    /// Runs `f` with the signal number on a dedicated thread when a signal arrives; a second
    /// signal while `f` runs exits at once. Without a thread, the signals get their old
    /// actions back (a signal then ends nanotool as it would have without the watch).
    pub(crate) fn on_signal(self, f: impl FnOnce(i32) + Send + 'static) {
        let installed = self.installed.clone();
        let read = self.read;
        let spawned = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let mut pipe = std::fs::File::from(read);
                let mut f = Some(f);
                let mut byte = [0u8; 1];
                loop {
                    match std::io::Read::read(&mut pipe, &mut byte) {
                        Ok(1) => {}
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        _ => return,
                    }
                    let signal = i32::from(byte[0]);
                    let Some(f) = f.take() else {
                        std::process::exit(128 + signal);
                    };
                    // A second signal while cancelling: exit now. Without a thread for that,
                    // the loop reads it once `f` returns.
                    if let Ok(mut again) = pipe.try_clone() {
                        let _ = std::thread::Builder::new()
                            .name("signals-again".into())
                            .spawn(move || {
                                let mut byte = [0u8; 1];
                                loop {
                                    match std::io::Read::read(&mut again, &mut byte) {
                                        Ok(1) => std::process::exit(128 + i32::from(byte[0])),
                                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                                        _ => return,
                                    }
                                }
                            });
                    }
                    f(signal);
                }
            });
        if spawned.is_err() {
            SignalWatch::restore_all(&installed);
            tracing::warn!("no signal thread; a signal ends nanotool without cancelling calls");
        }
    }

    /// Puts back each signal's old action (as it was before [`SignalWatch::start`]).
    fn restore_all(installed: &[(libc::c_int, libc::sigaction)]) {
        for (signal, old) in installed {
            // SAFETY: an action sigaction itself returned for this signal.
            unsafe {
                libc::sigaction(*signal, old, std::ptr::null_mut());
            }
        }
    }
}

/// Installs `handler` for SIGINT, SIGTERM and SIGHUP, except those ignored on entry (under
/// `nohup`, SIGHUP stays ignored, for nanotool and its commands alike); returns each signal
/// caught with the action it had. On any failure nothing stays installed.
fn install(handler: extern "C" fn(libc::c_int)) -> Option<Vec<(libc::c_int, libc::sigaction)>> {
    let mut installed = Vec::new();
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: sigaction reads our zeroed, filled-in action and writes the old one into a
        // local; the handlers only call async-signal-safe functions.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut old) != 0 {
                SignalWatch::restore_all(&installed);
                return None;
            }
            if old.sa_sigaction == libc::SIG_IGN {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                tracing::warn!(
                    signal,
                    "cannot catch signal ({}); a signal ends nanotool without cancelling calls",
                    io::Error::last_os_error()
                );
                SignalWatch::restore_all(&installed);
                return None;
            }
            installed.push((signal, old));
        }
    }
    Some(installed)
}
