//! [`RunSettings`]: what one tool sets for its own commands — a timeout, an output cap, fixed
//! environment variables — on top of the kernel's settings, and the rules those values
//! follow wherever they are written (a descriptor, the macro's arguments, the host's config
//! file, the command line).
//!
//! The kernel takes a `RunSettings` per call ([`CommandExecKernel::run_with`]); a value left
//! unset falls back to the kernel's own ([`KernelSettings`]). What does *not* live here: which
//! variables the kernel itself sets (`env`), running a command (the kernel), why a value is
//! refused ([`RunSettingsError`] and the bounds it names: `settings`).
//!
//! [`CommandExecKernel::run_with`]: super::CommandExecKernel::run_with
//! [`KernelSettings`]: super::KernelSettings

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::env::{FIXED, RUNNER_FIXED};
use super::limits::Limits;
use super::settings::{MAX_ENV_VARS, MAX_OUTPUT_LIMIT, MAX_TIMEOUT_SECS, RunSettingsError};

/// The fewest processes a call may be limited to: the command, a shell around it and a
/// pipeline of a few (threads count too: a Go or Java runtime starts several).
pub const MIN_PROCESSES: u64 = 8;

/// The most processes a call may be limited to: the largest value a cgroup's `pids.max`
/// takes (Linux's `PID_MAX_LIMIT` on 64-bit systems, 4,194,304).
pub const MAX_PROCESSES: u64 = 1 << 22;

/// The longest value of one environment variable a tool sets, in bytes.
pub const MAX_ENV_VALUE_BYTES: usize = 4096;

/// Variables the kernel sets for safety, or that decide what a command is: a tool may not
/// set them (besides every fixed variable the kernel sets for every command: `TERM`,
/// `PAGER`, the Python and git overrides, `HGRCSKIPREPO`, ...).
///
/// - `PATH`: the kernel resolves the binary with one `PATH`, and the policy checked that
///   binary by name; a tool's own `PATH` would make a program it starts find another one.
/// - `HOME`: git's configuration is read (and neutralised) from the `HOME` the kernel knows.
/// - `TMPDIR`: a confined command's private temp dir.
/// - `BASH_ENV`, `ENV`: files a shell runs at start, whatever its command line.
pub const PROTECTED_ENV: &[&str] = &["PATH", "HOME", "TMPDIR", "BASH_ENV", "ENV"];

/// Prefixes of variables a tool may not set: the git overrides (`GIT_CONFIG_*`, `GIT_DIR`,
/// `GIT_ALLOW_PROTOCOL`, ...) and the dynamic loader's (`LD_PRELOAD`, `LD_LIBRARY_PATH`, ...).
pub const PROTECTED_ENV_PREFIXES: &[&str] = &["GIT_", "LD_"];

/// What one tool sets for its own commands, on top of the kernel's settings.
///
/// Every field is optional: `None` (or empty) takes the kernel's value. Build one with
/// [`RunSettings::new`] and the `with_*` methods; new settings (resource limits, say) are
/// added as fields the same way, so code that builds one keeps compiling.
///
/// ```
/// use nanotool_runtime::kernel::RunSettings;
/// use std::time::Duration;
///
/// let settings = RunSettings::new()
///     .with_timeout(Duration::from_secs(900))
///     .with_max_output(65536)
///     .with_env("RUST_BACKTRACE", "1");
/// settings.check().unwrap();
/// assert_eq!(settings.timeout, Some(Duration::from_secs(900)));
///
/// let err = RunSettings::new().with_env("LD_PRELOAD", "/tmp/x.so").check().unwrap_err();
/// assert_eq!(err.field(), "env");
/// assert!(err.to_string().contains("LD_PRELOAD"), "{err}");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunSettings {
    /// Time after which the command's process group is killed (default: the kernel's).
    pub timeout: Option<Duration>,
    /// Output cap in bytes, kept as head + tail (default: the kernel's).
    pub max_output: Option<usize>,
    /// Variables set for the command, after every variable the kernel sets (names checked by
    /// [`env_name_problem`]). [`with_env`](Self::with_env) keeps them in name order, one entry
    /// per name (a later value replaces the earlier one): a command's environment is a set,
    /// so settings compare equal however their variables were written or parsed.
    pub env: Vec<(String, String)>,
    /// Extra paths this tool's confined commands may read (and execute), on top of the
    /// kernel's: a toolchain one tool needs (`~/.cargo`), granted to that tool only. Each is
    /// absolute and exists when the settings are checked; `~` is expanded where the settings
    /// are read ([`expand_home`]).
    pub sandbox_read: Vec<PathBuf>,
    /// Memory each of its commands' processes may allocate (`RLIMIT_DATA`), in bytes, instead
    /// of the kernel's [`Limits::memory`](super::Limits::memory); from 1 MiB to 1 TiB.
    pub memory: Option<u64>,
    /// Largest file its commands may write (`RLIMIT_FSIZE`), in bytes; from 1 byte to 16 TiB.
    pub file_size: Option<u64>,
    /// Files each of its commands' processes may hold open (`RLIMIT_NOFILE`); 16 to 1,048,576.
    pub open_files: Option<u64>,
    /// CPU time each of its commands' processes may use (`RLIMIT_CPU`); 1 s to one day.
    pub cpu_time: Option<Duration>,
    /// Processes (and threads) one of its calls may have at once, instead of the kernel's
    /// [`Limits::processes`](super::Limits::processes): the `pids.max` of the call's cgroup;
    /// from 8 to 4,194,304. Carried where the call has no cgroup with the pids controller, but
    /// not enforced there (the kernel's status says which holds).
    pub processes: Option<u64>,
}

impl RunSettings {
    /// No setting of its own: every call takes the kernel's values.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The same settings with a timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The same settings with an output cap, in bytes.
    pub fn with_max_output(mut self, bytes: usize) -> Self {
        self.max_output = Some(bytes);
        self
    }

    /// The same settings with one more environment variable, kept in name order; a variable
    /// already set takes the new value.
    pub fn with_env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let (name, value) = (name.into(), value.into());
        match self.env.binary_search_by(|(n, _)| n.as_str().cmp(&name)) {
            Ok(at) => self.env[at].1 = value,
            Err(at) => self.env.insert(at, (name, value)),
        }
        self
    }

    /// The same settings with one more path its commands may read.
    pub fn with_sandbox_read(mut self, path: impl Into<PathBuf>) -> Self {
        self.sandbox_read.push(path.into());
        self
    }

    /// `other`'s values where it sets them, these where it does not; the environment is
    /// these variables and `other`'s (`other`'s value wins for a name both set), the readable
    /// paths both lists.
    pub fn overridden_by(&self, other: &RunSettings) -> RunSettings {
        let mut merged = RunSettings::new();
        for (name, value) in self.env.iter().chain(&other.env) {
            merged = merged.with_env(name.as_str(), value.as_str());
        }
        let env = merged.env;
        let mut sandbox_read = self.sandbox_read.clone();
        for path in &other.sandbox_read {
            if !sandbox_read.contains(path) {
                sandbox_read.push(path.clone());
            }
        }
        RunSettings {
            timeout: other.timeout.or(self.timeout),
            max_output: other.max_output.or(self.max_output),
            env,
            sandbox_read,
            memory: other.memory.or(self.memory),
            file_size: other.file_size.or(self.file_size),
            open_files: other.open_files.or(self.open_files),
            cpu_time: other.cpu_time.or(self.cpu_time),
            processes: other.processes.or(self.processes),
        }
    }

    /// Checks every value: the timeout and cap in range, each variable's name one a tool may
    /// set ([`env_name_problem`]) and its value passable.
    pub fn check(&self) -> Result<(), RunSettingsError> {
        if let Some(timeout) = self.timeout {
            check_timeout_secs(timeout.as_secs_f64())?;
        }
        if let Some(bytes) = self.max_output {
            check_max_output(bytes as u128)?;
        }
        if self.env.len() > MAX_ENV_VARS {
            return Err(RunSettingsError::TooManyEnv {
                count: self.env.len(),
            });
        }
        for (name, value) in &self.env {
            check_env(name, value)?;
        }
        for path in &self.sandbox_read {
            check_sandbox_read(path)?;
        }
        for (field, value) in [
            ("memory", self.memory),
            ("file_size", self.file_size),
            ("open_files", self.open_files),
            ("cpu_time", self.cpu_time.map(|d| d.as_secs())),
            ("processes", self.processes),
        ] {
            if let Some(value) = value {
                check_limit(field, value)?;
            }
        }
        Ok(())
    }

    /// Whether it sets a resource limit of its own.
    pub fn sets_limits(&self) -> bool {
        self.memory.is_some()
            || self.file_size.is_some()
            || self.open_files.is_some()
            || self.cpu_time.is_some()
            || self.processes.is_some()
    }

    /// `limits` with this tool's own resource limits over them.
    pub fn limits_over(&self, limits: &super::limits::Limits) -> super::limits::Limits {
        let mut merged = limits.clone();
        if let Some(n) = self.memory {
            merged.memory = Some(n);
        }
        if let Some(n) = self.file_size {
            merged.file_size = Some(n);
        }
        if let Some(n) = self.open_files {
            merged.open_files = Some(n);
        }
        if let Some(d) = self.cpu_time {
            merged.cpu_time = Some(d);
        }
        if let Some(n) = self.processes {
            merged.processes = Some(n);
        }
        merged
    }
}

/// Checks one resource limit a tool sets: `memory` (bytes, 1 MiB to 1 TiB), `file_size`
/// (bytes, 1 to 16 TiB), `open_files` (16 to 1,048,576), `cpu_time` (seconds, 1 to one
/// day), `processes` ([`MIN_PROCESSES`] to [`MAX_PROCESSES`]) or the kernel's `temp_size`
/// (bytes, 1 MiB to 1 TiB). Below these no ordinary program starts; above, the value is a
/// mistake.
pub fn check_limit(field: &str, value: u64) -> Result<(), RunSettingsError> {
    let (field, low, high, range): (&'static str, u64, u64, &'static str) = match field {
        "memory" => (
            "memory",
            1 << 20,
            1 << 40,
            "bytes from 1 MiB to 1 TiB, e.g. \"2G\"",
        ),
        "file_size" => (
            "file_size",
            1,
            1 << 44,
            "bytes from 1 to 16 TiB, e.g. \"100M\"",
        ),
        "open_files" => ("open_files", 16, 1 << 20, "a count from 16 to 1048576"),
        "temp_size" => (
            "temp_size",
            1 << 20,
            1 << 40,
            "bytes from 1 MiB to 1 TiB, e.g. \"2G\"",
        ),
        "processes" => (
            "processes",
            MIN_PROCESSES,
            MAX_PROCESSES,
            "a count from 8 to 4194304",
        ),
        "cpu_time" => (
            "cpu_time",
            1,
            MAX_TIMEOUT_SECS,
            "seconds from 1 to 86400 (one day)",
        ),
        _ => ("limit", 1, u64::MAX, "a positive number"),
    };
    if value < low || value > high {
        return Err(RunSettingsError::Limit {
            field,
            value,
            range,
        });
    }
    Ok(())
}

/// Checks the kernel's own `temp_size` and resource limits ([`KernelSettings::temp_size`],
/// [`KernelSettings::limits`]), each by [`check_limit`]; the first out of range is the error.
///
/// [`KernelSettings::temp_size`]: super::KernelSettings::temp_size
/// [`KernelSettings::limits`]: super::KernelSettings::limits
pub(super) fn check_kernel_limits(
    temp_size: Option<u64>,
    limits: &Limits,
) -> Result<(), RunSettingsError> {
    for (field, value) in [
        ("temp_size", temp_size),
        ("memory", limits.memory),
        ("file_size", limits.file_size),
        ("open_files", limits.open_files),
        ("processes", limits.processes),
        ("cpu_time", limits.cpu_time.map(|d| d.as_secs())),
    ] {
        if let Some(value) = value {
            check_limit(field, value)?;
        }
    }
    Ok(())
}

/// A size as people write it: bytes (`1048576`), or a number with `K`, `M`, `G` or `T`
/// (binary units: `512M`, `4G`). Zero and sizes past `u64` are refused.
///
/// ```
/// use nanotool_runtime::kernel::parse_size;
///
/// assert_eq!(parse_size("4G"), Ok(4 << 30));
/// assert_eq!(parse_size("1048576"), Ok(1 << 20));
/// assert!(parse_size("4X").is_err());
/// assert!(parse_size("0").is_err());
/// ```
pub fn parse_size(text: &str) -> Result<u64, String> {
    let hint = "give bytes with an optional K, M, G or T suffix (binary units), e.g. 512M or 4G";
    let t = text.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("`{text}` has an unknown unit; {hint}")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size; {hint}"))?;
    n.checked_shl(shift)
        .filter(|v| v >> shift == n && *v > 0)
        .ok_or_else(|| format!("`{text}` is zero or too large; {hint}"))
}

/// Checks one path a tool may read: absolute, existing, and not `/` itself (which would open
/// everything the agent can read). Use [`expand_home`] first for `~/...`.
pub fn check_sandbox_read(path: &Path) -> Result<(), RunSettingsError> {
    let problem = |reason: String| RunSettingsError::SandboxRead {
        path: path.to_path_buf(),
        reason,
    };
    if !path.is_absolute() {
        return Err(problem(
            "not an absolute path: write it from `/`, or from your home as `~/...` (e.g. `~/.cargo`)"
                .to_owned(),
        ));
    }
    match path.canonicalize() {
        Ok(real) if real == Path::new("/") => Err(problem(
            "this is the whole file system: name the folder the tool needs (e.g. `~/.cargo`)"
                .to_owned(),
        )),
        Ok(_) => Ok(()),
        Err(e) => Err(problem(format!(
            "cannot be used ({e}); name a file or folder that exists on this machine"
        ))),
    }
}

/// `~` and `~/rest` as paths under `home` (the agent's `$HOME`); anything else unchanged.
/// `None` when the path starts with `~` but there is no home to expand it to, or names another
/// user's home (`~alice/...`, not supported).
///
/// ```
/// use nanotool_runtime::kernel::expand_home;
/// use std::path::{Path, PathBuf};
///
/// let home = Some(Path::new("/home/ann"));
/// assert_eq!(expand_home("~/.cargo", home), Some(PathBuf::from("/home/ann/.cargo")));
/// assert_eq!(expand_home("/opt/go", home), Some(PathBuf::from("/opt/go")));
/// assert_eq!(expand_home("~/.cargo", None), None);
/// ```
pub fn expand_home(path: &str, home: Option<&Path>) -> Option<PathBuf> {
    if path == "~" {
        return home.map(Path::to_path_buf);
    }
    match path.strip_prefix("~/") {
        Some(rest) => home.map(|h| h.join(rest)),
        None if path.starts_with('~') => None,
        None => Some(PathBuf::from(path)),
    }
}

/// Checks a timeout in seconds: more than zero, at most [`MAX_TIMEOUT_SECS`].
pub fn check_timeout_secs(secs: f64) -> Result<(), RunSettingsError> {
    if secs.is_nan() || secs <= 0.0 || secs > MAX_TIMEOUT_SECS as f64 {
        return Err(RunSettingsError::Timeout { secs });
    }
    Ok(())
}

/// Checks an output cap in bytes: more than zero, at most [`MAX_OUTPUT_LIMIT`].
pub fn check_max_output(bytes: u128) -> Result<(), RunSettingsError> {
    if bytes == 0 || bytes > MAX_OUTPUT_LIMIT as u128 {
        let bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
        return Err(RunSettingsError::MaxOutput { bytes });
    }
    Ok(())
}

/// Checks one variable a tool sets: its name ([`env_name_problem`]) and its value (no NUL, at
/// most [`MAX_ENV_VALUE_BYTES`]).
pub fn check_env(name: &str, value: &str) -> Result<(), RunSettingsError> {
    if let Some(reason) = env_name_problem(name) {
        return Err(RunSettingsError::EnvName {
            name: name.to_owned(),
            reason,
        });
    }
    let reason = if value.contains('\0') {
        Some("the value contains a NUL byte, which no process can receive; remove it".to_owned())
    } else if value.len() > MAX_ENV_VALUE_BYTES {
        Some(format!(
            "the value is {} bytes; a tool may set at most {MAX_ENV_VALUE_BYTES} bytes per variable",
            value.len()
        ))
    } else {
        None
    };
    match reason {
        Some(reason) => Err(RunSettingsError::EnvValue {
            name: name.to_owned(),
            reason,
        }),
        None => Ok(()),
    }
}

/// Why a tool may not set the variable `name`, or `None` when it may: a name is ASCII letters,
/// digits and `_`, not starting with a digit, and none of the variables the kernel sets for
/// safety (its fixed variables, [`PROTECTED_ENV`], [`PROTECTED_ENV_PREFIXES`]).
///
/// ```
/// use nanotool_runtime::kernel::env_name_problem;
///
/// assert_eq!(env_name_problem("RUST_BACKTRACE"), None);
/// assert_eq!(env_name_problem("PYTHONPATH"), None);
/// assert!(env_name_problem("GIT_CONFIG_GLOBAL").is_some());
/// assert!(env_name_problem("PYTHONSAFEPATH").is_some());
/// assert!(env_name_problem("LD_PRELOAD").is_some());
/// assert!(env_name_problem("PATH").is_some());
/// assert!(env_name_problem("A=B").is_some());
/// ```
pub fn env_name_problem(name: &str) -> Option<String> {
    let well_formed = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !well_formed {
        return Some(
            "not a variable name: use ASCII letters, digits and `_`, not starting with a digit \
             (e.g. `RUST_BACKTRACE`)"
                .to_owned(),
        );
    }
    // The variables the kernel sets for every command or for the programs that may start
    // others (the Python and git overrides, `PYTHONSAFEPATH`, which the kernel sets per call
    // from the argv), and the private home's XDG folders.
    if FIXED
        .iter()
        .chain(RUNNER_FIXED)
        .any(|(fixed, _)| *fixed == name)
        || [
            "PYTHONSAFEPATH",
            "XDG_CACHE_HOME",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "XDG_STATE_HOME",
        ]
        .contains(&name)
    {
        return Some(
            "the kernel sets it for every command, for safety or plain output; a tool may not \
             change it"
                .to_owned(),
        );
    }
    if PROTECTED_ENV.contains(&name) {
        return Some(format!(
            "the kernel decides it (`{}` are the kernel's); a tool may not set it",
            PROTECTED_ENV.join("`, `")
        ));
    }
    if let Some(prefix) = PROTECTED_ENV_PREFIXES.iter().find(|p| name.starts_with(*p)) {
        return Some(format!(
            "a tool may not set `{prefix}*` variables: `GIT_*` carry the overrides that keep a \
             repository's configuration from running programs, `LD_*` would load code into \
             every program"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Limits;
    use crate::kernel::cgroup::{Controllers, call_files};

    /// The `pids.max` a call's cgroup gets under `settings` over the host's `limits`.
    fn pids_max(settings: &RunSettings, limits: &Limits) -> Vec<(&'static str, String)> {
        let pids = Controllers {
            pids: true,
            ..Controllers::default()
        };
        call_files(pids, settings.limits_over(limits).for_cgroup())
    }

    #[test]
    fn a_tools_process_limit_is_its_calls_pids_max() {
        let own = RunSettings {
            processes: Some(64),
            ..RunSettings::new()
        };
        own.check().unwrap();
        assert!(own.sets_limits());
        assert_eq!(
            pids_max(&own, &Limits::default()),
            [("pids.max", "64".to_owned())]
        );
        // Over a host without a process limit too.
        assert_eq!(
            pids_max(&own, &Limits::none()),
            [("pids.max", "64".to_owned())]
        );
        // A tool without one takes the host's.
        assert_eq!(
            pids_max(&RunSettings::new(), &Limits::default()),
            [("pids.max", "4096".to_owned())]
        );
        // A host entry for the tool wins over the tool's own, as for every setting.
        let entry = RunSettings {
            processes: Some(32),
            ..RunSettings::new()
        };
        assert_eq!(own.overridden_by(&entry).processes, Some(32));
        assert_eq!(own.overridden_by(&RunSettings::new()).processes, Some(64));
    }

    #[test]
    fn a_process_limit_out_of_range_is_refused_naming_the_field() {
        for n in [0, 1, 7, (1 << 22) + 1, u64::MAX] {
            let settings = RunSettings {
                processes: Some(n),
                ..RunSettings::new()
            };
            let err = settings.check().unwrap_err();
            assert_eq!(err.field(), "processes", "{n}");
            assert_eq!(
                err.to_string(),
                format!("processes of {n} is out of range: give a count from 8 to 4194304")
            );
        }
        for n in [8, 4096, 1 << 22] {
            check_limit("processes", n).unwrap();
        }
    }

    #[test]
    fn variables_are_a_set_by_name_whatever_order_they_were_given_in() {
        // A descriptor's `env` object comes back from the JSON parser in an order that
        // depends on its features; the command sees a set of variables either way.
        let written = RunSettings::new()
            .with_env("RUST_BACKTRACE", "1")
            .with_env("PYTHONPATH", "src");
        let parsed = RunSettings::new()
            .with_env("PYTHONPATH", "src")
            .with_env("RUST_BACKTRACE", "1");
        assert_eq!(written, parsed);
        assert_eq!(
            written.env,
            [
                ("PYTHONPATH".to_owned(), "src".to_owned()),
                ("RUST_BACKTRACE".to_owned(), "1".to_owned())
            ]
        );
        // A later value of the same name replaces the earlier one, here and in a merge.
        let again = written.clone().with_env("PYTHONPATH", "lib");
        assert_eq!(again.env.len(), 2);
        assert_eq!(again.env[0], ("PYTHONPATH".to_owned(), "lib".to_owned()));
        let host = RunSettings::new()
            .with_env("A_HOST_VAR", "x")
            .with_env("RUST_BACKTRACE", "full");
        let merged = written.overridden_by(&host);
        assert_eq!(
            merged.env,
            [
                ("A_HOST_VAR".to_owned(), "x".to_owned()),
                ("PYTHONPATH".to_owned(), "src".to_owned()),
                ("RUST_BACKTRACE".to_owned(), "full".to_owned())
            ]
        );
    }
}
