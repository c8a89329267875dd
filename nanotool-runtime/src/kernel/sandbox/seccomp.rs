//! The commands' seccomp filter: a small BPF program built from a rule table, installed by each
//! command on itself before its `execve` (see `spawn`), inherited by everything it starts.
//!
//! The filter holds only what no other layer covers, because its size is paid on every
//! command: the kernel checks, compiles and pre-evaluates a filter when it is installed, and
//! that cost grows with each instruction. The rules are laid out as a binary search over the
//! syscall numbers (adjacent numbers with the same answer merged into one range).
//!
//! | syscalls | answer | why | left out when |
//! |---|---|---|---|
//! | `setsid`, `setpgid` | `EPERM` | leaving the call's process group, so the group kill reaches every descendant (the command makes its group before the filter is installed) | never |
//! | `socket` of any family but IPv4/IPv6, any type but TCP (and UDP for a `network` tool) | `EACCES` | unix sockets by path, abstract sockets, netlink, raw sockets | never |
//! | `socket` of an internet family for a tool without `network` | `EACCES` | Landlock's TCP rules see `connect` and `bind`, but not every way a kernel lets a TCP socket connect (`sendto` with `MSG_FASTOPEN`) | a `network` tool |
//! | `clone` with a namespace flag or `CLONE_PARENT`, `unshare`, `setns`; `clone3` | `EPERM`; `ENOSYS` | new namespaces are attack surface and a fresh set of capabilities; a `CLONE_PARENT` child is the agent's, never reaped (`clone3` hides its flags; C libraries fall back to `clone`) | never |
//! | `io_uring_*` | `EPERM` | its operations (sockets among them) bypass this filter | never |
//! | `add_key`, `request_key`, `keyctl` | `EPERM` | the session keyring is the agent's | never |
//! | `open_by_handle_at` | `EPERM` | opens a file by handle, around Landlock's path rules (commands keep `CAP_DAC_READ_SEARCH`) | never |
//! | `bpf`, `userfaultfd` | `EPERM` | kernel attack surface | never |
//! | `prlimit64` on another process | `EPERM` | changing the agent's limits | never |
//! | `chmod`/`chown`/`utimensat` families | `EPERM` | Landlock does not cover metadata changes | a `writes` tool |
//! | `chmod` family with setuid or write-for-everyone | `EPERM` | a root agent's command could open a system file to every local user | never (the rule is a `writes` tool's; others refuse `chmod` whole) |
//! | `setxattr`/`removexattr` families | `EOPNOTSUPP` | extended attributes (ACLs rewrite permissions) are not Landlock's | never |
//! | `ptrace`, `process_vm_readv/writev`, `pidfd_getfd`, `kcmp`, `get_robust_list`, `move_pages`, `migrate_pages`, `perf_event_open` | `EPERM` | reading or steering the agent | Landlock is enforced: the agent is outside the command's domain, and Landlock refuses these towards it |
//! | `kill`, `tgkill`, `rt_sigqueueinfo`, `rt_tgsigqueueinfo` aimed at the agent; `kill(-1)`, `kill` of the agent's group; `tkill`, `pidfd_open`, `pidfd_send_signal`; `fcntl` `F_SETOWN`, `F_SETOWN_EX`, `F_SETSIG` | `EPERM` | signals towards the agent (limit: `kill` of another agent thread's id reaches the agent, as the filter cannot know every id) | Landlock's signal scope (ABI 6) is enforced |
//! | another architecture's calls (x32, i386) | `ENOSYS` | the rules are written for the native numbers | never |
//!
//! The administration calls (`mount`, `reboot`, modules, clocks, host names...) are not in
//! the filter: a command holds no capability they need (see `spawn`), and Landlock refuses
//! mounts to any process it confines.

use std::io;

// Classic BPF opcodes (linux/filter.h).
const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JGE_K: u16 = 0x35;
const AND_K: u16 = 0x54;
const JSET_K: u16 = 0x45;
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
/// `setxattrat` and `removexattrat` (Linux 6.13), likewise.
const SYS_SETXATTRAT: libc::c_long = 463;
const SYS_REMOVEXATTRAT: libc::c_long = 466;

/// `fcntl` commands (asm-generic/fcntl.h, the same on x86_64 and aarch64): the signal an
/// fd's I/O raises, and its owner as a `struct f_owner_ex`.
const F_SETSIG: u32 = 10;
const F_SETOWN_EX: u32 = 15;

/// Mode bits no command may set with `chmod`: setuid, and write for everyone (a command of
/// a root agent could otherwise make a system file writable by any local user; Landlock does
/// not govern modes). Not setgid: `chmod` keeps a directory's setgid bit in every mode it
/// sets, so refusing it would break any `chmod` in a shared group tree.
const MODE_REFUSED: libc::mode_t = libc::S_ISUID | libc::S_IWOTH;

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
    /// TCP sockets may be created (a `network` tool; Landlock's TCP rules are a second
    /// layer for the others, never the only one).
    pub tcp: bool,
    /// UDP sockets may be created (a `network` tool).
    pub udp: bool,
    /// Metadata changes (`chmod` without setuid or world-writable bits, `chown`,
    /// timestamps) are allowed (a `writes` tool).
    pub writes: bool,
    /// Landlock is enforced, so it refuses ptrace-class access to the agent.
    pub landlock: bool,
    /// Landlock's signal scope (ABI 6) is enforced.
    pub landlock_signals: bool,
    /// The command runs in its own PID namespace, so pid-naming calls cannot reach outside
    /// it: every pid it can name is a process of its own call (the agent's pid and group
    /// numbers mean nothing there). Not read by the rules yet.
    #[allow(dead_code)]
    pub pid_namespace: bool,
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
    Jset(u32, Target, Target),
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
    fn jset(&mut self, k: u32, t: Target, f: Target) {
        self.insns.push(Insn::Jset(k, t, f));
    }
    fn ret(&mut self, k: u32) {
        self.insns.push(Insn::Ret(k));
    }
    fn place(&mut self, label: usize) {
        self.insns.push(Insn::Label(label));
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
                Insn::Jset(k, t, e) => out.push(f(JSET_K, jump(t)?, jump(e)?, *k)),
                Insn::Ret(k) => out.push(f(RET_K, 0, 0, *k)),
            }
        }
        Ok(out)
    }
}

/// `clone` flags refused: those that make a namespace, and `CLONE_PARENT` (a child of the
/// agent's, outside the call's reach to reap).
const CLONE_REFUSED: u32 = (libc::CLONE_PARENT
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u32;

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
    let enosys = ret_errno(libc::ENOSYS);
    let agent = spec.agent_pid as u32;
    let mut a = Asm::default();
    let mut rets = Rets::default();

    // Another architecture's calls (i386 on x86_64, say) and x32's get ENOSYS: the rules are
    // written for the native numbers.
    a.ld(OFF_ARCH);
    let foreign = rets.label(&mut a, enosys);
    a.jeq(arch, Target::Next, foreign);
    a.ld(OFF_NR);
    #[cfg(target_arch = "x86_64")]
    {
        // x32 calls: the same numbers with bit 30 set.
        a.jge(0x4000_0000, foreign, Target::Next);
    }

    let mut rules: Vec<(libc::c_long, Rule)> = Vec::new();
    let mut deny = |sys: libc::c_long| rules.push((sys, Rule::Answer(eperm)));
    for sys in [
        libc::SYS_setsid,
        libc::SYS_setpgid,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_keyctl,
        libc::SYS_open_by_handle_at,
        libc::SYS_bpf,
        libc::SYS_userfaultfd,
    ] {
        deny(sys);
    }
    if !spec.writes {
        // Metadata Landlock does not govern: modes, owners and timestamps.
        for sys in [
            libc::SYS_fchmod,
            libc::SYS_fchmodat,
            SYS_FCHMODAT2,
            libc::SYS_fchown,
            libc::SYS_fchownat,
            libc::SYS_utimensat,
        ] {
            deny(sys);
        }
        #[cfg(target_arch = "x86_64")]
        for sys in [
            libc::SYS_chmod,
            libc::SYS_chown,
            libc::SYS_lchown,
            libc::SYS_utime,
            libc::SYS_utimes,
            libc::SYS_futimesat,
        ] {
            deny(sys);
        }
    }
    if !spec.landlock {
        for sys in [
            libc::SYS_ptrace,
            libc::SYS_process_vm_readv,
            libc::SYS_process_vm_writev,
            libc::SYS_pidfd_getfd,
            libc::SYS_kcmp,
            libc::SYS_get_robust_list,
            libc::SYS_move_pages,
            libc::SYS_migrate_pages,
            libc::SYS_perf_event_open,
        ] {
            deny(sys);
        }
    }
    if !spec.landlock_signals {
        deny(libc::SYS_tkill);
        deny(libc::SYS_pidfd_open);
        // A pidfd can also come from opening /proc/<pid> where Landlock does not hold.
        deny(libc::SYS_pidfd_send_signal);
        // Signals whose first argument is a target pid: refused towards the agent.
        for sys in [
            libc::SYS_tgkill,
            libc::SYS_rt_sigqueueinfo,
            libc::SYS_rt_tgsigqueueinfo,
        ] {
            rules.push((
                sys,
                Rule::Body(Box::new(move |a: &mut Asm, rets: &mut Rets| {
                    let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
                    a.ld(off_arg_low(0));
                    a.jeq(agent, refuse, allow);
                })),
            ));
        }
        // kill: not the agent, not the agent's group, not every process (-1).
        let agent_group = (-spec.agent_pgid) as u32;
        rules.push((
            libc::SYS_kill,
            Rule::Body(Box::new(move |a: &mut Asm, rets: &mut Rets| {
                let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
                a.ld(off_arg_low(0));
                a.jeq(agent, refuse, Target::Next);
                a.jeq(agent_group, refuse, Target::Next);
                a.jeq(u32::MAX, refuse, allow);
            })),
        ));
        // fcntl: no owner for an fd's I/O signals (F_SETOWN on the output pipe would have the
        // kernel signal the agent when it reads), nor a chosen signal for them.
        rules.push((
            libc::SYS_fcntl,
            Rule::Body(Box::new(move |a: &mut Asm, rets: &mut Rets| {
                let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
                a.ld(off_arg_low(1));
                a.jeq(libc::F_SETOWN as u32, refuse, Target::Next);
                a.jeq(F_SETOWN_EX, refuse, Target::Next);
                a.jeq(F_SETSIG, refuse, allow);
            })),
        ));
    }
    // Extended attributes (ACLs among them: `system.posix_acl_access` rewrites a file's
    // permissions) are not Landlock's either: no command writes one. "Not supported", as on a
    // file system without them, so copying tools carry on without.
    for sys in [
        libc::SYS_setxattr,
        libc::SYS_lsetxattr,
        libc::SYS_fsetxattr,
        libc::SYS_removexattr,
        libc::SYS_lremovexattr,
        libc::SYS_fremovexattr,
        SYS_SETXATTRAT,
        SYS_REMOVEXATTRAT,
    ] {
        rules.push((sys, Rule::Answer(ret_errno(libc::EOPNOTSUPP))));
    }
    if spec.writes {
        // A `writes` tool sets modes, but no setuid or world-writable one.
        let mut chmod = |sys: libc::c_long, mode_arg: u32| {
            rules.push((
                sys,
                Rule::Body(Box::new(move |a: &mut Asm, rets: &mut Rets| {
                    let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
                    a.ld(off_arg_low(mode_arg));
                    a.jset(MODE_REFUSED, refuse, allow);
                })),
            ))
        };
        chmod(libc::SYS_fchmod, 1);
        chmod(libc::SYS_fchmodat, 2);
        chmod(SYS_FCHMODAT2, 2);
        #[cfg(target_arch = "x86_64")]
        chmod(libc::SYS_chmod, 1);
    }
    rules.push((libc::SYS_clone3, Rule::Answer(enosys)));
    rules.push((
        libc::SYS_clone,
        Rule::Body(Box::new(move |a: &mut Asm, rets: &mut Rets| {
            let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
            a.ld(off_arg_low(0));
            a.jset(CLONE_REFUSED, refuse, allow);
        })),
    ));
    // prlimit64: only on oneself (pid 0).
    rules.push((
        libc::SYS_prlimit64,
        Rule::Body(Box::new(move |a: &mut Asm, rets: &mut Rets| {
            let (refuse, allow) = (rets.label(a, eperm), rets.label(a, RET_ALLOW));
            a.ld(off_arg_low(0));
            a.jeq(0, allow, refuse);
        })),
    ));
    // socket(domain, type, protocol).
    let (tcp, udp) = (spec.tcp, spec.udp);
    rules.push((
        libc::SYS_socket,
        Rule::Body(Box::new(move |a: &mut Asm, rets: &mut Rets| {
            socket_rule(a, rets, tcp, udp, eacces)
        })),
    ));

    search(&mut a, &mut rets, &segments(rules));
    rets.place(&mut a);
    a.finish()
}

/// Instructions that end a body: a label per answer, each placed once at the end of the
/// program, so that every rule jumps to a shared `ret` instead of carrying its own.
#[derive(Default)]
struct Rets {
    labels: Vec<(u32, usize)>,
}

impl Rets {
    fn label(&mut self, a: &mut Asm, answer: u32) -> Target {
        if let Some((_, l)) = self.labels.iter().find(|(k, _)| *k == answer) {
            return Target::Label(*l);
        }
        let l = a.label();
        self.labels.push((answer, l));
        Target::Label(l)
    }

    fn place(self, a: &mut Asm) {
        for (answer, label) in self.labels {
            a.place(label);
            a.ret(answer);
        }
    }
}

/// What a syscall number gets.
enum Rule {
    /// A fixed answer.
    Answer(u32),
    /// A rule on the arguments: instructions that end in a jump to an answer.
    Body(Box<Emit>),
}

/// Instructions emitted for one rule.
type Emit = dyn Fn(&mut Asm, &mut Rets);

/// The whole number line as segments `(first number, rule)`, each running to the next
/// segment's start: numbers named by no rule are allowed, and adjacent numbers with the same
/// fixed answer share one segment.
fn segments(mut rules: Vec<(libc::c_long, Rule)>) -> Vec<(u32, Rule)> {
    rules.sort_by_key(|(nr, _)| *nr);
    let mut out: Vec<(u32, Rule)> = Vec::with_capacity(2 * rules.len() + 1);
    let mut next = 0u32;
    for (nr, rule) in rules {
        let nr = nr as u32;
        if nr > next {
            out.push((next, Rule::Answer(RET_ALLOW)));
        }
        let same = matches!(
            (out.last(), &rule),
            (Some((_, Rule::Answer(last))), Rule::Answer(answer)) if last == answer
        );
        if !same {
            out.push((nr, rule));
        }
        next = nr + 1;
    }
    out.push((next, Rule::Answer(RET_ALLOW)));
    out
}

/// A binary search over `segments` (the syscall number in the accumulator).
fn search(a: &mut Asm, rets: &mut Rets, segments: &[(u32, Rule)]) {
    let fixed = |a: &mut Asm, rets: &mut Rets, part: &[(u32, Rule)]| match part {
        [(_, Rule::Answer(answer))] => Some(rets.label(a, *answer)),
        _ => None,
    };
    match segments {
        [] => {}
        [(_, Rule::Answer(answer))] => {
            let to = rets.label(a, *answer);
            a.jeq(0, to, to);
        }
        [(_, Rule::Body(body))] => body(a, rets),
        _ => {
            let (low, high) = segments.split_at(segments.len() / 2);
            let high_inline = a.label();
            let to_high = fixed(a, rets, high).unwrap_or(Target::Label(high_inline));
            let to_low = fixed(a, rets, low);
            a.jge(high[0].0, to_high, to_low.unwrap_or(Target::Next));
            if to_low.is_none() {
                search(a, rets, low);
            }
            a.place(high_inline);
            if matches!(to_high, Target::Label(l) if l == high_inline) {
                search(a, rets, high);
            }
        }
    }
}

/// `socket(domain, type, protocol)`: IPv4 or IPv6 only; TCP if `tcp`, UDP if `udp`.
fn socket_rule(a: &mut Asm, rets: &mut Rets, tcp: bool, udp: bool, refused: u32) {
    let refuse = rets.label(a, refused);
    let allow = rets.label(a, RET_ALLOW);
    let ip = a.label();
    let stream = a.label();
    let dgram = a.label();
    a.ld(off_arg_low(0));
    a.jeq(libc::AF_INET as u32, Target::Label(ip), Target::Next);
    a.jeq(libc::AF_INET6 as u32, Target::Next, refuse);
    a.place(ip);
    a.ld(off_arg_low(1));
    a.and(0xf); // SOCK_TYPE_MASK: SOCK_NONBLOCK and SOCK_CLOEXEC are flags above it
    let to_stream = if tcp { Target::Label(stream) } else { refuse };
    let to_dgram = if udp { Target::Label(dgram) } else { refuse };
    a.jeq(libc::SOCK_STREAM as u32, to_stream, Target::Next);
    a.jeq(libc::SOCK_DGRAM as u32, to_dgram, refuse);
    // The protocol: 0 (the type's default) or the type's own.
    for (wanted, label, protocol) in [
        (tcp, stream, libc::IPPROTO_TCP),
        (udp, dgram, libc::IPPROTO_UDP),
    ] {
        if wanted {
            a.place(label);
            a.ld(off_arg_low(2));
            a.jeq(0, allow, Target::Next);
            a.jeq(protocol as u32, allow, refuse);
        }
    }
}

/// `SECCOMP_FILTER_FLAG_SPEC_ALLOW` (Linux 4.17): installing the filter leaves the
/// speculative store bypass mitigation as it was.
pub(crate) const FILTER_FLAG_SPEC_ALLOW: u32 = 1 << 2;

/// Installs `prog` on the calling thread.
pub(crate) fn install(prog: &[libc::sock_filter]) -> io::Result<()> {
    let fprog = libc::sock_fprog {
        len: u16::try_from(prog.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "seccomp filter too long"))?,
        filter: prog.as_ptr().cast_mut(),
    };
    let set = |flags: u32| {
        // SAFETY: `fprog` points at `prog`, alive for the call; the kernel copies the program.
        let ret = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                flags as libc::c_ulong,
                &fprog as *const libc::sock_fprog,
            )
        };
        if ret < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    };
    // As the commands install it (see `spawn`): without the speculation mitigation where the
    // kernel knows the flag (4.17), with flags 0 where it does not (EINVAL).
    match set(FILTER_FLAG_SPEC_ALLOW) {
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => set(0),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `prog` as the kernel would on one call (classic BPF, the subset we emit).
    fn run(prog: &[libc::sock_filter], arch: u32, nr: u32, args: [u32; 3]) -> u32 {
        let word = |off: u32| match off {
            OFF_NR => nr,
            OFF_ARCH => arch,
            o => args[((o - 16) / 8) as usize],
        };
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let i = prog[pc];
            pc += 1;
            match i.code {
                LD_W_ABS => acc = word(i.k),
                AND_K => acc &= i.k,
                JEQ_K => pc += usize::from(if acc == i.k { i.jt } else { i.jf }),
                JGE_K => pc += usize::from(if acc >= i.k { i.jt } else { i.jf }),
                JSET_K => pc += usize::from(if acc & i.k != 0 { i.jt } else { i.jf }),
                RET_K => return i.k,
                other => panic!("unexpected opcode {other:#x}"),
            }
        }
    }

    fn spec(tcp: bool, udp: bool, writes: bool) -> FilterSpec {
        FilterSpec {
            agent_pid: 1234,
            agent_pgid: 1200,
            tcp,
            udp,
            writes,
            landlock: false,
            landlock_signals: false,
            pid_namespace: false,
        }
    }

    #[test]
    fn every_profile_assembles_small() {
        for bits in 0..32u8 {
            let spec = FilterSpec {
                landlock: bits & 8 != 0,
                landlock_signals: bits & 16 != 0,
                ..spec(bits & 1 != 0, bits & 2 != 0, bits & 4 != 0)
            };
            let prog = program(&spec).unwrap();
            assert!(prog.len() > 20 && prog.len() < 200, "{}", prog.len());
        }
        // With Landlock holding, what it covers is left out.
        let full = program(&spec(true, false, false)).unwrap().len();
        let lean = program(&FilterSpec {
            landlock: true,
            landlock_signals: true,
            ..spec(true, false, false)
        })
        .unwrap()
        .len();
        assert!(lean < full, "{lean} >= {full}");
    }

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[test]
    fn the_search_tree_gives_each_number_its_rule() {
        let arch = AUDIT_ARCH.unwrap();
        let eperm = ret_errno(libc::EPERM);
        let eacces = ret_errno(libc::EACCES);
        let enosys = ret_errno(libc::ENOSYS);
        let bare = program(&spec(true, false, false)).unwrap();
        let landlocked = program(&FilterSpec {
            landlock: true,
            landlock_signals: true,
            ..spec(true, false, false)
        })
        .unwrap();
        let writes = program(&spec(true, false, true)).unwrap();
        let call = |p: &[libc::sock_filter], nr: libc::c_long, args: [u32; 3]| {
            run(p, arch, nr as u32, args)
        };
        let always = [
            libc::SYS_setsid,
            libc::SYS_setpgid,
            libc::SYS_unshare,
            libc::SYS_setns,
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
            libc::SYS_keyctl,
            libc::SYS_add_key,
            libc::SYS_request_key,
            libc::SYS_open_by_handle_at,
            libc::SYS_bpf,
            libc::SYS_userfaultfd,
        ];
        let without_landlock = [
            libc::SYS_ptrace,
            libc::SYS_process_vm_readv,
            libc::SYS_process_vm_writev,
            libc::SYS_pidfd_getfd,
            libc::SYS_kcmp,
            libc::SYS_perf_event_open,
            libc::SYS_tkill,
            libc::SYS_pidfd_open,
            libc::SYS_pidfd_send_signal,
        ];
        for nr in always {
            assert_eq!(call(&bare, nr, [0; 3]), eperm, "syscall {nr}");
            assert_eq!(call(&landlocked, nr, [0; 3]), eperm, "syscall {nr}");
            assert_eq!(call(&writes, nr, [0; 3]), eperm, "syscall {nr}");
        }
        for nr in without_landlock {
            assert_eq!(call(&bare, nr, [0; 3]), eperm, "syscall {nr}");
            assert_eq!(call(&landlocked, nr, [0; 3]), RET_ALLOW, "syscall {nr}");
        }
        assert_eq!(call(&bare, libc::SYS_fchmodat, [0; 3]), eperm);
        assert_eq!(call(&writes, libc::SYS_fchmodat, [0; 3]), RET_ALLOW);
        // A writes tool's modes: ordinary ones go through, setuid, setgid and o+w do not.
        assert_eq!(call(&writes, libc::SYS_fchmodat, [0, 0, 0o755]), RET_ALLOW);
        assert_eq!(call(&writes, libc::SYS_fchmod, [3, 0o600, 0]), RET_ALLOW);
        assert_eq!(call(&writes, libc::SYS_fchmodat, [0, 0, 0o2775]), RET_ALLOW);
        for mode in [0o4755, 0o6755, 0o666, 0o1777] {
            assert_eq!(call(&writes, libc::SYS_fchmodat, [0, 0, mode]), eperm);
            assert_eq!(call(&writes, SYS_FCHMODAT2, [0, 0, mode]), eperm);
            assert_eq!(call(&writes, libc::SYS_fchmod, [3, mode, 0]), eperm);
        }
        // No extended attribute is written, whatever the profile; timestamps only by writes.
        for p in [&bare, &landlocked, &writes] {
            for nr in [libc::SYS_setxattr, libc::SYS_fremovexattr, SYS_SETXATTRAT] {
                assert_eq!(call(p, nr, [0; 3]), ret_errno(libc::EOPNOTSUPP));
            }
            assert_eq!(call(p, libc::SYS_getxattr, [0; 3]), RET_ALLOW);
        }
        assert_eq!(call(&bare, libc::SYS_utimensat, [0; 3]), eperm);
        assert_eq!(call(&writes, libc::SYS_utimensat, [0; 3]), RET_ALLOW);
        // Every number the tree does not name is allowed, on both sides of every range.
        for nr in [
            libc::SYS_read,
            libc::SYS_write,
            libc::SYS_openat,
            libc::SYS_execve,
            libc::SYS_execveat,
            libc::SYS_wait4,
            libc::SYS_getpgid,
            libc::SYS_getppid,
            libc::SYS_getpgrp,
            libc::SYS_close_range,
            libc::SYS_landlock_restrict_self,
            libc::SYS_mount,
        ] {
            for p in [&bare, &landlocked, &writes] {
                assert_eq!(call(p, nr, [0; 3]), RET_ALLOW, "syscall {nr}");
            }
        }
        let eopnotsupp = ret_errno(libc::EOPNOTSUPP);
        for nr in 0..600u32 {
            let r = run(&bare, arch, nr, [0; 3]);
            assert!(
                [RET_ALLOW, eperm, eacces, enosys, eopnotsupp].contains(&r),
                "{nr}: {r:#x}"
            );
        }
        // Rules on arguments.
        for cmd in [libc::F_SETOWN as u32, F_SETOWN_EX, F_SETSIG] {
            assert_eq!(call(&bare, libc::SYS_fcntl, [3, cmd, 1234]), eperm);
            assert_eq!(
                call(&landlocked, libc::SYS_fcntl, [3, cmd, 1234]),
                RET_ALLOW
            );
        }
        for cmd in [
            libc::F_GETFL,
            libc::F_SETFL,
            libc::F_DUPFD_CLOEXEC,
            libc::F_GETOWN,
        ] {
            assert_eq!(call(&bare, libc::SYS_fcntl, [3, cmd as u32, 0]), RET_ALLOW);
        }
        let kill = libc::SYS_kill;
        assert_eq!(call(&bare, kill, [1234, 9, 0]), eperm);
        assert_eq!(call(&bare, kill, [(-1200i32) as u32, 9, 0]), eperm);
        assert_eq!(call(&bare, kill, [u32::MAX, 9, 0]), eperm);
        assert_eq!(call(&bare, kill, [4321, 9, 0]), RET_ALLOW);
        assert_eq!(call(&landlocked, kill, [1234, 9, 0]), RET_ALLOW);
        assert_eq!(call(&bare, libc::SYS_tgkill, [1234, 1235, 9]), eperm);
        assert_eq!(call(&bare, libc::SYS_tgkill, [99, 99, 9]), RET_ALLOW);
        for p in [&bare, &landlocked] {
            assert_eq!(call(p, libc::SYS_prlimit64, [0, 7, 0]), RET_ALLOW);
            assert_eq!(call(p, libc::SYS_prlimit64, [1234, 7, 0]), eperm);
            let fork = libc::SIGCHLD as u32;
            let vfork = (libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD) as u32;
            let userns = (libc::CLONE_NEWUSER | libc::SIGCHLD) as u32;
            assert_eq!(call(p, libc::SYS_clone, [fork, 0, 0]), RET_ALLOW);
            assert_eq!(call(p, libc::SYS_clone, [vfork, 0, 0]), RET_ALLOW);
            assert_eq!(call(p, libc::SYS_clone, [userns, 0, 0]), eperm);
            let sibling = (libc::CLONE_PARENT | libc::SIGCHLD) as u32;
            assert_eq!(call(p, libc::SYS_clone, [sibling, 0, 0]), eperm);
            assert_eq!(call(p, libc::SYS_clone3, [0; 3]), enosys);
        }
        let socket = libc::SYS_socket;
        let tcp = [libc::AF_INET as u32, libc::SOCK_STREAM as u32, 0];
        let tcp6 = [libc::AF_INET6 as u32, libc::SOCK_STREAM as u32, 6];
        let sctp = [libc::AF_INET as u32, libc::SOCK_STREAM as u32, 132];
        let udp = [libc::AF_INET6 as u32, libc::SOCK_DGRAM as u32, 0];
        let raw = [libc::AF_INET as u32, libc::SOCK_RAW as u32, 0];
        let unix = [libc::AF_UNIX as u32, libc::SOCK_STREAM as u32, 0];
        assert_eq!(call(&bare, socket, tcp), RET_ALLOW);
        assert_eq!(call(&bare, socket, tcp6), RET_ALLOW);
        assert_eq!(call(&bare, socket, sctp), eacces);
        assert_eq!(call(&bare, socket, udp), eacces);
        assert_eq!(call(&bare, socket, raw), eacces);
        assert_eq!(call(&bare, socket, unix), eacces);
        let offline = program(&spec(false, false, false)).unwrap();
        assert_eq!(call(&offline, socket, tcp), eacces);
        let network = program(&spec(true, true, false)).unwrap();
        assert_eq!(call(&network, socket, udp), RET_ALLOW);
        assert_eq!(call(&network, socket, tcp), RET_ALLOW);
        assert_eq!(call(&network, socket, unix), eacces);
        // Another architecture's numbers, and x32's.
        assert_eq!(
            run(&bare, 0x4000_0003, libc::SYS_read as u32, [0; 3]),
            enosys
        );
        #[cfg(target_arch = "x86_64")]
        assert_eq!(run(&bare, arch, 0x4000_0000, [0; 3]), enosys);
    }
}
