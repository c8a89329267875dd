//! What the calls' cgroups hold ([`CgroupStatus`], the part of the `limits:` line about them),
//! and the probing of the host it is made from: the cgroup v2 mount (where systems mount it,
//! else `/proc/self/mountinfo`), the agent's own cgroup (`0::/path` in `/proc/self/cgroup`),
//! whether this process may create cgroups in it, and whether a `cgroup.controllers` list
//! names any of the controllers the calls' cgroups are given ([`WANTED`]). Nothing here makes,
//! enters or removes a cgroup.

use std::fmt;
use std::path::{Path, PathBuf};

/// The controllers the calls' cgroups are given where the host allows, in the order the status
/// names them.
pub(super) const WANTED: [&str; 3] = ["pids", "memory", "cpu"];

/// Which per-call limits the calls' cgroups carry: [`Display`](fmt::Display) is the part of
/// the `limits:` status line about them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CgroupStatus {
    /// The folder the calls' cgroups are made in (`None`: no cgroup per call).
    pub parent: Option<PathBuf>,
    /// The controllers each call's cgroup has, among `pids`, `memory` and `cpu`.
    pub controllers: Vec<String>,
    /// Each controller the calls' cgroups lack, with why.
    pub missing: Vec<(String, String)>,
    /// Why there is no cgroup per call.
    pub note: Option<String>,
    /// Linux has no `cgroup.kill` (before 5.14): the end of a call freezes its cgroup and
    /// kills each of its processes instead.
    pub freezes: bool,
}

impl CgroupStatus {
    /// Whether the calls' cgroups have `controller`.
    pub fn has(&self, controller: &str) -> bool {
        self.parent.is_some() && self.controllers.iter().any(|c| c == controller)
    }

    /// `: <why>` when the status knows why `controller` is missing. Where no call has a
    /// cgroup, the `limits:` line gives the reason once, at its end (`no cgroup per call
    /// (why)`), and each limit it leaves unbounded points there.
    pub(in crate::kernel) fn why(&self, controller: &str) -> String {
        if self.parent.is_none() && self.note.is_some() {
            return ": see \"no cgroup per call\"".to_owned();
        }
        self.note
            .as_deref()
            .or_else(|| {
                self.missing
                    .iter()
                    .find(|(c, _)| c == controller)
                    .map(|(_, why)| why.as_str())
            })
            .map_or_else(String::new, |n| format!(": {n}"))
    }
}

impl fmt::Display for CgroupStatus {
    /// `a cgroup per call in /sys/fs/cgroup/x/nanotool-12-0 (cgroup.kill ends every process of
    /// the call; controllers: pids, memory)`, or `no cgroup per call (why)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.parent {
            Some(parent) => {
                write!(
                    f,
                    "a cgroup per call in {} ({}; controllers: {})",
                    parent.display(),
                    if self.freezes {
                        "the end of a call freezes it and kills each of its processes (no cgroup.kill before Linux 5.14)"
                    } else {
                        "cgroup.kill ends every process of the call"
                    },
                    if self.controllers.is_empty() {
                        "none".to_owned()
                    } else {
                        self.controllers.join(", ")
                    }
                )
            }
            None => write!(
                f,
                "no cgroup per call ({})",
                self.note.as_deref().unwrap_or("none is used")
            ),
        }
    }
}

/// The cgroup v2 mount: its mount point and the cgroup path mounted there (`/` unless the
/// host mounted a subtree), from `/proc/self/mountinfo`.
pub(crate) fn cgroup2_mount(mountinfo: &str) -> Option<(PathBuf, String)> {
    mountinfo.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        if right.split(' ').next()? != "cgroup2" {
            return None;
        }
        let mut fields = left.split(' ');
        let root = fields.nth(3)?;
        let point = fields.next()?;
        Some((PathBuf::from(unescape(point)), unescape(root)))
    })
}

/// The agent's folder (`own`: its path in `/proc/self/cgroup`) in `mount`, the cgroup v2
/// hierarchy where systems mount it ([`usual_mount`]), found without the mount table. The
/// folder must be there and hold this process (its `cgroup.procs` lists it): a mount of a
/// subtree, or of the host's hierarchy seen from a cgroup namespace of the agent's own, names
/// another folder by that path, and the mount table then answers.
pub(super) fn usual_folder(mount: &Path, own: &str) -> Option<PathBuf> {
    let folder = cgroup_folder(mount, "/", own)?;
    let me = std::process::id().to_string();
    let holds_me = std::fs::read_to_string(folder.join("cgroup.procs"))
        .is_ok_and(|procs| procs.lines().any(|pid| pid == me));
    holds_me.then_some(folder)
}

/// The cgroup v2 hierarchy where systems mount it (`/sys/fs/cgroup`, or
/// `/sys/fs/cgroup/unified` beside v1 hierarchies), found by `statfs` alone.
pub(super) fn usual_mount() -> Option<PathBuf> {
    const CGROUP2_SUPER_MAGIC: i64 = 0x6367_7270;
    ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
        .into_iter()
        .find(|mount| {
            let Ok(c) = std::ffi::CString::new(*mount) else {
                return false;
            };
            // SAFETY: statfs fills the zeroed buffer it is given, for a NUL-terminated path.
            let mut st: libc::statfs = unsafe { std::mem::zeroed() };
            let found = unsafe { libc::statfs(c.as_ptr(), &mut st) } == 0;
            found && st.f_type as i64 == CGROUP2_SUPER_MAGIC
        })
        .map(PathBuf::from)
}

/// Whether a `cgroup.controllers` list names any of [`WANTED`].
pub(super) fn lists_wanted(controllers: &str) -> bool {
    WANTED
        .iter()
        .any(|c| controllers.split_whitespace().any(|a| a == *c))
}

/// A mountinfo field with its octal escapes (`\040` for a space) undone.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| bytes[i] == b'\\' && d.iter().all(|b| (b'0'..=b'7').contains(b)));
        if let Some(d) = octal {
            out.push(
                d.iter()
                    .fold(0u8, |v, b| v.wrapping_mul(8).wrapping_add(b - b'0')),
            );
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The agent's cgroup v2 path (`0::/path` in `/proc/self/cgroup`).
pub(crate) fn own_cgroup(proc_cgroup: &str) -> Option<&str> {
    proc_cgroup
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .filter(|p| p.starts_with('/') && !p.ends_with(" (deleted)"))
}

/// The folder of cgroup `path` under a cgroup v2 `mount` of `root` (`None`: outside it).
pub(crate) fn cgroup_folder(mount: &Path, root: &str, path: &str) -> Option<PathBuf> {
    let rest = if root == "/" {
        path
    } else {
        let rest = path.strip_prefix(root)?;
        if !(rest.is_empty() || rest.starts_with('/')) {
            return None;
        }
        rest
    };
    let rest = rest.trim_start_matches('/');
    Some(if rest.is_empty() {
        mount.to_path_buf()
    } else {
        mount.join(rest)
    })
}

/// Whether this process may create entries in `dir` (its effective ids, as `mkdir` asks).
pub(super) fn writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: faccessat reads the NUL-terminated path and touches no other memory.
    unsafe {
        libc::faccessat(
            libc::AT_FDCWD,
            path.as_ptr(),
            libc::W_OK | libc::X_OK,
            libc::AT_EACCESS,
        ) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pids_memory_and_cpu_are_wanted() {
        assert!(!lists_wanted("cpuset io hugetlb rdma misc\n"));
        assert!(!lists_wanted(""));
        assert!(lists_wanted("cpuset cpu io\n"));
        assert!(lists_wanted("memory"));
    }

    #[test]
    fn the_cgroup2_mount_is_found_among_v1_ones() {
        let info = "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n\
                    41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
        assert_eq!(
            cgroup2_mount(info),
            Some((PathBuf::from("/sys/fs/cgroup/unified"), "/".to_owned()))
        );
        let spaced = "41 31 0:38 /a /sys/fs/my\\040cg rw shared:9 - cgroup2 cgroup2 rw\n";
        assert_eq!(
            cgroup2_mount(spaced),
            Some((PathBuf::from("/sys/fs/my cg"), "/a".to_owned()))
        );
        assert_eq!(cgroup2_mount("1 0 0:1 / / rw - ext4 /dev/vda rw\n"), None);
    }

    /// The usual mount points answer only with a folder that is there: a path the hierarchy
    /// mounted there does not have (a container that sees only its subtree, say) leaves the
    /// question to the mount table.
    #[test]
    fn the_usual_mount_answers_only_with_a_folder_that_exists() {
        let Some(mount) = usual_mount() else {
            return;
        };
        assert_eq!(usual_folder(&mount, "/no/such/cgroup/nanotool-test"), None);
        if let Some(folder) = usual_folder(&mount, "/") {
            assert_eq!(folder, mount);
            assert!(mount.join("cgroup.controllers").is_file(), "{mount:?}");
        }
    }

    #[test]
    fn the_agents_cgroup_and_its_folder() {
        assert_eq!(
            own_cgroup("9:pids:/\n0::/user.slice/a.scope\n"),
            Some("/user.slice/a.scope")
        );
        assert_eq!(own_cgroup("4:memory:/x\n"), None);
        assert_eq!(own_cgroup("0::/gone (deleted)\n"), None);
        let m = Path::new("/sys/fs/cgroup");
        assert_eq!(
            cgroup_folder(m, "/", "/"),
            Some(PathBuf::from("/sys/fs/cgroup"))
        );
        assert_eq!(
            cgroup_folder(m, "/", "/a/b"),
            Some(PathBuf::from("/sys/fs/cgroup/a/b"))
        );
        assert_eq!(
            cgroup_folder(m, "/a", "/a/b"),
            Some(PathBuf::from("/sys/fs/cgroup/b"))
        );
        assert_eq!(cgroup_folder(m, "/a", "/ab"), None);
        assert_eq!(cgroup_folder(m, "/a", "/c"), None);
    }

    #[test]
    fn the_status_says_which_limits_hold() {
        let none = CgroupStatus {
            note: Some("no cgroup v2 hierarchy is mounted".to_owned()),
            ..CgroupStatus::default()
        };
        // The reason is given once, where the line says there is no cgroup per call.
        assert_eq!(
            none.processes(Some(4096)),
            "processes: not bounded per call (no delegated cgroup v2 with the pids controller: see \"no cgroup per call\")"
        );
        assert_eq!(
            none.memory(Some(4096), true),
            "memory per call: not bounded, per process only, shared anonymous memory and memfds refused (no delegated cgroup v2 with the memory controller: see \"no cgroup per call\")"
        );
        assert_eq!(
            none.memory(Some(4096), false),
            "memory per call: not bounded, per process only, shared anonymous memory and memfds not counted (no seccomp filter) (no delegated cgroup v2 with the memory controller: see \"no cgroup per call\")"
        );
        assert_eq!(
            none.memory(None, false),
            "memory per call: not bounded (no memory limit is set)"
        );
        assert_eq!(
            none.to_string(),
            "no cgroup per call (no cgroup v2 hierarchy is mounted)"
        );
        let full = CgroupStatus {
            parent: Some(PathBuf::from("/sys/fs/cgroup/a/nanotool-1-0")),
            controllers: vec!["pids".into(), "memory".into()],
            ..CgroupStatus::default()
        };
        assert_eq!(
            full.processes(Some(4096)),
            "processes: bounded per call by cgroup (pids.max 4096)"
        );
        assert_eq!(
            full.memory(Some(2 << 30), false),
            "memory per call: 2 GiB (cgroup memory.max, no swap, the whole call killed when reached)"
        );
        assert!(full.to_string().contains("controllers: pids, memory"));
        assert!(full.to_string().contains("cgroup.kill ends every process"));
        // Before Linux 5.14 the status says what ends a call instead.
        let old = CgroupStatus {
            freezes: true,
            ..full.clone()
        };
        assert!(
            old.to_string().contains(
                "freezes it and kills each of its processes (no cgroup.kill before Linux 5.14)"
            ),
            "{old}"
        );
        let no_memory = CgroupStatus {
            parent: Some(PathBuf::from("/sys/fs/cgroup/a/nanotool-1-0")),
            controllers: vec!["pids".into()],
            missing: vec![("memory".into(), "memory is not available in /a".into())],
            note: None,
            freezes: false,
        };
        assert_eq!(
            no_memory.memory(Some(1 << 30), true),
            "memory per call: not bounded, per process only, shared anonymous memory and memfds refused (no delegated cgroup v2 with the memory controller: memory is not available in /a)"
        );
    }
}
