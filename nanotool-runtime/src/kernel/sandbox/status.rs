//! The sandbox's mode and what it enforces on this machine: [`SandboxMode`], the
//! [`SandboxStatus`] the kernel probes once, and the [`Promise`]s it keeps or cannot keep here.

use super::{rules, seccomp};
use std::fmt;

/// How strictly commands are confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxMode {
    /// A command never runs unconfined: when Landlock or the seccomp filter cannot be put in
    /// place, every call fails with an error that names what is missing, and nothing runs.
    Required,
    /// Confine as far as the running kernel allows, and say what is and is not enforced
    /// ([`CommandExecKernel::sandbox_status`](crate::CommandExecKernel::sandbox_status)).
    ///
    /// On a kernel without Landlock, building a kernel in this mode (or in `Required`) makes
    /// the whole host process non-dumpable (`PR_SET_DUMPABLE` 0), since nothing else keeps
    /// a command of the same user from its `/proc/<pid>/environ` and `mem`: no core dumps,
    /// and no debugger or profiler attaches without privileges, from then on.
    #[default]
    BestEffort,
    /// No confinement: commands act with every right of the agent's user.
    Off,
}

impl SandboxMode {
    /// The mode's name as the command line writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Required => "required",
            SandboxMode::BestEffort => "best-effort",
            SandboxMode::Off => "off",
        }
    }
}

impl std::str::FromStr for SandboxMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "required" => Ok(SandboxMode::Required),
            "best-effort" => Ok(SandboxMode::BestEffort),
            "off" => Ok(SandboxMode::Off),
            _ => Err(format!(
                "unknown sandbox mode `{s}`; write `required`, `best-effort` or `off`"
            )),
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the sandbox enforces on this machine, as `nanotool list` and `serve` print it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxStatus {
    /// The mode asked for.
    pub mode: SandboxMode,
    /// The Landlock ABI commands are confined at (the running Linux's, or lower where the
    /// settings ask to play an older one), or why there is none.
    pub landlock_abi: Result<u32, String>,
    /// Whether this build has seccomp rules for this machine's architecture.
    pub seccomp: bool,
    /// Whether each command runs in a PID namespace of its own, where it can name no process
    /// outside its call.
    pub pid_namespace: bool,
}

/// One thing the sandbox keeps a command from doing, and whether that holds on this machine
/// ([`SandboxStatus::promises`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Promise {
    /// What a command is kept from, in words: "signals to the agent".
    pub what: &'static str,
    /// Whether it holds here.
    pub holds: bool,
    /// What it needs, named when it does not hold: "Landlock ABI 6 (Linux 6.12) or a PID
    /// namespace".
    pub needs: &'static str,
    /// A command that breaks it can harm the agent itself (kill it, slow it for good): the
    /// `required` mode refuses to run where such a promise does not hold.
    pub agent_safety: bool,
}

impl SandboxStatus {
    pub(super) fn probe(mode: SandboxMode, abi_limit: Option<u32>, filter_rules: bool) -> Self {
        let running = rules::kernel_abi().map_err(str::to_owned).and_then(|abi| {
            if abi == 0 {
                Err("this kernel reports no Landlock ABI".to_owned())
            } else {
                Ok(abi)
            }
        });
        let landlock_abi = match (running, abi_limit) {
            (Ok(_), Some(0)) => Err("Landlock is switched off by the settings (ABI 0)".to_owned()),
            (Ok(abi), Some(limit)) => Ok(abi.min(limit)),
            (other, _) => other,
        };
        SandboxStatus {
            mode,
            landlock_abi,
            seccomp: seccomp::supported() && filter_rules,
            pid_namespace: false,
        }
    }

    /// Whether commands run confined (Landlock and the seccomp filter both in place).
    pub fn enforced(&self) -> bool {
        self.mode != SandboxMode::Off && self.landlock_abi.is_ok() && self.seccomp
    }

    /// What is missing for confinement, if anything (`None` when enforced or off).
    pub fn missing(&self) -> Option<String> {
        if self.mode == SandboxMode::Off {
            return None;
        }
        #[cfg(not(all(target_os = "linux", not(nanotool_portable))))]
        return Some(format!("the sandbox is {}", super::portable::NOT_AVAILABLE));
        #[allow(unreachable_code)] // After the portable backend's answer.
        let mut missing = Vec::new();
        if let Err(why) = &self.landlock_abi {
            missing.push(format!("Landlock: {why}"));
        }
        if !self.seccomp {
            missing.push(format!(
                "seccomp: no filter for the {} architecture in this build",
                std::env::consts::ARCH
            ));
        }
        (!missing.is_empty()).then(|| missing.join("; "))
    }

    /// Every promise of the sandbox and whether it holds here: what the running Linux's
    /// Landlock ABI, the seccomp filter and the namespaces make true. With the sandbox off,
    /// none holds.
    pub fn promises(&self) -> Vec<Promise> {
        let on = self.mode != SandboxMode::Off;
        let abi = match (&self.landlock_abi, on) {
            (Ok(abi), true) => *abi,
            _ => 0,
        };
        let filter = on && self.seccomp;
        let pidns = on && self.pid_namespace;
        let promise = |what, holds, needs, agent_safety| Promise {
            what,
            holds,
            needs,
            agent_safety,
        };
        vec![
            promise(
                "reading files outside the workspace and the added paths",
                abi >= 1,
                "Landlock (Linux 5.13)",
                false,
            ),
            promise(
                "writing, creating or deleting files outside what the tool may write",
                abi >= 1,
                "Landlock (Linux 5.13)",
                false,
            ),
            promise(
                "truncating files it may only read",
                abi >= 3 || (abi >= 1 && filter),
                "Landlock ABI 3, or Landlock and the seccomp filter",
                false,
            ),
            promise(
                "the network, for a tool that does not declare it; unix and abstract sockets",
                filter,
                "the seccomp filter",
                false,
            ),
            promise(
                "signals to the agent and other processes outside the call",
                filter && (abi >= 6 || pidns),
                "Landlock ABI 6 (Linux 6.12) or a PID namespace",
                true,
            ),
            promise(
                "the agent's scheduling, priority, CPU affinity and limits",
                filter,
                "the seccomp filter",
                true,
            ),
            promise(
                "ptrace, memory and file descriptors of the agent",
                filter || abi >= 1,
                "Landlock or the seccomp filter",
                true,
            ),
            promise(
                "SysV IPC, message queues, inotify, fanotify, io_uring, keyrings",
                filter,
                "the seccomp filter",
                false,
            ),
            promise(
                "modes, owners, timestamps, extended attributes and inode flags",
                filter,
                "the seccomp filter",
                false,
            ),
            promise(
                "leaving the call's process group",
                filter,
                "the seccomp filter",
                false,
            ),
        ]
    }

    /// The promises that do not hold here (none when the sandbox is off: nothing is promised).
    pub fn not_holding(&self) -> Vec<Promise> {
        if self.mode == SandboxMode::Off {
            return Vec::new();
        }
        self.promises().into_iter().filter(|p| !p.holds).collect()
    }

    /// Why the `required` mode cannot run commands here, if it cannot: confinement is
    /// missing, or a promise about the agent's own safety does not hold.
    pub fn refusal(&self) -> Option<String> {
        if self.mode == SandboxMode::Off {
            return None;
        }
        if let Some(missing) = self.missing() {
            return Some(missing);
        }
        let unsafe_here: Vec<String> = self
            .not_holding()
            .into_iter()
            .filter(|p| p.agent_safety)
            .map(|p| format!("{} (needs {})", p.what, p.needs))
            .collect();
        (!unsafe_here.is_empty())
            .then(|| format!("not confined on this Linux: {}", unsafe_here.join("; ")))
    }

    /// Parts that hold only partly on this kernel, in words (what [`Self::not_holding`]
    /// lists).
    pub fn partial(&self) -> Vec<String> {
        self.not_holding()
            .into_iter()
            .map(|p| format!("{} (needs {})", p.what, p.needs))
            .collect()
    }
}

impl fmt::Display for SandboxStatus {
    /// One line: `sandbox: landlock ABI 7 + seccomp, enforced`, or what is not enforced, and
    /// every promise that does not hold on this Linux.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.mode, self.missing()) {
            (SandboxMode::Off, _) => write!(
                f,
                "sandbox: off (commands run with every right of the agent's user)"
            ),
            (mode, None) => {
                let abi = self.landlock_abi.as_ref().copied().unwrap_or(0);
                write!(f, "sandbox: landlock ABI {abi} + seccomp")?;
                if self.pid_namespace {
                    write!(f, " + PID namespace")?;
                }
                match (mode, self.refusal()) {
                    (SandboxMode::Required, Some(why)) => {
                        write!(f, ", required but refused, every call will fail: {why}")
                    }
                    _ => {
                        write!(f, ", enforced")?;
                        let partial = self.partial();
                        if !partial.is_empty() {
                            write!(f, "; not confined on this Linux: {}", partial.join("; "))?;
                        }
                        Ok(())
                    }
                }
            }
            (SandboxMode::Required, Some(missing)) => write!(
                f,
                "sandbox: required but not available, every call will fail: {missing}"
            ),
            (SandboxMode::BestEffort, Some(missing)) => match &self.landlock_abi {
                Ok(abi) => write!(
                    f,
                    "sandbox: best-effort, landlock ABI {abi} without the seccomp filter ({missing}): files confined, capabilities dropped, host fds and process-group escapes closed; not confined on this Linux: {}",
                    self.partial().join("; ")
                ),
                Err(_) => write!(
                    f,
                    "sandbox: best-effort, NOT enforced: {missing}; commands act with the agent's rights (host fds and process-group escapes are still closed{})",
                    if self.pid_namespace {
                        "; a PID namespace per call keeps every process outside it out of reach"
                    } else {
                        ""
                    }
                ),
            },
        }
    }
}
