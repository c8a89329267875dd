//! Plays an older or stricter kernel: a seccomp filter on the calling thread (inherited by
//! the threads and processes it starts) that answers some system calls with an errno, as a
//! kernel without them (`ENOSYS`), one that refuses a flag it does not know (`EINVAL`) or a
//! container's filter (`EPERM`) would.

const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JSET_K: u16 = 0x45;
const RET_K: u16 = 0x06;
const ALLOW: u32 = 0x7fff_0000;

fn op(code: u16, jt: u8, jf: u8, k: u32) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// The filter's answer for a call it refuses: `errno`.
fn refusal(errno: i32) -> u32 {
    0x0005_0000 | (errno as u32 & 0xffff)
}

/// Makes every later call of `nrs` by this thread, and by what it starts, fail with `errno`.
pub fn refuse_syscalls(nrs: &[libc::c_long], errno: i32) {
    let mut filter = vec![op(LD_W_ABS, 0, 0, 0)];
    for (i, nr) in nrs.iter().enumerate() {
        // To the errno return: over the remaining tests and the allow.
        filter.push(op(JEQ_K, (nrs.len() - i) as u8, 0, *nr as u32));
    }
    filter.push(op(RET_K, 0, 0, ALLOW));
    filter.push(op(RET_K, 0, 0, refusal(errno)));
    install(&mut filter);
}

/// Makes every later call of `nr` by this thread, and by what it starts, whose argument `arg`
/// (0 for the first) has a bit of `flags` set in its low 32 bits fail with `errno`; other
/// calls of `nr` go through.
pub fn refuse_syscall_with_flags(nr: libc::c_long, arg: u32, flags: u32, errno: i32) {
    // `struct seccomp_data`: nr, arch, instruction pointer, then the 8-byte arguments from
    // offset 16; the low word first (little-endian).
    let mut filter = [
        op(LD_W_ABS, 0, 0, 0),
        op(JEQ_K, 0, 3, nr as u32),
        op(LD_W_ABS, 0, 0, 16 + 8 * arg),
        op(JSET_K, 0, 1, flags),
        op(RET_K, 0, 0, refusal(errno)),
        op(RET_K, 0, 0, ALLOW),
    ];
    install(&mut filter);
}

/// Installs `filter` on this thread.
fn install(filter: &mut [libc::sock_filter]) {
    let prog = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_mut_ptr(),
    };
    // SAFETY: a valid program that lives across the call; no_new_privs first, as required.
    unsafe {
        assert_eq!(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
        assert_eq!(
            libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0, &prog),
            0,
            "{}",
            std::io::Error::last_os_error()
        );
    }
}
