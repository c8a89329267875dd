//! The sandbox's tests, one file per class, with one `common` module. Each was a test binary
//! of its own; in this one, a test that changes process-wide state (a signal disposition,
//! the subreaper flag, the user, a limit, a seccomp filter on the whole process) or that
//! counts processes it cannot tell from its neighbours' runs its body in a fresh copy of the
//! binary (`common::in_own_process`), and the escape suite's replay at each Landlock ABI runs
//! `escapes` alone.
//!
//! | module | what it tests |
//! |---|---|
//! | `escapes` | each escape tried once, confined and as an unconfined control; the CLI's sandbox flags and report; replayed at every Landlock ABI |
//! | `confinement` | each class of escape at every Landlock ABI, and what the status line says does not hold |
//! | `no_landlock` | a Linux without Landlock, as an ordinary user: the agent's `/proc` files stay closed |
//! | `old_kernel` | the confined spawn without `close_range` |
//! | `git_config` | planted git configuration: drivers, includes, submodules, bare repositories |
//! | `workspace_config` | a workspace's own configuration (git's, a planted `json.py`) through the bundled tools |
//! | `lifecycle` | a command beside its host: `SIGCHLD`, subreapers, killed agents, the PID namespace, capabilities |
//! | `pid_namespace` | the PID namespace by default where Landlock cannot confine signals, its reaper as pid 1 |
//! | `limits` | per-call resource limits |
//! | `cgroup` | a cgroup v2 child per call: commands start in it, `cgroup.kill` ends the call, nothing is left behind, the fallbacks |
//! | `tmpdir` | the private TMPDIR never outlives its kernel |
//! | `toolchains` | npm, pip, cargo, git over loopback, test suites, linters, run confined |
//! | `common` | the `nanotool` binary, the filters that play an older Linux, `in_own_process` |

mod cgroup;
mod common;
mod confinement;
mod escapes;
mod git_config;
mod lifecycle;
mod limits;
mod no_landlock;
mod old_kernel;
mod pid_namespace;
mod tmpdir;
mod toolchains;
mod workspace_config;
