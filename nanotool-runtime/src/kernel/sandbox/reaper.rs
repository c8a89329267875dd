//! The pid 1 of a command's private PID namespace: a reaper of a few hundred bytes of machine
//! code, so that the command itself is pid 2 and keeps the signal semantics every program
//! expects.
//!
//! A process that is pid 1 of its namespace ignores every signal it has no handler for when
//! the signal comes from inside the namespace (its own `kill $$`, a `SIGPIPE` from a closed
//! pipe, `SIGALRM`), and every signal but `SIGKILL` and `SIGSTOP` from outside: a command run
//! as pid 1 would go on writing into a closed pipe and survive a `SIGTERM` it never handled.
//! So the spawn child, once confined, `execve`s this program instead of the command (from a
//! sealed memfd the kernel made once: nothing on disk, nothing a command can change), with
//! the command's path and argv as its own argv and the command's environment as its own. It
//!
//! 1. marks fd 3 (the record pipe) close-on-exec, `vfork`s, and in the child unblocks every
//!    signal and `execve`s the command: pid 2, confined exactly as the spawn child was, since
//!    Landlock, the seccomp filter, capabilities and limits pass through `execve` and fork;
//! 2. waits with every signal blocked (`rt_sigtimedwait`), reaps whatever exits (orphans
//!    come to it), and forwards every other signal to the command (as tini and bubblewrap do);
//! 3. when the command is reaped, writes its wait status to fd 3 and exits with the command's
//!    exit code (or 128 + the signal), which ends every process left in the namespace.
//!
//! The record pipe tells the agent the command's own status (a reaper cannot die of the
//! command's signal: pid 1 cannot signal itself to death) and an `execve` that failed
//! (`errno`): two 8-byte records, `(0, wait status)` and `(1, errno)`, native-endian.
//!
//! The reaper is as confined as the command (it is the spawn child after `execve`): a
//! command that could steer it gains nothing it does not already have. It costs one `execve`
//! of a static image of 544 bytes (368 of them code, on x86_64) and one `vfork` per call
//! (measured in `bench_kernel -- pidns`).

use std::ffi::c_int;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// The reaper's image, in a sealed memfd: what the spawn child `execveat`s.
#[derive(Debug)]
pub(crate) struct Reaper {
    image: OwnedFd,
}

/// `MFD_EXEC` (Linux 6.3): a memfd that may be executed where `vm.memfd_noexec` asks callers
/// to say so. Older kernels refuse the flag (`EINVAL`) and make every memfd executable.
const MFD_EXEC: libc::c_uint = 0x10;

impl Reaper {
    /// Writes the image for this machine's architecture into a new memfd and seals it
    /// (no write, no resize, no new seal). `Unsupported` on an architecture without one.
    pub(crate) fn new() -> io::Result<Reaper> {
        let image = image().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::Unsupported,
                format!("no reaper for the {} architecture", std::env::consts::ARCH),
            )
        })?;
        let create = |flags: libc::c_uint| {
            // SAFETY: memfd_create with a NUL-terminated name; returns a fresh fd or -1.
            let fd = unsafe { libc::memfd_create(c"nanotool-reaper".as_ptr(), flags) };
            if fd < 0 {
                Err(io::Error::last_os_error())
            } else {
                // SAFETY: a fresh fd nobody else owns.
                Ok(unsafe { OwnedFd::from_raw_fd(fd) })
            }
        };
        let base = libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING;
        let fd = match create(base | MFD_EXEC) {
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => create(base)?,
            other => other?,
        };
        let mut file = std::fs::File::from(fd);
        file.write_all(&image)?;
        let seals =
            libc::F_SEAL_SEAL | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE;
        // SAFETY: F_ADD_SEALS on a memfd this function owns.
        if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_ADD_SEALS, seals) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Reaper {
            image: super::super::sys::above_stdio(file.into())?,
        })
    }

    /// The memfd the spawn child runs.
    pub(crate) fn fd(&self) -> RawFd {
        self.image.as_raw_fd()
    }
}

/// What the reaper reported about the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Record {
    /// The command ended with this wait status.
    Ended(c_int),
    /// Its `execve` (or the `vfork` before it) failed with this errno: it never ran.
    NotStarted(c_int),
}

/// Reads the reaper's records from the read end of its pipe (non-blocking, after the reaper
/// was reaped): a failed start wins over a status; `None` when the reaper wrote nothing (it
/// was killed: the call's timeout, cancel or a limit).
pub(crate) fn read_record(pipe: &OwnedFd) -> Option<Record> {
    let mut buf = [0u8; 16];
    // SAFETY: read into a buffer of 16 bytes from an fd we own.
    let n = unsafe { libc::read(pipe.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
    let n = usize::try_from(n).ok()?;
    let mut found = None;
    for record in buf[..n - n % 8].chunks_exact(8) {
        let word = |i: usize| {
            c_int::from_ne_bytes([record[i], record[i + 1], record[i + 2], record[i + 3]])
        };
        match word(0) {
            0 => found = found.or(Some(Record::Ended(word(4)))),
            1 => return Some(Record::NotStarted(word(4))),
            _ => {}
        }
    }
    found
}

/// Where the image is loaded (non-PIE: above any `vm.mmap_min_addr`).
const BASE: u64 = 0x40_0000;
/// The ELF header and two program headers before the code.
const HEADERS: usize = 64 + 2 * 56;

/// The reaper as a static ELF executable: one read-execute segment holding the headers and
/// the code, and a non-executable stack.
fn image() -> Option<Vec<u8>> {
    let (machine, code) = code()?;
    let total = (HEADERS + code.len()) as u64;
    let mut elf = Vec::with_capacity(HEADERS + code.len());
    // e_ident: magic, 64-bit, little-endian, version 1, System V.
    elf.extend_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1, 1, 0]);
    elf.extend_from_slice(&[0; 8]);
    elf.extend_from_slice(&2u16.to_le_bytes()); // ET_EXEC
    elf.extend_from_slice(&machine.to_le_bytes());
    elf.extend_from_slice(&1u32.to_le_bytes()); // EV_CURRENT
    elf.extend_from_slice(&(BASE + HEADERS as u64).to_le_bytes()); // e_entry
    elf.extend_from_slice(&64u64.to_le_bytes()); // e_phoff
    elf.extend_from_slice(&0u64.to_le_bytes()); // e_shoff
    elf.extend_from_slice(&0u32.to_le_bytes()); // e_flags
    elf.extend_from_slice(&64u16.to_le_bytes()); // e_ehsize
    elf.extend_from_slice(&56u16.to_le_bytes()); // e_phentsize
    elf.extend_from_slice(&2u16.to_le_bytes()); // e_phnum
    elf.extend_from_slice(&[0; 6]); // e_shentsize, e_shnum, e_shstrndx
    let header = |elf: &mut Vec<u8>, kind: u32, flags: u32, at: u64, size: u64, align: u64| {
        elf.extend_from_slice(&kind.to_le_bytes());
        elf.extend_from_slice(&flags.to_le_bytes());
        elf.extend_from_slice(&0u64.to_le_bytes()); // p_offset
        elf.extend_from_slice(&at.to_le_bytes()); // p_vaddr
        elf.extend_from_slice(&at.to_le_bytes()); // p_paddr
        elf.extend_from_slice(&size.to_le_bytes()); // p_filesz
        elf.extend_from_slice(&size.to_le_bytes()); // p_memsz
        elf.extend_from_slice(&align.to_le_bytes());
    };
    header(&mut elf, 1, 4 | 1, BASE, total, 0x1_0000); // PT_LOAD, read + execute
    header(&mut elf, 0x6474_e551, 4 | 2, 0, 0, 16); // PT_GNU_STACK, read + write
    debug_assert_eq!(elf.len(), HEADERS);
    elf.extend_from_slice(code);
    Some(elf)
}

/// The ELF machine number and the reaper's code for this architecture.
fn code() -> Option<(u16, &'static [u8])> {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        let mut len = 0usize;
        // SAFETY: `reaper_code` only stores the code's length through the pointer it is given
        // and returns the code's address; the code itself is never run in this process.
        let start = unsafe { reaper_code(&mut len) };
        // SAFETY: `start..start + len` is the code between two labels of one function in this
        // binary's text, which lives as long as the process.
        let code = unsafe { std::slice::from_raw_parts(start, len) };
        #[cfg(target_arch = "x86_64")]
        return Some((62, code)); // EM_X86_64
        #[cfg(target_arch = "aarch64")]
        return Some((183, code)); // EM_AARCH64
    }
    #[allow(unreachable_code)]
    None
}

// The reaper's code, assembled with the crate and copied out of this function: its first
// instructions return the code's address and store its length; what follows label 2 is the
// program, position-independent, using only system calls and its own stack. Its stack at
// entry: argc, then argv (the command's path, then the command's argv), NULL, then envp.
//
// Scratch on the stack: [sp] a siginfo (128 bytes), [sp + 128] a signal set, [sp + 136] a
// record (kind, value).
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
unsafe extern "C" fn reaper_code(len: *mut usize) -> *const u8 {
    core::arch::naked_asm!(
        "lea rax, [rip + 2f]",
        "lea rcx, [rip + 3f]",
        "sub rcx, rax",
        "mov [rdi], rcx",
        "ret",
        "2:",
        "mov r12, [rsp]",
        "lea r13, [rsp + 8]",
        "lea r14, [r13 + r12 * 8 + 8]",
        "sub rsp, 256",
        "and rsp, -16",
        // fcntl(3, F_SETFD, FD_CLOEXEC): the record pipe is not the command's.
        "mov eax, 72",
        "mov edi, 3",
        "mov esi, 2",
        "mov edx, 1",
        "syscall",
        // vfork()
        "mov eax, 58",
        "syscall",
        "test rax, rax",
        "js 8f",
        "jnz 4f",
        // The child: no signal blocked, then execve(argv[0], argv + 1, envp).
        "mov qword ptr [rsp + 128], 0",
        "mov eax, 14",
        "mov edi, 2",
        "lea rsi, [rsp + 128]",
        "xor edx, edx",
        "mov r10d, 8",
        "syscall",
        "mov eax, 59",
        "mov rdi, [r13]",
        "lea rsi, [r13 + 8]",
        "mov rdx, r14",
        "syscall",
        // The command did not start (-errno in rax): record (1, errno), exit 127.
        "8:",
        "neg eax",
        "mov dword ptr [rsp + 140], eax",
        "mov dword ptr [rsp + 136], 1",
        "mov eax, 1",
        "mov edi, 3",
        "lea rsi, [rsp + 136]",
        "mov edx, 8",
        "syscall",
        "mov eax, 231",
        "mov edi, 127",
        "syscall",
        "ud2",
        // The reaper: the command's pid in r15; every signal to wait for.
        "4:",
        "mov r15, rax",
        "mov qword ptr [rsp + 128], -1",
        // wait4(-1, &status, WNOHANG | __WALL, NULL) until nothing more has exited.
        "5:",
        "mov eax, 61",
        "mov rdi, -1",
        "lea rsi, [rsp + 140]",
        "mov edx, 0x40000001",
        "xor r10d, r10d",
        "syscall",
        "cmp rax, r15",
        "je 7f",
        "test rax, rax",
        "jg 5b",
        "js 9f",
        // rt_sigtimedwait(&every, &info, NULL, 8): SIGCHLD reaps, any other is forwarded.
        "6:",
        "mov eax, 128",
        "lea rdi, [rsp + 128]",
        "mov rsi, rsp",
        "xor edx, edx",
        "mov r10d, 8",
        "syscall",
        "cmp eax, 17",
        "je 5b",
        "test eax, eax",
        "jle 6b",
        "mov esi, eax",
        "mov edi, r15d",
        "mov eax, 62",
        "syscall",
        "jmp 6b",
        // The command ended: record (0, status), exit with its code or 128 + its signal.
        "7:",
        "mov dword ptr [rsp + 136], 0",
        "mov eax, 1",
        "mov edi, 3",
        "lea rsi, [rsp + 136]",
        "mov edx, 8",
        "syscall",
        "mov edi, dword ptr [rsp + 140]",
        "mov eax, edi",
        "and eax, 0x7f",
        "jz 22f",
        "lea edi, [eax + 128]",
        "jmp 23f",
        "22:",
        "shr edi, 8",
        "and edi, 0xff",
        "23:",
        "mov eax, 231",
        "syscall",
        "ud2",
        // No child left before the command was reaped (cannot happen): exit 127.
        "9:",
        "mov edi, 127",
        "jmp 23b",
        "3:",
    )
}

#[cfg(target_arch = "aarch64")]
#[unsafe(naked)]
unsafe extern "C" fn reaper_code(len: *mut usize) -> *const u8 {
    core::arch::naked_asm!(
        "adr x1, 2f",
        "adr x2, 3f",
        "sub x2, x2, x1",
        "str x2, [x0]",
        "mov x0, x1",
        "ret",
        "2:",
        "ldr x19, [sp]",
        "add x20, sp, #8",
        "add x21, x20, x19, lsl #3",
        "add x21, x21, #8",
        "sub sp, sp, #256",
        // fcntl(3, F_SETFD, FD_CLOEXEC)
        "mov x0, #3",
        "mov x1, #2",
        "mov x2, #1",
        "mov x8, #25",
        "svc #0",
        // clone(CLONE_VM | CLONE_VFORK | SIGCHLD, 0, 0, 0, 0): a vfork.
        "mov x0, #0x4111",
        "mov x1, #0",
        "mov x2, #0",
        "mov x3, #0",
        "mov x4, #0",
        "mov x8, #220",
        "svc #0",
        "cmp x0, #0",
        "b.lt 8f",
        "b.gt 4f",
        "str xzr, [sp, #128]",
        "mov x0, #2",
        "add x1, sp, #128",
        "mov x2, #0",
        "mov x3, #8",
        "mov x8, #135",
        "svc #0",
        "ldr x0, [x20]",
        "add x1, x20, #8",
        "mov x2, x21",
        "mov x8, #221",
        "svc #0",
        "8:",
        "neg w0, w0",
        "str w0, [sp, #140]",
        "mov w1, #1",
        "str w1, [sp, #136]",
        "mov x0, #3",
        "add x1, sp, #136",
        "mov x2, #8",
        "mov x8, #64",
        "svc #0",
        "mov x0, #127",
        "mov x8, #94",
        "svc #0",
        "brk #0",
        "4:",
        "mov x22, x0",
        "mov x0, #-1",
        "str x0, [sp, #128]",
        "5:",
        "mov x0, #-1",
        "add x1, sp, #140",
        "mov x2, #1",
        "movk x2, #0x4000, lsl #16",
        "mov x3, #0",
        "mov x8, #260",
        "svc #0",
        "cmp x0, x22",
        "b.eq 7f",
        "cmp x0, #0",
        "b.gt 5b",
        "b.lt 9f",
        "6:",
        "add x0, sp, #128",
        "mov x1, sp",
        "mov x2, #0",
        "mov x3, #8",
        "mov x8, #137",
        "svc #0",
        "cmp x0, #17",
        "b.eq 5b",
        "cmp x0, #0",
        "b.le 6b",
        "mov x1, x0",
        "mov x0, x22",
        "mov x8, #129",
        "svc #0",
        "b 6b",
        "7:",
        "str wzr, [sp, #136]",
        "mov x0, #3",
        "add x1, sp, #136",
        "mov x2, #8",
        "mov x8, #64",
        "svc #0",
        "ldr w0, [sp, #140]",
        "and w1, w0, #0x7f",
        "cbz w1, 22f",
        "add w0, w1, #128",
        "b 23f",
        "22:",
        "ubfx w0, w0, #8, #8",
        "23:",
        "mov x8, #94",
        "svc #0",
        "brk #0",
        "9:",
        "mov x0, #127",
        "b 23b",
        "3:",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_is_a_static_elf_whose_entry_is_its_code() {
        let Some(elf) = image() else {
            return assert!(Reaper::new().is_err());
        };
        assert_eq!(&elf[..4], b"\x7fELF");
        let entry = u64::from_le_bytes(elf[24..32].try_into().unwrap());
        assert_eq!(entry, BASE + HEADERS as u64);
        // The load segment covers the whole file.
        let filesz = u64::from_le_bytes(elf[64 + 32..64 + 40].try_into().unwrap());
        assert_eq!(filesz, elf.len() as u64);
        assert!(elf.len() > HEADERS + 64, "{} bytes", elf.len());
    }

    #[test]
    fn records_say_a_failed_start_before_a_status() {
        let (read, write) = crate::kernel::sys::pipe().unwrap();
        let rec = |kind: c_int, value: c_int| {
            let mut b = kind.to_ne_bytes().to_vec();
            b.extend_from_slice(&value.to_ne_bytes());
            b
        };
        let mut w = std::fs::File::from(write);
        w.write_all(&rec(1, libc::ENOENT)).unwrap();
        w.write_all(&rec(0, 127 << 8)).unwrap();
        assert_eq!(read_record(&read), Some(Record::NotStarted(libc::ENOENT)));
        w.write_all(&rec(0, libc::SIGTERM)).unwrap();
        assert_eq!(read_record(&read), Some(Record::Ended(libc::SIGTERM)));
        assert_eq!(read_record(&read), None);
    }
}
