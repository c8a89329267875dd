//! Plays an older or stricter kernel: a seccomp filter on the calling thread (inherited by
//! the threads and processes it starts) that answers some system calls with an errno, as a
//! kernel without them (`ENOSYS`) or a container's filter (`EPERM`) would.

/// Makes every later call of `nrs` by this thread, and by what it starts, fail with `errno`.
pub fn refuse_syscalls(nrs: &[libc::c_long], errno: i32) {
    const LD_NR: u16 = 0x20;
    const JEQ_K: u16 = 0x15;
    const RET_K: u16 = 0x06;
    let mut filter = vec![libc::sock_filter {
        code: LD_NR,
        jt: 0,
        jf: 0,
        k: 0,
    }];
    for (i, nr) in nrs.iter().enumerate() {
        filter.push(libc::sock_filter {
            code: JEQ_K,
            // To the errno return: over the remaining tests and the allow.
            jt: (nrs.len() - i) as u8,
            jf: 0,
            k: *nr as u32,
        });
    }
    let allow = 0x7fff_0000;
    let refuse = 0x0005_0000 | (errno as u32 & 0xffff);
    for k in [allow, refuse] {
        filter.push(libc::sock_filter {
            code: RET_K,
            jt: 0,
            jf: 0,
            k,
        });
    }
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
