//! The spawner thread: one per kernel and profile. It confines itself once — its own fd table
//! with nothing of the host's in it, capabilities dropped, a seccomp filter, a Landlock domain
//! — and then spawns every command of that profile through std's `posix_spawn` path. A child
//! made by `posix_spawn` (clone with `CLONE_VM | CLONE_VFORK`) takes the credentials, the
//! seccomp filter and the fd table of the *thread* that spawned it, so the commands are
//! confined while the rest of the agent is not.
//!
//! The output pipe is made in the spawner's fd table (the child must find its write end
//! there); its read end travels to the caller's table over a unix socket pair (`SCM_RIGHTS`).

use super::rules::{self, Enforced, Profile};
use super::seccomp::{self, FilterSpec};
use crate::kernel::sys;
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};

/// One command to start.
pub(crate) struct Job {
    pub program: PathBuf,
    pub argv0: String,
    pub args: Vec<String>,
    pub cwd: PathBuf,
    pub env: Arc<[(OsString, OsString)]>,
}

/// A started command: the child and the read end of its output pipe (in the caller's table).
pub(crate) struct Spawned {
    pub child: Child,
    pub output: OwnedFd,
}

/// What the spawner thread managed to put in place.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    pub landlock: Result<Enforced, String>,
    pub seccomp: Result<(), String>,
    /// Host fds are out of the commands' reach.
    pub fds_closed: Result<(), String>,
}

struct Channel {
    jobs: mpsc::Sender<Job>,
    replies: mpsc::Receiver<io::Result<Child>>,
    /// Our end of the socket pair: the read ends arrive here.
    socket: OwnedFd,
}

/// A running spawner thread (and its supervisor).
pub(crate) struct Spawner {
    channel: Mutex<Channel>,
    /// Readable when the supervisor must stop.
    stop: Option<OwnedFd>,
    pub setup: Setup,
}

impl std::fmt::Debug for Spawner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spawner")
            .field("setup", &self.setup)
            .finish()
    }
}

impl Drop for Spawner {
    fn drop(&mut self) {
        if let Some(stop) = &self.stop {
            sys::eventfd_fire(stop);
        }
        // Dropping the job sender ends the spawner thread's loop.
    }
}

impl Spawner {
    /// Starts the thread and waits until it has confined itself.
    pub(crate) fn start(profile: Profile, filter: FilterSpec) -> io::Result<Spawner> {
        let (ours, theirs) = socket_pair()?;
        let theirs_raw = theirs.as_raw_fd();
        let (jobs_tx, jobs_rx) = mpsc::channel::<Job>();
        let (replies_tx, replies_rx) = mpsc::channel();
        let (setup_tx, setup_rx) = mpsc::channel::<(Setup, Option<OwnedFd>)>();
        std::thread::Builder::new()
            .name("nanotool-spawner".into())
            .spawn(move || {
                block_signals();
                let (setup, listener) = confine(&profile, filter, &theirs);
                let failed = setup.seccomp.is_err() || setup.fds_closed.is_err();
                if setup_tx.send((setup, listener)).is_err() || failed {
                    return;
                }
                serve(jobs_rx, replies_tx, theirs);
            })?;
        let (setup, listener) = setup_rx.recv().map_err(|_| {
            io::Error::other("the sandbox's spawner thread died while confining itself")
        })?;
        if setup.fds_closed.is_ok() {
            // The thread now holds its own copy of `theirs`; the one in our table is ours to
            // close (its `OwnedFd` went to the thread, where it names the private copy).
            // SAFETY: `theirs_raw` is open in this table and owned by nobody here.
            unsafe { libc::close(theirs_raw) };
        }
        let mut stop = None;
        if let Some(listener) = listener {
            let stop_fd = sys::eventfd()?;
            let theirs_stop = stop_fd.try_clone()?;
            let pgid = filter.agent_pgid;
            std::thread::Builder::new()
                .name("nanotool-sandbox-supervisor".into())
                .spawn(move || {
                    block_signals();
                    seccomp::supervise(listener, pgid, theirs_stop)
                })?;
            stop = Some(stop_fd);
        }
        Ok(Spawner {
            channel: Mutex::new(Channel {
                jobs: jobs_tx,
                replies: replies_rx,
                socket: ours,
            }),
            stop,
            setup,
        })
    }

    /// Starts one command in the confined thread.
    pub(crate) fn spawn(&self, job: Job) -> io::Result<Spawned> {
        let gone = || io::Error::other("the sandbox's spawner thread is gone");
        // One request at a time: the read end that arrives on the socket is this job's.
        let channel = self.channel.lock().unwrap_or_else(|p| p.into_inner());
        channel.jobs.send(job).map_err(|_| gone())?;
        let child = channel.replies.recv().map_err(|_| gone())??;
        let output = recv_fd(&channel.socket)?;
        Ok(Spawned { child, output })
    }
}

/// The thread's confinement, in order: no_new_privs, capabilities, seccomp (with its
/// listener made in the shared fd table, for the supervisor), a private fd table with nothing
/// but stdio and the socket, then Landlock.
fn confine(profile: &Profile, filter: FilterSpec, keep: &OwnedFd) -> (Setup, Option<OwnedFd>) {
    // SAFETY: prctl with constant arguments, affecting the calling thread only.
    unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) };
    drop_capabilities();
    let mut listener = None;
    let seccomp = (|| {
        let prog = seccomp::program(&filter).map_err(|e| format!("seccomp: {e}"))?;
        match seccomp::install(&prog, filter.notify_setpgid) {
            Ok(l) => {
                listener = l;
                Ok(())
            }
            // A kernel without user notification (before 5.0): the same rules, with
            // `setpgid(0, 0)` allowed outright (documented: a descendant can then leave the
            // call's group, though not its session).
            Err(e) if filter.notify_setpgid && e.raw_os_error() == Some(libc::EINVAL) => {
                let plain = FilterSpec {
                    notify_setpgid: false,
                    ..filter
                };
                let prog = seccomp::program(&plain).map_err(|e| format!("seccomp: {e}"))?;
                seccomp::install(&prog, false)
                    .map(|_| ())
                    .map_err(|e| format!("seccomp: {e}"))
            }
            Err(e) => Err(format!("seccomp: {e}")),
        }
    })();
    let fds_closed = private_fd_table(keep.as_raw_fd()).map_err(|e| format!("fd table: {e}"));
    let landlock = rules::restrict_thread(profile);
    (
        Setup {
            landlock,
            seccomp,
            fds_closed,
        },
        listener,
    )
}

fn serve(jobs: mpsc::Receiver<Job>, replies: mpsc::Sender<io::Result<Child>>, socket: OwnedFd) {
    for job in jobs {
        let reply = start(job, &socket);
        if replies.send(reply).is_err() {
            return;
        }
    }
}

fn start(job: Job, socket: &OwnedFd) -> io::Result<Child> {
    let (read_end, write_end) = sys::pipe()?;
    let write_dup = write_end.try_clone()?;
    let mut command = Command::new(&job.program);
    command
        .arg0(&job.argv0)
        .args(&job.args)
        .current_dir(&job.cwd)
        .env_clear()
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::from(write_end))
        .stderr(Stdio::from(write_dup))
        .process_group(0);
    // A command starts with the spawning thread's signal mask (std's `posix_spawn` sets none
    // of its own), and it must start with nothing blocked: unblock for the spawn alone. glibc
    // blocks every signal in this thread while it clones, so the window in which a host
    // handler could run here is a few instructions on each side.
    set_signal_mask(false);
    let spawned = command.spawn();
    set_signal_mask(true);
    // The command holds the pipe's write ends: without this drop, EOF would never come.
    drop(command);
    let mut child = spawned?;
    if let Err(e) = send_fd(socket, &read_end) {
        // The caller cannot read this child's output: do not leave it running.
        let _ = child.kill();
        let _ = child.wait();
        return Err(e);
    }
    Ok(child)
}

/// Blocks every signal in the calling thread, so that the host's handlers never run here:
/// this thread's fd table is not the host's (a handler that writes to a pipe would write to
/// nothing), and the process's signals go to the host's own threads.
fn block_signals() {
    set_signal_mask(true);
}

/// Blocks every signal (`true`) or none (`false`) in the calling thread.
fn set_signal_mask(block_all: bool) {
    // SAFETY: a zeroed sigset filled by sigfillset or sigemptyset, applied to this thread.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        if block_all {
            libc::sigfillset(&mut set);
        } else {
            libc::sigemptyset(&mut set);
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
    }
}

/// Gives this thread its own fd table holding only `keep` and /dev/null as 0, 1 and 2.
fn private_fd_table(keep: RawFd) -> io::Result<()> {
    const CLOSE_RANGE_UNSHARE: libc::c_uint = 1 << 1;
    let close_range = |first: u32, last: u32, flags: libc::c_uint| -> io::Result<()> {
        // SAFETY: close_range only closes fds in this thread's table.
        let r = unsafe { libc::syscall(libc::SYS_close_range, first, last, flags) };
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    };
    let keep = keep as u32;
    close_range(keep + 1, u32::MAX, CLOSE_RANGE_UNSHARE)?;
    if keep > 3 {
        close_range(3, keep - 1, 0)?;
    }
    // Nor does this table hold the host's stdio open (a host that closes its stdout to signal
    // EOF must not be kept from it): 0, 1 and 2 become /dev/null. Commands get their own.
    let null = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")?;
    for fd in 0..3 {
        // SAFETY: dup2 onto 0, 1, 2 of this thread's private table.
        if unsafe { libc::dup2(null.as_raw_fd(), fd) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Drops every capability but those that read and own files (`CAP_DAC_OVERRIDE`,
/// `CAP_DAC_READ_SEARCH`, `CAP_FOWNER`) from this thread's bounding, permitted, effective,
/// inheritable and ambient sets, so a command run by root cannot administer the machine.
/// Nothing to do (and every call fails harmlessly) for an agent without capabilities.
fn drop_capabilities() {
    const KEEP: [u32; 3] = [1, 2, 3];
    for cap in 0..64u32 {
        if KEEP.contains(&cap) {
            continue;
        }
        // SAFETY: prctl with plain integers; EINVAL past the last capability, EPERM without
        // CAP_SETPCAP: both harmless.
        unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) };
    }
    // SAFETY: as above.
    unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0,
            0,
            0,
        )
    };
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    let mut header = Header {
        version: 0x2008_0522, // _LINUX_CAPABILITY_VERSION_3
        pid: 0,
    };
    let mut data = [Data::default(); 2];
    // SAFETY: capget fills two Data words for version 3.
    if unsafe { libc::syscall(libc::SYS_capget, &mut header, data.as_mut_ptr()) } != 0 {
        return;
    }
    let keep_mask: u32 = KEEP.iter().map(|c| 1u32 << c).sum();
    data[0].effective &= keep_mask;
    data[0].permitted &= keep_mask;
    data[0].inheritable = 0;
    data[1] = Data::default();
    // SAFETY: capset reads two Data words; it changes the calling thread only.
    unsafe { libc::syscall(libc::SYS_capset, &mut header, data.as_ptr()) };
}

fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [-1 as RawFd; 2];
    // SAFETY: fills two fds.
    let r = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fresh fds that nobody else owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

const CMSG_SPACE: usize = 64;

/// One `sendmsg` or `recvmsg` of a one-byte message whose control buffer has room for an fd:
/// `io` gets the prepared header (its iovec and control buffer live across the call) and
/// returns the syscall's result; `EINTR` is retried.
fn fd_message<R>(
    prepare: impl FnOnce(&mut libc::msghdr),
    mut io: impl FnMut(&mut libc::msghdr) -> isize,
    finish: impl FnOnce(&libc::msghdr) -> io::Result<R>,
) -> io::Result<R> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control = [0u8; CMSG_SPACE];
    // SAFETY: msghdr is plain data; its pointers point at `iov` and `control`, which outlive
    // every use of `msg` below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = CMSG_SPACE as _;
    prepare(&mut msg);
    loop {
        if io(&mut msg) >= 0 {
            return finish(&msg);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

fn send_fd(socket: &OwnedFd, fd: &OwnedFd) -> io::Result<()> {
    let size = std::mem::size_of::<RawFd>() as u32;
    fd_message(
        // SAFETY: `control` is large enough for one fd; CMSG_* stay inside it.
        |msg| unsafe {
            msg.msg_controllen = libc::CMSG_SPACE(size) as _;
            let cmsg = libc::CMSG_FIRSTHDR(msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(size) as _;
            std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fd.as_raw_fd());
        },
        // SAFETY: a valid header for a socket we own.
        |msg| unsafe { libc::sendmsg(socket.as_raw_fd(), msg, libc::MSG_NOSIGNAL) },
        |_| Ok(()),
    )
}

fn recv_fd(socket: &OwnedFd) -> io::Result<OwnedFd> {
    fd_message(
        |_| {},
        // SAFETY: a valid header for a socket we own; the received fd is close-on-exec.
        |msg| unsafe { libc::recvmsg(socket.as_raw_fd(), msg, libc::MSG_CMSG_CLOEXEC) },
        // SAFETY: CMSG_* read the header the kernel filled; an SCM_RIGHTS message holds a
        // fresh fd that nobody else owns.
        |msg| unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(msg);
            if cmsg.is_null()
                || (*cmsg).cmsg_level != libc::SOL_SOCKET
                || (*cmsg).cmsg_type != libc::SCM_RIGHTS
            {
                return Err(io::Error::other(
                    "the sandbox's spawner sent no output pipe",
                ));
            }
            let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>());
            Ok(OwnedFd::from_raw_fd(fd))
        },
    )
}
