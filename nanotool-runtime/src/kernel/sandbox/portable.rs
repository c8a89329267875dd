//! The portable backend: what stands in for Landlock, the seccomp filter and the Linux spawn
//! on a system without them (macOS, the BSDs; on Linux under `--cfg nanotool_portable`, which
//! is how the tests run the kernel on this backend).
//!
//! Nothing is confined here: every profile's confinement fails to build with
//! [`NOT_AVAILABLE`], so `best-effort` runs commands directly (and the status says so) and
//! `required` refuses every call. A command still starts through std's spawn (`posix_spawn`
//! where the platform has it) with an argv and no shell, in the locked cwd, with the
//! allowlisted environment, stdin `/dev/null`, stdout and stderr on the kernel's pipe, and in a
//! process group of its own, so the timeout, the cancel and the end of a call kill the whole
//! group as on Linux.
//!
//! The items mirror the Linux modules' (`rules`, `seccomp`, `spawn`) by name and signature, so
//! the kernel's code is the same on both backends.

/// Why there is no sandbox on this backend, as the status and a refusal say it.
pub(crate) const NOT_AVAILABLE: &str =
    "not available on this OS: Landlock and seccomp are Linux's; commands run without a sandbox";

/// The Landlock side: a profile's description, and no ruleset.
pub(crate) mod rules {
    /// Nothing is confined, so no path is listed as readable by confined commands.
    pub(crate) const SYSTEM_DIRS: &[&str] = &[];
    /// As [`SYSTEM_DIRS`].
    pub(crate) const ETC_FILES: &[&str] = &[];

    pub(crate) use super::super::profile::{Enforced, Profile};

    /// There is no Landlock ABI on this backend.
    pub(crate) fn kernel_abi() -> Result<u32, &'static str> {
        Err(super::NOT_AVAILABLE)
    }
}

/// The seccomp side: no filter.
pub(crate) mod seccomp {
    pub(crate) use super::super::filter_spec::FilterSpec;

    /// This backend writes no filter.
    pub(crate) fn supported() -> bool {
        false
    }
}

/// No PID namespaces, so no reaper and nothing it records.
pub(crate) mod reaper {
    use std::os::fd::OwnedFd;

    /// What a reaper reports (never here).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    #[allow(
        dead_code,
        reason = "the shared wait code matches what Linux's reaper records; never made here"
    )]
    pub(crate) enum Record {
        /// The command ended with this wait status.
        Ended(libc::c_int),
        /// Its `execve` failed with this errno.
        NotStarted(libc::c_int),
    }

    /// Nothing is ever recorded on this backend.
    pub(crate) fn read_record(_pipe: &OwnedFd) -> Option<Record> {
        None
    }
}

/// Starting a command: std's spawn, in a process group of its own.
pub(crate) mod spawn {
    use super::super::start::Start;
    use super::rules::{Enforced, Profile};
    use super::seccomp::FilterSpec;
    use crate::kernel::lifecycle::PidNamespace;
    use std::convert::Infallible;
    use std::ffi::{CString, OsStr, OsString};
    use std::io;
    use std::os::fd::OwnedFd;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};

    /// An argv or an environment block (`KEY=VALUE`), checked for NUL bytes once.
    #[derive(Debug)]
    pub(crate) struct CStrings(Vec<CString>);

    impl CStrings {
        /// From byte strings; one holding a NUL byte is an error naming it.
        pub(crate) fn new<I, B>(items: I) -> io::Result<CStrings>
        where
            I: IntoIterator<Item = B>,
            B: Into<Vec<u8>>,
        {
            super::super::c_strings::c_strings(items).map(CStrings)
        }

        /// An environment block: `KEY=VALUE` strings.
        pub(crate) fn env(vars: &[(OsString, OsString)]) -> io::Result<CStrings> {
            CStrings::new(super::super::c_strings::env_entries(vars))
        }

        fn items(&self) -> impl Iterator<Item = &OsStr> {
            self.0.iter().map(|c| OsStr::from_bytes(c.as_bytes()))
        }
    }

    /// What the probe of a profile found (never built here).
    #[derive(Debug, Clone)]
    pub(crate) struct Setup {
        pub landlock: Result<Enforced, String>,
        pub seccomp: Result<(), String>,
    }

    /// A profile's confinement: none can be built on this backend, so none exists.
    #[derive(Debug)]
    pub(crate) struct Confinement {
        pub setup: Setup,
        pub local_network: Option<std::sync::Arc<LocalNet>>,
        never: Infallible,
    }

    /// A private loopback for `"network": "local"` (never: no network namespaces here).
    #[derive(Debug)]
    pub(crate) struct LocalNet(Infallible);

    impl LocalNet {
        /// Never called: no private loopback exists.
        pub(crate) fn through_user(&self) -> bool {
            match self.0 {}
        }

        /// Never called: no PID namespace exists.
        #[allow(dead_code, reason = "the Linux backend's shape; no caller on this one")]
        pub(crate) fn reaper(&self) -> Result<(), &str> {
            match self.0 {}
        }
    }

    /// No network namespaces on this backend.
    pub(crate) fn local_network() -> Result<LocalNet, String> {
        Err(super::NOT_AVAILABLE.to_owned())
    }

    impl Confinement {
        /// Always the error that says this OS has no sandbox.
        pub(crate) fn new(
            _profile: &Profile,
            _spec: FilterSpec,
            _abi: u32,
            _rules: bool,
        ) -> io::Result<Confinement> {
            Err(io::Error::new(
                io::ErrorKind::Unsupported,
                super::NOT_AVAILABLE,
            ))
        }

        /// Never called: no confinement exists.
        pub(crate) fn spawn(
            &self,
            _start: &Start<'_>,
            _namespace: Option<&NsPlan>,
        ) -> io::Result<Spawned> {
            match self.never {}
        }
    }

    /// A started command: its pid (it leads its own group); never a pidfd here.
    #[derive(Debug)]
    pub(crate) struct Spawned {
        pub pid: libc::pid_t,
        pub pidfd: Option<OwnedFd>,
        /// Never a reaper's record pipe here (no PID namespaces).
        pub records: Option<OwnedFd>,
    }

    /// No `clone3` into a cgroup here.
    pub(crate) fn clone_into_works(_cgroup: std::os::fd::BorrowedFd<'_>) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this build starts commands with std's spawn",
        ))
    }

    /// `/dev/null`, the commands' stdin.
    pub(crate) fn dev_null() -> io::Result<OwnedFd> {
        Ok(std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")?
            .into())
    }

    /// Starts `start` with std's spawn: argv\[0\] as written, the environment `env` and
    /// nothing else, in `cwd`, stdin `null`, stdout and stderr on `output`, leading a new
    /// process group (`process_group(0)`, which keeps std on `posix_spawn`). The call's
    /// resource limits and niceness are set in the child before it runs the program (which
    /// takes std off `posix_spawn`); `oom_score_adj` is Linux's and has no equivalent here,
    /// nor have the cgroup and mount namespace.
    pub(crate) fn spawn_plain(start: &Start<'_>, null: &OwnedFd) -> io::Result<Spawned> {
        let Start {
            program,
            argv,
            env,
            cwd,
            output,
            limits,
            ..
        } = *start;
        let mut args = argv.items();
        let mut command = Command::new(program);
        if let Some(arg0) = args.next() {
            command.arg0(arg0);
        }
        command.args(args).env_clear();
        for kv in env.items() {
            let bytes = kv.as_bytes();
            if let Some(eq) = bytes.iter().position(|&b| b == b'=') {
                command.env(
                    OsStr::from_bytes(&bytes[..eq]),
                    OsStr::from_bytes(&bytes[eq + 1..]),
                );
            }
        }
        command
            .current_dir(OsStr::from_bytes(cwd.to_bytes()))
            .stdin(Stdio::from(null.try_clone()?))
            .stdout(Stdio::from(output.try_clone()?))
            .stderr(Stdio::from(output.try_clone()?))
            .process_group(0);
        // `oom_first` (the child's `oom_score_adj`) is Linux's: nothing to set for it here.
        if let Some(limits) = limits.filter(|l| !l.rlimits.is_empty() || l.nice != 0) {
            let rlimits = limits.rlimits.clone();
            let nice = limits.nice;
            // SAFETY: the closure runs in the child between fork and exec, and calls only
            // setrlimit and setpriority (async-signal-safe) on data prepared before the fork.
            unsafe {
                command.pre_exec(move || {
                    for (resource, limit) in &rlimits {
                        if libc::setrlimit(*resource as _, limit) != 0 {
                            return Err(io::Error::last_os_error());
                        }
                    }
                    if nice != 0 && libc::setpriority(libc::PRIO_PROCESS, 0, nice) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let child = command.spawn()?;
        let pid = libc::pid_t::try_from(child.id())
            .map_err(|_| io::Error::other("the child's pid does not fit a pid_t"))?;
        // Dropping a `Child` neither waits nor kills; the kernel reaps it by pid.
        drop(child);
        Ok(Spawned {
            pid,
            pidfd: None,
            records: None,
        })
    }

    /// How a confined command would get its PID namespace (never: nothing is confined).
    #[derive(Debug)]
    pub(crate) struct NsPlan(Infallible);

    impl NsPlan {
        /// Never called: no PID namespace exists.
        pub(crate) fn through_user(&self) -> bool {
            match self.0 {}
        }

        /// Never called: no PID namespace exists.
        pub(crate) fn reaper(&self) -> Result<(), &str> {
            match self.0 {}
        }
    }

    /// No PID namespaces on this backend.
    pub(crate) fn pid_namespace() -> (PidNamespace, Option<NsPlan>) {
        (
            PidNamespace::Unavailable(super::NOT_AVAILABLE.to_owned()),
            None,
        )
    }

    pub(in crate::kernel) use super::super::super::sys_posix::reap;
}
