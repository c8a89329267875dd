//! The host's effective settings: the flags over the config file over the defaults, and where
//! each value came from (`nanotool list` shows it).
//!
//! One value (the folder, the sandbox mode, the default timeout and cap, a limit): the flag
//! when given, else the file's, else the default. Lists add up (paths commands may read or
//! write, denied binaries, `exec`'s binaries, variables): the file's entries, then the flags'
//! — a flag can add a denial or a path, never remove one the file sets; of two variables with
//! one name, the flag's wins.

use std::path::PathBuf;
use std::time::Duration;

use nanotool::{CgroupMode, KernelSettings, SandboxMode};
use nanotool_runtime::kernel::{RunSettings, check_env};

use crate::cli::{Common, Limit};
use crate::config::HostConfig;
use crate::report::Failure;

/// Where a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// nanotool's default.
    Default,
    /// The config file.
    File,
    /// A command-line flag.
    Flag,
}

impl Source {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Source::Default => "default",
            Source::File => "config",
            Source::Flag => "flag",
        }
    }
}

/// A host-wide setting as `list` shows it: its name, its value in words, where it came from.
#[derive(Debug, Clone)]
pub(crate) struct Shown {
    pub(crate) name: &'static str,
    pub(crate) value: String,
    pub(crate) from: Source,
}

/// What the host runs with.
#[derive(Debug)]
pub(crate) struct HostSettings {
    pub(crate) kernel: KernelSettings,
    pub(crate) allow_exec: Vec<String>,
    pub(crate) exec_writes: bool,
    pub(crate) deny: Vec<String>,
    /// The config file's settings per tool, by name.
    pub(crate) tools: Vec<(String, RunSettings)>,
    /// The config file read, if any.
    pub(crate) config: Option<PathBuf>,
    /// Each host-wide setting, in words, with its source.
    pub(crate) shown: Vec<Shown>,
    /// Each variable every command gets from the host: its name and source (never the value:
    /// a passed-through variable may be a secret).
    pub(crate) env_from: Vec<(String, Source)>,
    /// Warnings to print once (a `pass_env` variable this process does not have).
    pub(crate) warnings: Vec<String>,
}

/// The flag's value, else the file's, else the default, with its source.
fn pick<T>(flag: Option<T>, file: Option<T>, default: T) -> (T, Source) {
    match (flag, file) {
        (Some(v), _) => (v, Source::Flag),
        (None, Some(v)) => (v, Source::File),
        (None, None) => (default, Source::Default),
    }
}

fn limit_text(limit: Option<u64>, unit: &str) -> String {
    match limit {
        None => "none".to_owned(),
        Some(n) if unit == "bytes" => bytes_text(n),
        Some(n) => format!("{n}{unit}"),
    }
}

fn bytes_text(n: u64) -> String {
    for (shift, suffix) in [(40, "T"), (30, "G"), (20, "M"), (10, "K")] {
        if n >= 1 << shift && n.trailing_zeros() >= shift {
            return format!("{}{suffix}", n >> shift);
        }
    }
    format!("{n} bytes")
}

/// The effective settings from the flags and the config file.
pub(crate) fn resolve(common: &Common, file: Option<&HostConfig>) -> Result<HostSettings, Failure> {
    let empty = HostConfig::default();
    let config = file.unwrap_or(&empty);
    let defaults = KernelSettings::default();
    let mut shown = Vec::new();
    let mut show = |name, value: String, from| shown.push(Shown { name, value, from });

    let (cwd, from) = pick(common.cwd.clone(), config.cwd.clone(), PathBuf::from("."));
    // Shown resolved: a relative `cwd` in the file is read from the file's folder.
    let real = cwd.canonicalize().unwrap_or_else(|_| cwd.clone());
    show("cwd", real.display().to_string(), from);
    let (sandbox, from) = pick(common.sandbox, config.sandbox, SandboxMode::default());
    show("sandbox", sandbox.to_string(), from);
    let (timeout, from) = pick(common.timeout, config.timeout, defaults.timeout);
    show("timeout", format!("{} s", timeout.as_secs_f64()), from);
    let (max_output, from) = pick(common.max_output, config.max_output, defaults.max_output);
    show("max_output", format!("{max_output} bytes"), from);
    let flag_if = |set: bool| set.then_some(true);
    let (pid_namespace, from) = pick(
        common.pid_namespace,
        config.pid_namespace,
        defaults.pid_namespace,
    );
    show("pid_namespace", pid_namespace.to_string(), from);
    let (cgroup, from) = pick(common.cgroup, config.cgroup, defaults.cgroup);
    let cgroup_word = match cgroup {
        CgroupMode::Auto => "auto",
        CgroupMode::On => "on",
        CgroupMode::Off => "off",
    };
    show("cgroup", cgroup_word.to_owned(), from);

    // Each limit: flag, file or default, shown in words (`none` for the host's own).
    let mut limits = defaults.limits;
    let mut limit = |name, flag: Option<Limit>, file: Option<Limit>, default: Option<u64>, unit| {
        let (value, from) = pick(flag, file, Limit::from(default));
        show(name, limit_text(value.value(), unit), from);
        value.value()
    };
    limits.memory = limit(
        "memory",
        common.memory,
        config.memory,
        limits.memory,
        "bytes",
    );
    limits.file_size = limit(
        "file_size",
        common.file_size,
        config.file_size,
        limits.file_size,
        "bytes",
    );
    limits.open_files = limit(
        "open_files",
        common.open_files,
        config.open_files,
        limits.open_files,
        "",
    );
    limits.cpu_time = limit(
        "cpu_time",
        common.cpu_time,
        config.cpu_time,
        limits.cpu_time.map(|d| d.as_secs()),
        " s",
    )
    .map(Duration::from_secs);
    limits.processes = limit(
        "processes",
        common.processes,
        config.processes,
        limits.processes,
        "",
    );
    let temp_size = limit(
        "temp_size",
        common.temp_size,
        config.temp_size,
        defaults.temp_size,
        "bytes",
    );

    let (exec_writes, from) = pick(flag_if(common.exec_writes), config.exec_writes, false);
    show("exec_writes", exec_writes.to_string(), from);

    // Lists: the file's, then the flags'.
    let mut sandbox_read = config.sandbox_read.clone();
    sandbox_read.extend(common.sandbox_read.iter().cloned());
    let mut sandbox_write = config.sandbox_write.clone();
    sandbox_write.extend(common.sandbox_write.iter().cloned());
    for (name, paths, from_file) in [
        ("sandbox_read", &sandbox_read, config.sandbox_read.len()),
        ("sandbox_write", &sandbox_write, config.sandbox_write.len()),
    ] {
        for (i, path) in paths.iter().enumerate() {
            let from = if i < from_file {
                Source::File
            } else {
                Source::Flag
            };
            show(name, path.display().to_string(), from);
        }
    }
    let mut allow_exec = config.allow_exec.clone();
    allow_exec.extend(common.allow_exec.iter().map(|b| b.trim().to_owned()));
    allow_exec.retain(|b| !b.is_empty());
    allow_exec.dedup();
    let mut deny = config.deny.clone();
    deny.extend(common.deny.iter().map(|b| b.trim().to_owned()));
    deny.retain(|b| !b.is_empty());
    for (name, list, from_file) in [
        ("allow_exec", &allow_exec, config.allow_exec.len()),
        ("deny", &deny, config.deny.len()),
    ] {
        for (i, binary) in list.iter().enumerate() {
            let from = if i < from_file {
                Source::File
            } else {
                Source::Flag
            };
            show(name, binary.clone(), from);
        }
    }

    // Variables: the file's fixed ones and passed-through ones, then the flags'.
    let mut env: Vec<(String, String)> = Vec::new();
    let mut env_from: Vec<(String, Source)> = Vec::new();
    let mut warnings = Vec::new();
    let mut set = |name: String, value: String, from: Source| {
        env.retain(|(n, _)| *n != name);
        env_from.retain(|(n, _)| *n != name);
        env_from.push((name.clone(), from));
        env.push((name, value));
    };
    for (name, value) in &config.env {
        set(name.clone(), value.clone(), Source::File);
    }
    for name in &config.pass_env {
        match std::env::var(name) {
            Ok(value) => {
                check_env(name, &value).map_err(|e| {
                    Failure::cannot_run(format!(
                        "config file: `pass_env`: {e} (the value this process has)"
                    ))
                })?;
                set(name.clone(), value, Source::File);
            }
            Err(_) => warnings.push(format!(
                "config file: `pass_env` names `{name}`, which this process's environment does not have (or not as UTF-8): commands run without it"
            )),
        }
    }
    for entry in &common.env {
        let (name, value) = match entry.split_once('=') {
            Some((name, value)) => (name.to_owned(), value.to_owned()),
            None => match std::env::var(entry) {
                Ok(value) => (entry.clone(), value),
                Err(_) => {
                    return Err(Failure::cannot_run(format!(
                        "--env {entry}: this process's environment has no `{entry}` (as UTF-8); give a value with --env {entry}=VALUE"
                    )));
                }
            },
        };
        check_env(&name, &value).map_err(|e| Failure::cannot_run(format!("--env {entry}: {e}")))?;
        set(name, value, Source::Flag);
    }

    let kernel = KernelSettings {
        cwd,
        timeout,
        max_output,
        env,
        sandbox,
        sandbox_read,
        sandbox_write,
        landlock_abi_limit: common.landlock_abi,
        pid_namespace,
        limits,
        cgroup,
        temp_size,
        // A call is one process: the reading of a large repository's configuration is kept
        // between calls, in the agent's user's cache folder.
        git_cache: nanotool_runtime::kernel::user_git_cache(),
        ..KernelSettings::default()
    };
    Ok(HostSettings {
        kernel,
        allow_exec,
        exec_writes,
        deny,
        tools: config.tools.clone(),
        config: file.map(|f| f.path.clone()),
        shown,
        env_from,
        warnings,
    })
}
