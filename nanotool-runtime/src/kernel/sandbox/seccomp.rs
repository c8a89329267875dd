//! The spawner thread's seccomp filter: a small BPF program built from a rule table, installed
//! on that one thread (no `TSYNC`), inherited by every command it spawns.
//!
//! What it refuses, and why (the Landlock domain is shared by the spawner thread and its
//! children, so Landlock alone cannot keep a child away from that thread):
//!
//! | syscalls | answer | why |
//! |---|---|---|
//! | `ptrace`, `process_vm_readv/writev`, `pidfd_open`, `pidfd_getfd`, `kcmp`, `get_robust_list`, `move_pages`, `migrate_pages` | `EPERM` | reading or steering another process, the agent included |
//! | `kill`, `tgkill`, `rt_sigqueueinfo`, `rt_tgsigqueueinfo` aimed at the agent's pid; `kill(-1)`; `kill` of the agent's group; `tkill` | `EPERM` | signals towards the agent |
//! | `prlimit64` on another process | `EPERM` | changing the agent's limits |
//! | `setsid`; `setpgid` other than `setpgid(0, 0)` | `EPERM` | leaving the call's process group, so the group kill reaches every descendant |
//! | `setpgid(0, 0)` | asked of the supervisor | allowed only for a fresh spawn child (still in the agent's group) or a process that already leads its group; see [`supervise`] |
//! | `socket` of any family but IPv4/IPv6, any type but TCP (and UDP for a `network` tool) | `EACCES` | unix sockets by path, abstract sockets, netlink, raw sockets |
//! | `io_uring_*`, `bpf`, `perf_event_open`, `keyctl`, `add_key`, `request_key`, `userfaultfd` | `EPERM` | kernel interfaces that bypass or outlive the other rules |
//! | `mount`, `umount2`, `pivot_root`, `chroot`, `unshare`, `setns`, `reboot`, `kexec_*`, `*_module`, `swapon/off`, clock and host-name setters, `acct`, `quotactl`, `open_by_handle_at` | `EPERM` | system administration, for an agent that runs as root |
//! | `chmod`/`chown` family (read-only profiles) | `EPERM` | Landlock does not cover metadata changes |
//! | another architecture's calls (x32, i386) | `ENOSYS` | the rules are written for the native numbers |

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

// Classic BPF opcodes (linux/filter.h).
const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JGE_K: u16 = 0x35;
const AND_K: u16 = 0x54;
const RET_K: u16 = 0x06;

// seccomp_data offsets.
const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const fn off_arg_low(i: u32) -> u32 {
    // Little-endian: the low word of args[i] comes first. A syscall taking an `int` reads only
    // that word, so comparing it alone cannot be dodged by setting the high bits.
    16 + 8 * i
}

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_USER_NOTIF: u32 = 0x7fc0_0000;
const fn ret_errno(errno: i32) -> u32 {
    0x0005_0000 | (errno as u32 & 0xffff)
}

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: Option<u32> = Some(0xC000_003E);
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: Option<u32> = Some(0xC000_00B7);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const AUDIT_ARCH: Option<u32> = None;

/// `fchmodat2` (Linux 6.6), the same number on every architecture of the unified table.
const SYS_FCHMODAT2: libc::c_long = 452;

/// Whether this build can write a filter for the machine it runs on.
pub(crate) fn supported() -> bool {
    AUDIT_ARCH.is_some()
}

/// What the filter allows beyond the common rules.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FilterSpec {
    /// The agent's pid (signals towards it are refused).
    pub agent_pid: libc::pid_t,
    /// The agent's process group at build time.
    pub agent_pgid: libc::pid_t,
    /// TCP sockets may be created (Landlock then governs connect and bind, or the tool may
    /// use the network).
    pub tcp: bool,
    /// UDP sockets may be created (a `network` tool).
    pub udp: bool,
    /// Metadata changes (`chmod`, `chown`) are allowed (a `writes` tool).
    pub writes: bool,
    /// `setpgid(0, 0)` is sent to a supervisor; without one it is allowed outright.
    pub notify_setpgid: bool,
}

/// A jump target in the program being assembled.
#[derive(Clone, Copy)]
enum Target {
    Next,
    Label(usize),
}

enum Insn {
    Ld(u32),
    And(u32),
    Jeq(u32, Target, Target),
    Jge(u32, Target, Target),
    Ret(u32),
    Label(usize),
}

/// A tiny assembler: instructions with symbolic jump targets, resolved at the end.
#[derive(Default)]
struct Asm {
    insns: Vec<Insn>,
    labels: usize,
}

impl Asm {
    fn label(&mut self) -> usize {
        self.labels += 1;
        self.labels - 1
    }
    fn ld(&mut self, off: u32) {
        self.insns.push(Insn::Ld(off));
    }
    fn and(&mut self, mask: u32) {
        self.insns.push(Insn::And(mask));
    }
    fn jeq(&mut self, k: u32, t: Target, f: Target) {
        self.insns.push(Insn::Jeq(k, t, f));
    }
    fn jge(&mut self, k: u32, t: Target, f: Target) {
        self.insns.push(Insn::Jge(k, t, f));
    }
    fn ret(&mut self, k: u32) {
        self.insns.push(Insn::Ret(k));
    }
    fn place(&mut self, label: usize) {
        self.insns.push(Insn::Label(label));
    }

    /// `if nr == sys { <body> }`: the body must end in a return.
    fn syscall(&mut self, sys: libc::c_long, body: impl FnOnce(&mut Asm)) {
        let skip = self.label();
        self.ld(OFF_NR);
        self.jeq(sys as u32, Target::Next, Target::Label(skip));
        body(self);
        self.place(skip);
    }

    fn finish(self) -> io::Result<Vec<libc::sock_filter>> {
        // Positions of labels in the final program.
        let mut at = vec![usize::MAX; self.labels];
        let mut pc = 0;
        for insn in &self.insns {
            match insn {
                Insn::Label(l) => at[*l] = pc,
                _ => pc += 1,
            }
        }
        let mut out = Vec::with_capacity(pc);
        for insn in &self.insns {
            let here = out.len();
            let jump = |t: &Target| -> io::Result<u8> {
                let dest = match t {
                    Target::Next => here + 1,
                    Target::Label(l) => at[*l],
                };
                u8::try_from(dest - here - 1).map_err(|_| {
                    io::Error::new(io::ErrorKind::InvalidInput, "seccomp jump too long")
                })
            };
            let f = |code, jt, jf, k| libc::sock_filter { code, jt, jf, k };
            match insn {
                Insn::Label(_) => {}
                Insn::Ld(off) => out.push(f(LD_W_ABS, 0, 0, *off)),
                Insn::And(m) => out.push(f(AND_K, 0, 0, *m)),
                Insn::Jeq(k, t, e) => out.push(f(JEQ_K, jump(t)?, jump(e)?, *k)),
                Insn::Jge(k, t, e) => out.push(f(JGE_K, jump(t)?, jump(e)?, *k)),
                Insn::Ret(k) => out.push(f(RET_K, 0, 0, *k)),
            }
        }
        Ok(out)
    }
}

/// The filter program for `spec`.
pub(crate) fn program(spec: &FilterSpec) -> io::Result<Vec<libc::sock_filter>> {
    let Some(arch) = AUDIT_ARCH else {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "no seccomp rules for this architecture",
        ));
    };
    let eperm = ret_errno(libc::EPERM);
    let eacces = ret_errno(libc::EACCES);
    let agent = spec.agent_pid as u32;
    let mut a = Asm::default();

    let foreign = a.label();
    a.ld(OFF_ARCH);
    a.jeq(arch, Target::Next, Target::Label(foreign));
    a.ld(OFF_NR);
    #[cfg(target_arch = "x86_64")]
    {
        // x32 calls: the same numbers with bit 30 set.
        a.jge(0x4000_0000, Target::Label(foreign), Target::Next);
    }

    let mut deny: Vec<libc::c_long> = vec![
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_pidfd_open,
        libc::SYS_pidfd_getfd,
        libc::SYS_kcmp,
        libc::SYS_get_robust_list,
        libc::SYS_move_pages,
        libc::SYS_migrate_pages,
        libc::SYS_tkill,
        libc::SYS_setsid,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_userfaultfd,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_chroot,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_reboot,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_settimeofday,
        libc::SYS_clock_settime,
        libc::SYS_clock_adjtime,
        libc::SYS_adjtimex,
        libc::SYS_sethostname,
        libc::SYS_setdomainname,
        libc::SYS_acct,
        libc::SYS_quotactl,
        libc::SYS_open_by_handle_at,
        libc::SYS_fsopen,
        libc::SYS_fsmount,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
    ];
    #[cfg(target_arch = "x86_64")]
    deny.extend([libc::SYS_iopl, libc::SYS_ioperm]);
    if !spec.writes {
        deny.extend([
            libc::SYS_fchmod,
            libc::SYS_fchmodat,
            SYS_FCHMODAT2,
            libc::SYS_fchown,
            libc::SYS_fchownat,
        ]);
        #[cfg(target_arch = "x86_64")]
        deny.extend([libc::SYS_chmod, libc::SYS_chown, libc::SYS_lchown]);
    }
    for sys in deny {
        a.syscall(sys, |a| a.ret(eperm));
    }

    // Signals whose first argument is a target pid: refused towards the agent.
    for sys in [
        libc::SYS_tgkill,
        libc::SYS_rt_sigqueueinfo,
        libc::SYS_rt_tgsigqueueinfo,
    ] {
        a.syscall(sys, |a| {
            let allow = a.label();
            a.ld(off_arg_low(0));
            a.jeq(agent, Target::Next, Target::Label(allow));
            a.ret(eperm);
            a.place(allow);
            a.ret(RET_ALLOW);
        });
    }
    // kill: not the agent, not the agent's group, not every process (-1).
    a.syscall(libc::SYS_kill, |a| {
        let refuse = a.label();
        a.ld(off_arg_low(0));
        a.jeq(agent, Target::Label(refuse), Target::Next);
        a.jeq(
            (-spec.agent_pgid) as u32,
            Target::Label(refuse),
            Target::Next,
        );
        a.jeq(u32::MAX, Target::Label(refuse), Target::Next);
        a.ret(RET_ALLOW);
        a.place(refuse);
        a.ret(eperm);
    });
    // prlimit64: only on oneself (pid 0).
    a.syscall(libc::SYS_prlimit64, |a| {
        let refuse = a.label();
        a.ld(off_arg_low(0));
        a.jeq(0, Target::Next, Target::Label(refuse));
        a.ret(RET_ALLOW);
        a.place(refuse);
        a.ret(eperm);
    });
    // setpgid: only (0, 0), and that one asks the supervisor.
    a.syscall(libc::SYS_setpgid, |a| {
        let refuse = a.label();
        a.ld(off_arg_low(0));
        a.jeq(0, Target::Next, Target::Label(refuse));
        a.ld(off_arg_low(1));
        a.jeq(0, Target::Next, Target::Label(refuse));
        a.ret(if spec.notify_setpgid {
            RET_USER_NOTIF
        } else {
            RET_ALLOW
        });
        a.place(refuse);
        a.ret(eperm);
    });
    // socket(domain, type, protocol).
    a.syscall(libc::SYS_socket, |a| {
        let refuse = a.label();
        let ip = a.label();
        let stream = a.label();
        let dgram = a.label();
        let allow = a.label();
        a.ld(off_arg_low(0));
        a.jeq(libc::AF_INET as u32, Target::Label(ip), Target::Next);
        a.jeq(
            libc::AF_INET6 as u32,
            Target::Label(ip),
            Target::Label(refuse),
        );
        a.place(ip);
        a.ld(off_arg_low(1));
        a.and(0xf); // SOCK_TYPE_MASK: SOCK_NONBLOCK and SOCK_CLOEXEC are flags above it
        let to_stream = if spec.tcp {
            Target::Label(stream)
        } else {
            Target::Next
        };
        a.jeq(libc::SOCK_STREAM as u32, to_stream, Target::Next);
        let to_dgram = if spec.udp {
            Target::Label(dgram)
        } else {
            Target::Label(refuse)
        };
        a.jeq(libc::SOCK_DGRAM as u32, to_dgram, Target::Label(refuse));
        a.place(stream);
        a.ld(off_arg_low(2));
        a.jeq(0, Target::Label(allow), Target::Next);
        a.jeq(
            libc::IPPROTO_TCP as u32,
            Target::Label(allow),
            Target::Label(refuse),
        );
        a.place(dgram);
        a.ld(off_arg_low(2));
        a.jeq(0, Target::Label(allow), Target::Next);
        a.jeq(
            libc::IPPROTO_UDP as u32,
            Target::Label(allow),
            Target::Label(refuse),
        );
        a.place(allow);
        a.ret(RET_ALLOW);
        a.place(refuse);
        a.ret(eacces);
    });

    a.ret(RET_ALLOW);
    a.place(foreign);
    a.ret(ret_errno(libc::ENOSYS));
    a.finish()
}

/// Installs `prog` on the calling thread only. With `listener`, returns the notification fd
/// (close-on-exec, in the calling thread's fd table).
pub(crate) fn install(prog: &[libc::sock_filter], listener: bool) -> io::Result<Option<OwnedFd>> {
    let fprog = libc::sock_fprog {
        len: u16::try_from(prog.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "seccomp filter too long"))?,
        filter: prog.as_ptr().cast_mut(),
    };
    let flags: libc::c_ulong = if listener {
        libc::SECCOMP_FILTER_FLAG_NEW_LISTENER
    } else {
        0
    };
    // SAFETY: `fprog` points at `prog`, alive for the call; the kernel copies the program.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            flags,
            &fprog as *const libc::sock_fprog,
        )
    };
    if ret < 0 {
        return Err(io::Error::last_os_error());
    }
    if listener {
        // SAFETY: with NEW_LISTENER the call returns a fresh fd that nobody else owns.
        Ok(Some(unsafe { OwnedFd::from_raw_fd(ret as RawFd) }))
    } else {
        Ok(None)
    }
}

/// Answers the filter's `setpgid(0, 0)` notifications until the filter has no users left or
/// `stop` becomes readable.
///
/// The rule: a process may create its own group only while it still stands in the agent's
/// group, which only a command being spawned does (std's `posix_spawn` child calls
/// `setpgid(0, 0)` before `execve`); a process that already leads its group may repeat the
/// call (a no-op). Every other caller — a descendant trying to leave the call's group — gets
/// `EPERM`, so the group kill at the end of the call reaches it.
pub(crate) fn supervise(listener: OwnedFd, agent_pgid: libc::pid_t, stop: OwnedFd) {
    // Linux 6.6+: the waiting child and this thread hand the CPU to each other directly
    // instead of through the scheduler's queues (each spawn waits on one round trip).
    // Older kernels refuse the flag: the round trip is only slower.
    const SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: u64 = 1;
    // SAFETY: SET_FLAGS reads one u64 value (passed by value, as the kernel takes it).
    unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_SET_FLAGS,
            SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP,
        )
    };
    loop {
        let mut fds = [
            libc::pollfd {
                fd: listener.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: stop.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: a valid array of two pollfds.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
        if n < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        if fds[1].revents != 0 || fds[0].revents & (libc::POLLHUP | libc::POLLERR) != 0 {
            return;
        }
        if fds[0].revents & libc::POLLIN == 0 {
            continue;
        }
        // SAFETY: zeroed plain data for the kernel to fill.
        let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
        // SAFETY: RECV fills `req`, a correctly sized seccomp_notif.
        let ret = unsafe {
            libc::ioctl(
                listener.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_RECV,
                &mut req as *mut libc::seccomp_notif,
            )
        };
        if ret < 0 {
            match io::Error::last_os_error().raw_os_error() {
                // The caller went away (killed) before we read it.
                Some(libc::ENOENT) | Some(libc::EINTR) => continue,
                _ => return,
            }
        }
        let pid = req.pid as libc::pid_t;
        // SAFETY: getpgid takes any pid; a gone one gives -1.
        let pgid = unsafe { libc::getpgid(pid) };
        let allowed = pgid == agent_pgid || pgid == pid;
        let mut resp = libc::seccomp_notif_resp {
            id: req.id,
            val: 0,
            error: 0,
            flags: 0,
        };
        if allowed {
            resp.flags = libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32;
        } else {
            resp.error = -libc::EPERM;
        }
        // The process's group cannot change while it waits here: every other way to change a
        // group is refused or comes through this thread. Its pid cannot name another process
        // either: if it died since RECV, SEND fails (the answer is tied to the notification's
        // id), and while it lives, nobody else can have its pid.
        // SAFETY: SEND reads a correctly sized seccomp_notif_resp. ENOENT (the caller died
        // meanwhile) is fine.
        unsafe {
            libc::ioctl(
                listener.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_SEND,
                &mut resp as *mut libc::seccomp_notif_resp,
            )
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_assembles() {
        for bits in 0..16u8 {
            let spec = FilterSpec {
                agent_pid: 1234,
                agent_pgid: 1234,
                tcp: bits & 1 != 0,
                udp: bits & 2 != 0,
                writes: bits & 4 != 0,
                notify_setpgid: bits & 8 != 0,
            };
            let prog = program(&spec).unwrap();
            assert!(prog.len() > 60 && prog.len() < 1000, "{}", prog.len());
            assert_eq!(prog.last().unwrap().code, RET_K);
        }
    }
}
