//! The child's privileges, the second half of its step 3: `no_new_privs` on the confined
//! route (no `execve` gains a privilege back; a filter needs it of an agent without
//! `CAP_SYS_ADMIN`), then the capability sets the parent chose ([`capabilities_to_keep`]):
//! those that read and own files, where the agent holds more.

use super::step::Step;

/// No new privileges on the confined route (`confine`), then the capability sets `caps` (null:
/// nothing to drop).
///
/// # Safety
/// The spawn child's only: raw system calls; `caps` is null or two valid [`CapData`] words.
pub(super) unsafe fn lower(confine: bool, caps: *const CapData) -> Result<(), Step> {
    // SAFETY (each call): raw system calls on this child's own state, with capability sets
    // the parent prepared and keeps alive.
    unsafe {
        if confine && libc::syscall(libc::SYS_prctl, libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(Step::NoNewPrivs);
        }
        if !caps.is_null() {
            let mut header = CapHeader {
                version: CAP_VERSION_3,
                pid: 0,
            };
            if libc::syscall(libc::SYS_capset, &mut header as *mut CapHeader, caps) != 0 {
                return Err(Step::Capabilities);
            }
        }
    }
    Ok(())
}

/// The kernel's `struct __user_cap_header_struct`.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: i32,
}

/// The kernel's `struct __user_cap_data_struct`: one 32-bit word of each set.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(super) struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// `_LINUX_CAPABILITY_VERSION_3`.
const CAP_VERSION_3: u32 = 0x2008_0522;

/// `CAP_DAC_OVERRIDE`: write (and execute) files whatever their mode.
const CAP_DAC_OVERRIDE: u32 = 1 << 1;
/// `CAP_DAC_READ_SEARCH`: read files and search directories whatever their mode (and
/// `open_by_handle_at`, which the filter refuses).
const CAP_DAC_READ_SEARCH: u32 = 1 << 2;
/// `CAP_FOWNER`: act on files one does not own (modes, times, `O_NOATIME`).
const CAP_FOWNER: u32 = 1 << 3;

/// The capability sets a command gets when the agent holds more than its profile needs: a
/// read-only command keeps `CAP_DAC_READ_SEARCH` alone (what reading needs: a root agent's
/// workspace may hold files of any user), a `writes` command also `CAP_DAC_OVERRIDE` and
/// `CAP_FOWNER` (writing and owning them); nothing inheritable (hence no ambient ones), and
/// never more than the agent holds. With `no_new_privs`, no `execve` can gain a capability
/// back (setuid bits and file capabilities are clamped to the permitted set). `None` when
/// there is nothing to drop.
pub(super) fn capabilities_to_keep(writes: bool) -> Option<[CapData; 2]> {
    let keep: u32 = if writes {
        CAP_DAC_READ_SEARCH | CAP_DAC_OVERRIDE | CAP_FOWNER
    } else {
        CAP_DAC_READ_SEARCH
    };
    let mut header = CapHeader {
        version: CAP_VERSION_3,
        pid: 0,
    };
    let mut data = [CapData::default(); 2];
    // SAFETY: capget fills two CapData words for version 3.
    if unsafe { libc::syscall(libc::SYS_capget, &mut header, data.as_mut_ptr()) } != 0 {
        return None;
    }
    let holds_more = data.iter().enumerate().any(|(i, d)| {
        let keep = if i == 0 { keep } else { 0 };
        (d.permitted | d.effective | d.inheritable) & !keep != 0
    });
    if !holds_more {
        return None;
    }
    data[0].effective &= keep;
    data[0].permitted &= keep;
    data[0].inheritable = 0;
    data[1] = CapData::default();
    Some(data)
}
