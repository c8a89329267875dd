//! The Landlock ruleset of a profile: which paths a confined command may read, execute and
//! write, and whether it may use TCP and UDP. Built once per profile; each command applies it to
//! itself between its clone and its `execve` (see `spawn`).

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope,
};
use std::path::{Path, PathBuf};

/// The newest ABI these rules are written for; older kernels get what they support.
pub(crate) const ABI_TARGET: u32 = 9;

/// System directories every command may read and execute. Not `/opt`: what a host installs
/// there (a vendor's toolchain, an agent's own files) is added on purpose with
/// `--sandbox-read /opt/NAME`.
pub(crate) const SYSTEM_DIRS: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc/alternatives",
];

/// Files under `/etc` every command may read: the dynamic loader's cache, the time zone, the
/// user and group names, the name-service switch, git's system config, the local host names
/// and service numbers, and OpenSSL's configuration (node refuses to start without it). None
/// holds a secret.
pub(crate) const ETC_FILES: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/gitconfig",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/ssl/openssl.cnf",
    // What the system is (pip reads them for its user agent, `distro` and `platform` too).
    "/etc/os-release",
    "/etc/debian_version",
    "/etc/lsb-release",
    // The file-type tables Python's `mimetypes` reads when it is first used (pip installing a
    // wheel, web servers): a file that exists and cannot be read ends the program.
    "/etc/mime.types",
    "/etc/httpd/mime.types",
    "/etc/httpd/conf/mime.types",
    "/etc/apache/mime.types",
    "/etc/apache2/mime.types",
];

/// Files of `/proc` about the machine as a whole (memory, load, uptime, processors), which
/// `free`, `uptime` and `nproc`-like tools read. Never `/proc/<pid>` nor `/proc/self`: through
/// those a command could read the agent's environment and memory.
pub(crate) const PROC_FILES: &[&str] = &[
    "/proc/meminfo",
    "/proc/loadavg",
    "/proc/uptime",
    "/proc/cpuinfo",
    "/proc/stat",
    "/proc/version",
];

/// The public certificate store, which every command may read (never `/etc/ssl/private`):
/// programs read it when they start whether or not they connect (npm dies with exit 243
/// when a `cafile` its config names is unreadable), and it holds no secret.
pub(crate) const CERTIFICATE_FILES: &[&str] = &[
    "/etc/ssl/certs",
    "/etc/ca-certificates",
    "/etc/ca-certificates.conf",
    "/etc/pki/tls/certs",
    "/etc/pki/ca-trust",
];

/// What a `network` tool reads besides: name resolution.
pub(crate) const NETWORK_FILES: &[&str] = &["/etc/resolv.conf", "/etc/gai.conf"];

pub(crate) use super::profile::{Enforced, Profile};

fn read_access() -> landlock::BitFlags<AccessFs> {
    AccessFs::Execute | AccessFs::ReadFile | AccessFs::ReadDir
}

fn write_access() -> landlock::BitFlags<AccessFs> {
    read_access()
        | AccessFs::WriteFile
        | AccessFs::RemoveDir
        | AccessFs::RemoveFile
        | AccessFs::MakeDir
        | AccessFs::MakeReg
        | AccessFs::MakeSym
        | AccessFs::MakeFifo
        | AccessFs::Refer
        | AccessFs::Truncate
}

impl From<RulesetStatus> for Enforced {
    fn from(status: RulesetStatus) -> Enforced {
        match status {
            RulesetStatus::FullyEnforced => Enforced::Fully,
            RulesetStatus::PartiallyEnforced => Enforced::Partially,
            RulesetStatus::NotEnforced => Enforced::Not,
        }
    }
}

/// The profile's ruleset, created and filled but applied to nobody yet.
pub(crate) fn ruleset(profile: &Profile) -> Result<RulesetCreated, String> {
    let mut rules: Vec<(PathBuf, landlock::BitFlags<AccessFs>)> = Vec::new();
    // Whether each path exists is asked when it is opened below (a missing one is skipped).
    let mut add = |path: &Path, access| rules.push((path.to_path_buf(), access));
    for dir in SYSTEM_DIRS.iter().chain(ETC_FILES) {
        add(Path::new(dir), read_access());
    }
    for file in CERTIFICATE_FILES {
        add(Path::new(file), read_access());
    }
    for file in PROC_FILES {
        add(Path::new(file), AccessFs::ReadFile.into());
    }
    if profile.network {
        for file in NETWORK_FILES {
            add(Path::new(file), read_access());
        }
    }
    add(
        Path::new("/dev/null"),
        AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev,
    );
    for dev in ["/dev/zero", "/dev/urandom", "/dev/random"] {
        add(Path::new(dev), AccessFs::ReadFile.into());
    }
    let workspace_access = if profile.writes {
        write_access()
    } else {
        read_access()
    };
    add(&profile.workspace, workspace_access);
    for private in profile.tmpdir.iter().chain(&profile.home) {
        add(private, write_access());
    }
    for path in &profile.read {
        add(path, read_access());
    }
    for path in &profile.write {
        add(path, write_access());
    }

    let fail = |what: &str, e: &dyn std::fmt::Display| format!("landlock: {what}: {e}");
    let abi = ABI::from(i32::try_from(profile.abi.min(ABI_TARGET)).unwrap_or(0));
    if abi == ABI::Unsupported {
        return Err("landlock: switched off for this kernel (ABI 0)".to_owned());
    }
    let handled = AccessFs::from_all(abi);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(handled)
        .map_err(|e| fail("handled filesystem access", &e))?;
    if !profile.network && profile.abi >= 4 {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(|e| fail("handled network access", &e))?;
    }
    if profile.abi >= 6 {
        ruleset = ruleset
            .scope(Scope::AbstractUnixSocket | Scope::Signal)
            .map_err(|e| fail("scopes", &e))?;
    }
    let mut created = ruleset
        .create()
        .map_err(|e| fail("create the ruleset", &e))?;
    for (path, access) in rules {
        let fd = match PathFd::new(&path) {
            Ok(fd) => fd,
            // Missing on this host (or unreadable to us): nothing to allow.
            Err(_) => continue,
        };
        // A rule carries only rights the ruleset handles, and on a file, file rights only.
        let access = if is_dir(&fd) {
            access & handled
        } else {
            access & AccessFs::from_file(abi)
        };
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(|e| fail(&format!("rule for {}", path.display()), &e))?;
    }
    Ok(created)
}

/// Whether an `O_PATH` fd names a directory: asked of the fd, not by walking the path again.
fn is_dir(fd: &PathFd) -> bool {
    use std::os::fd::{AsFd, AsRawFd};
    // SAFETY: fstat writes one `struct stat` into `st`, which is zeroed plain data.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        libc::fstat(fd.as_fd().as_raw_fd(), &mut st) == 0
            && st.st_mode & libc::S_IFMT == libc::S_IFDIR
    }
}

/// The running kernel's Landlock ABI (0: none), or why there is none.
pub(crate) fn kernel_abi() -> Result<u32, &'static str> {
    // SAFETY: LANDLOCK_CREATE_RULESET_VERSION with a null attr and size 0 only asks the ABI.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    if v >= 0 {
        return Ok(v as u32);
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EOPNOTSUPP) => Err(
            "Landlock is built into this kernel but not enabled (add `landlock` to the kernel's `lsm=` boot parameter)",
        ),
        _ => Err(
            "this kernel has no Landlock (Linux 5.13 or newer with CONFIG_SECURITY_LANDLOCK is needed)",
        ),
    }
}
