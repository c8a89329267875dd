//! The host's config file, `WORK/config.json`: what would otherwise take flags (the folder
//! commands run in, the sandbox and its paths, the default timeout and output cap, the limits,
//! `exec`, extra denied binaries, the environment) and settings per tool by name. Every key is
//! known (an unknown one is an error with a suggestion), every value is checked by the rules
//! the flags and descriptors follow, and each problem names the file and the key.
//!
//! Relative paths in the file are read from the folder that holds it (as a `Cargo.toml`'s
//! are), `~/` from the agent's `$HOME`. How the file combines with the flags is
//! [`crate::settings`]'s business.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use nanotool::{CgroupMode, PidNamespaceMode, SandboxMode};
use nanotool_runtime::descriptor::{RUN_SETTINGS_FIELDS, parse_json, run_settings_from_json};
use nanotool_runtime::hint;
use nanotool_runtime::kernel::{
    RunSettings, check_env, check_max_output, check_timeout_secs, expand_home,
};
use serde_json::{Map, Value};

use crate::cli::{Limit, parse_count, parse_processes, parse_size, parse_temp_size};

/// The config file's name inside the work folder.
pub(crate) const CONFIG_FILE: &str = "config.json";

/// The largest config file read, in bytes (1 MiB, as a descriptor).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The keys of the file.
pub(crate) const CONFIG_KEYS: &[&str] = &[
    "$schema",
    "cwd",
    "sandbox",
    "sandbox_read",
    "sandbox_write",
    "pid_namespace",
    "timeout",
    "max_output",
    "memory",
    "file_size",
    "open_files",
    "cpu_time",
    "processes",
    "temp_size",
    "cgroup",
    "allow_exec",
    "exec_writes",
    "deny",
    "env",
    "pass_env",
    "tools",
];

/// What a config file sets; `None` and empty lists leave the flag or the default.
#[derive(Debug, Default)]
pub(crate) struct HostConfig {
    /// The file it was read from.
    pub(crate) path: PathBuf,
    pub(crate) cwd: Option<PathBuf>,
    pub(crate) sandbox: Option<SandboxMode>,
    pub(crate) sandbox_read: Vec<PathBuf>,
    pub(crate) sandbox_write: Vec<PathBuf>,
    pub(crate) pid_namespace: Option<PidNamespaceMode>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) max_output: Option<usize>,
    pub(crate) memory: Option<Limit>,
    pub(crate) file_size: Option<Limit>,
    pub(crate) open_files: Option<Limit>,
    pub(crate) cpu_time: Option<Limit>,
    pub(crate) processes: Option<Limit>,
    pub(crate) temp_size: Option<Limit>,
    pub(crate) cgroup: Option<CgroupMode>,
    pub(crate) allow_exec: Vec<String>,
    pub(crate) exec_writes: Option<bool>,
    pub(crate) deny: Vec<String>,
    /// Fixed variables for every command, in the file's order.
    pub(crate) env: Vec<(String, String)>,
    /// Variables passed through from the agent's environment, by name.
    pub(crate) pass_env: Vec<String>,
    /// Settings per tool, by name, in the file's order.
    pub(crate) tools: Vec<(String, RunSettings)>,
}

/// One problem of a config file: the file, the key (a dotted path) and what to do.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ConfigError {
    pub(crate) file: PathBuf,
    /// The dotted path of the key at fault (`tools.cargo_test.timeout`); empty for the file
    /// as a whole.
    pub(crate) key: String,
    pub(crate) message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.key.is_empty() {
            write!(f, "config file `{}`: {}", self.file.display(), self.message)
        } else {
            write!(
                f,
                "config file `{}`: `{}`: {}",
                self.file.display(),
                self.key,
                self.message
            )
        }
    }
}

/// Reads `WORK/config.json` when `work` has one: the config (`None` when there is no such
/// file, or when it cannot be read as a JSON object at all) and its problems. A bad entry is
/// left out of the config, as a bad descriptor is left out of the tools: the rest of the file
/// applies, and each problem names the file and the key.
pub(crate) fn load(work: &Path) -> (Option<HostConfig>, Vec<ConfigError>) {
    let path = work.join(CONFIG_FILE);
    let whole = |message: String| {
        (
            None,
            vec![ConfigError {
                file: path.clone(),
                key: String::new(),
                message,
            }],
        )
    };
    let file = match std::fs::File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (None, Vec::new()),
        Err(e) => return whole(format!("cannot be read: {e}")),
    };
    let mut bytes = Vec::new();
    if let Err(e) = file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes) {
        return whole(format!("cannot be read: {e}"));
    }
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return whole(format!(
            "is larger than {MAX_CONFIG_BYTES} bytes; a config file is a short JSON object"
        ));
    }
    let Ok(text) = String::from_utf8(bytes) else {
        return whole("is not UTF-8 text; save it as UTF-8 JSON".to_owned());
    };
    let value = match parse_json(&text) {
        Ok(value) => value,
        Err(e) => {
            return whole(format!(
                "is not valid JSON: {e}; fix the syntax (line and column above)"
            ));
        }
    };
    let base = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    match from_value(&value, &path, &base) {
        // Not an object: nothing of it applies.
        (_, problems) if !value.is_object() => (None, problems),
        (config, problems) => (Some(config), problems),
    }
}

/// Reads a config file's JSON: the config with every bad entry left out, and every problem
/// (not only the first).
pub(crate) fn from_value(
    value: &Value,
    file: &Path,
    base: &Path,
) -> (HostConfig, Vec<ConfigError>) {
    let mut reader = Reader {
        problems: Vec::new(),
        base,
        home: std::env::var_os("HOME").map(PathBuf::from),
    };
    let mut config = HostConfig {
        path: file.to_path_buf(),
        ..HostConfig::default()
    };
    let Some(object) = value.as_object() else {
        reader.problem(
            "",
            format!(
                "is {}, not a JSON object: write e.g. {{\"timeout\": 60, \"sandbox\": \"required\"}}",
                hint::json_kind(value)
            ),
        );
        return (config, reader.errors(file));
    };
    for key in object.keys() {
        if !CONFIG_KEYS.contains(&key.as_str()) {
            reader.unknown_key(key, key, &CONFIG_KEYS[1..], "the keys are");
        }
    }
    config.cwd = reader.path(object, "cwd", false);
    config.sandbox = match object.get("sandbox") {
        None => None,
        Some(Value::String(s)) => match s.parse::<SandboxMode>() {
            Ok(mode) => Some(mode),
            Err(e) => {
                reader.problem("sandbox", e);
                None
            }
        },
        Some(other) => {
            reader.problem(
                "sandbox",
                format!(
                    "is {}; write \"required\", \"best-effort\" or \"off\"",
                    hint::json_kind(other)
                ),
            );
            None
        }
    };
    config.sandbox_read = reader.paths(object, "sandbox_read");
    config.sandbox_write = reader.paths(object, "sandbox_write");
    // `true` and `false` as before `auto` existed: on and off.
    config.pid_namespace = match object.get("pid_namespace") {
        None => None,
        Some(Value::Bool(on)) => Some(if *on {
            PidNamespaceMode::On
        } else {
            PidNamespaceMode::Off
        }),
        Some(Value::String(s)) => match s.parse::<PidNamespaceMode>() {
            Ok(mode) => Some(mode),
            Err(e) => {
                reader.problem("pid_namespace", e);
                None
            }
        },
        Some(other) => {
            reader.problem(
                "pid_namespace",
                format!(
                    "is {}; write \"auto\", \"on\" or \"off\"",
                    hint::json_kind(other)
                ),
            );
            None
        }
    };
    config.exec_writes = reader.boolean(object, "exec_writes");
    if let Some(secs) = reader.whole(object, "timeout", "60") {
        match check_timeout_secs(secs as f64) {
            Ok(()) => config.timeout = Some(Duration::from_secs(secs)),
            Err(e) => reader.problem("timeout", e.to_string()),
        }
    }
    if let Some(bytes) = reader.whole(object, "max_output", "65536") {
        match check_max_output(bytes.into()) {
            Ok(()) => config.max_output = Some(bytes as usize),
            Err(e) => reader.problem("max_output", e.to_string()),
        }
    }
    config.memory = reader.limit(object, "memory", parse_size, "\"4G\"");
    config.file_size = reader.limit(object, "file_size", parse_size, "\"1G\"");
    config.open_files = reader.limit(object, "open_files", parse_count, "1024");
    config.cpu_time = reader.limit(object, "cpu_time", parse_count, "600");
    config.processes = reader.limit(object, "processes", parse_processes, "256");
    config.temp_size = reader.limit(object, "temp_size", parse_temp_size, "\"2G\"");
    config.cgroup = match object.get("cgroup") {
        None => None,
        Some(Value::String(s)) => match s.parse::<CgroupMode>() {
            Ok(mode) => Some(mode),
            Err(e) => {
                reader.problem("cgroup", e);
                None
            }
        },
        Some(other) => {
            reader.problem(
                "cgroup",
                format!(
                    "is {}; write \"auto\", \"on\" or \"off\"",
                    hint::json_kind(other)
                ),
            );
            None
        }
    };
    config.allow_exec = reader.names(object, "allow_exec", "[\"git\", \"ls\"]");
    config.deny = reader.names(object, "deny", "[\"curl\", \"wget\"]");
    config.env = reader.env(object);
    let pass_env = reader.names(object, "pass_env", "[\"DATABASE_URL\"]");
    for (i, name) in pass_env.into_iter().enumerate() {
        match check_env(&name, "") {
            Ok(()) => config.pass_env.push(name),
            Err(e) => reader.problem(&format!("pass_env[{i}]"), e.to_string()),
        }
    }
    config.tools = reader.tools(object);
    (config, reader.errors(file))
}

/// Reads the values of one file, collecting its problems.
struct Reader<'a> {
    problems: Vec<(String, String)>,
    /// The folder relative paths are read from.
    base: &'a Path,
    home: Option<PathBuf>,
}

impl Reader<'_> {
    fn problem(&mut self, key: &str, message: impl Into<String>) {
        self.problems.push((key.to_owned(), message.into()));
    }

    fn errors(self, file: &Path) -> Vec<ConfigError> {
        self.problems
            .into_iter()
            .map(|(key, message)| ConfigError {
                file: file.to_path_buf(),
                key,
                message,
            })
            .collect()
    }

    fn boolean(&mut self, object: &Map<String, Value>, key: &str) -> Option<bool> {
        match object.get(key)? {
            Value::Bool(b) => Some(*b),
            other => {
                self.problem(
                    key,
                    format!("is {}; write true or false", hint::json_kind(other)),
                );
                None
            }
        }
    }

    fn whole(&mut self, object: &Map<String, Value>, key: &str, example: &str) -> Option<u64> {
        let value = object.get(key)?;
        match value.as_u64() {
            Some(n) if n > 0 => Some(n),
            _ => {
                let what = match value {
                    Value::Number(n) => format!("{n} is not a whole number greater than 0"),
                    other => format!("is {}", hint::json_kind(other)),
                };
                self.problem(key, format!("{what}; write e.g. {example}"));
                None
            }
        }
    }

    /// A limit: a number, or a string the flag takes (`"4G"`, `"none"`).
    fn limit(
        &mut self,
        object: &Map<String, Value>,
        key: &str,
        parse: fn(&str) -> Result<Limit, String>,
        example: &str,
    ) -> Option<Limit> {
        let text = match object.get(key)? {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            other => {
                self.problem(
                    key,
                    format!(
                        "is {}; write e.g. {example}, or \"none\"",
                        hint::json_kind(other)
                    ),
                );
                return None;
            }
        };
        match parse(&text) {
            Ok(limit) => Some(limit),
            Err(e) => {
                self.problem(key, e);
                None
            }
        }
    }

    /// A path: `~/` from the agent's home, relative from the file's folder; it must exist.
    fn path_of(&mut self, key: &str, text: &str, must_exist: bool) -> Option<PathBuf> {
        let Some(expanded) = expand_home(text, self.home.as_deref()) else {
            self.problem(
                key,
                format!(
                    "`{text}`: `~` stands for the agent's own home only (`~/...`), and only where $HOME is set ({}); write the path",
                    match &self.home {
                        Some(home) => format!("HOME={}", home.display()),
                        None => "HOME is not set".to_owned(),
                    }
                ),
            );
            return None;
        };
        let path = self.base.join(expanded);
        if must_exist && !path.exists() {
            let shown = if text.starts_with('~') {
                hint::resolved_path(text, &path, self.home.as_deref())
            } else {
                format!("`{text}` ({})", path.display())
            };
            self.problem(
                key,
                format!("{shown} does not exist; name a file or folder on this machine"),
            );
            return None;
        }
        Some(path)
    }

    fn path(
        &mut self,
        object: &Map<String, Value>,
        key: &str,
        must_exist: bool,
    ) -> Option<PathBuf> {
        match object.get(key)? {
            Value::String(s) if !s.trim().is_empty() => self.path_of(key, s, must_exist),
            other => {
                self.problem(
                    key,
                    format!(
                        "is {}; write a path, e.g. \"..\" (relative paths are read from the config file's folder)",
                        hint::json_kind(other)
                    ),
                );
                None
            }
        }
    }

    /// The array under `key` (none where the key is missing); where the value is not an array,
    /// none and a problem that says to write `what`.
    fn array<'v>(&mut self, object: &'v Map<String, Value>, key: &str, what: &str) -> &'v [Value] {
        match object.get(key) {
            None => &[],
            Some(Value::Array(items)) => items,
            Some(value) => {
                self.problem(key, format!("is {}; write {what}", hint::json_kind(value)));
                &[]
            }
        }
    }

    fn paths(&mut self, object: &Map<String, Value>, key: &str) -> Vec<PathBuf> {
        let items = self.array(object, key, "an array of paths, e.g. [\"~/.cargo\"]");
        let mut paths = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let at = format!("{key}[{i}]");
            match item.as_str() {
                Some(text) => paths.extend(self.path_of(&at, text, true)),
                None => self.problem(
                    &at,
                    format!("is {}; write the path as a string", hint::json_kind(item)),
                ),
            }
        }
        paths
    }

    /// An array of non-empty strings without whitespace (binary or variable names).
    fn names(&mut self, object: &Map<String, Value>, key: &str, example: &str) -> Vec<String> {
        let items = self.array(object, key, &format!("an array of names, e.g. {example}"));
        let mut names = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(name) if !name.is_empty() && !name.contains(char::is_whitespace) => {
                    names.push(name.to_owned())
                }
                _ => self.problem(
                    &format!("{key}[{i}]"),
                    format!(
                        "is {}; write a name without spaces, e.g. {example}",
                        match item {
                            Value::String(_) => "an empty or spaced string".to_owned(),
                            other => hint::json_kind(other).to_owned(),
                        }
                    ),
                ),
            }
        }
        names
    }

    /// `env`: read as a descriptor's `env`, by the same rules and messages.
    fn env(&mut self, object: &Map<String, Value>) -> Vec<(String, String)> {
        let Some(value) = object.get("env") else {
            return Vec::new();
        };
        let only = Map::from_iter([("env".to_owned(), value.clone())]);
        match run_settings_from_json(&only) {
            Ok(settings) => settings.env,
            Err(problems) => {
                for (key, message) in problems {
                    self.problem(&key, message);
                }
                Vec::new()
            }
        }
    }

    /// An unknown key of an object whose keys are `known`, with the closest as a suggestion.
    fn unknown_key(&mut self, at: &str, key: &str, known: &[&str], what: &str) {
        let near = hint::closest(key, known.iter().copied());
        let suggestion = hint::did_you_mean(&near[..near.len().min(1)])
            .map(|h| format!("{h} "))
            .unwrap_or_default();
        self.problem(
            at,
            format!("unknown key; {suggestion}{what}: {}", known.join(", ")),
        );
    }

    /// `tools`: an object of per-tool objects, each holding run settings only.
    fn tools(&mut self, object: &Map<String, Value>) -> Vec<(String, RunSettings)> {
        let Some(value) = object.get("tools") else {
            return Vec::new();
        };
        let Value::Object(tools) = value else {
            self.problem(
                "tools",
                format!(
                    "is {}; write an object of tool names, e.g. {{\"cargo_test\": {{\"timeout\": 900}}}}",
                    hint::json_kind(value)
                ),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, entry) in tools {
            let Value::Object(fields) = entry else {
                self.problem(
                    &format!("tools.{name}"),
                    format!(
                        "is {}; write an object of settings, e.g. {{\"timeout\": 900}}",
                        hint::json_kind(entry)
                    ),
                );
                continue;
            };
            let mut ok = true;
            for key in fields.keys() {
                if !RUN_SETTINGS_FIELDS.contains(&key.as_str()) {
                    ok = false;
                    self.unknown_key(
                        &format!("tools.{name}.{key}"),
                        key,
                        RUN_SETTINGS_FIELDS,
                        "a tool's entry may set",
                    );
                }
            }
            match run_settings_from_json(fields) {
                Ok(settings) if ok => out.push((name.clone(), settings)),
                Ok(_) => {}
                Err(problems) => {
                    for (key, message) in problems {
                        self.problem(&format!("tools.{name}.{key}"), message);
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(value: Value) -> (HostConfig, Vec<ConfigError>) {
        from_value(&value, Path::new("/w/config.json"), Path::new("/"))
    }

    fn keys(value: Value) -> Vec<String> {
        read(value).1.into_iter().map(|e| e.key).collect()
    }

    #[test]
    fn a_bad_entry_is_left_out_and_the_good_ones_are_read() {
        let (config, problems) = read(json!({
            "timeout": 0, "max_output": 1000,
            "pass_env": ["GIT_DIR", "DATABASE_URL"],
            "deny": ["curl", "rm -rf"],
            "sandbox_read": ["/no/such/dir", "/usr"],
            "tools": {"t": {"timeout": 0}, "u": {"timeout": 900}, "v": {"writes": true}},
        }));
        let mut keys: Vec<&str> = problems.iter().map(|e| e.key.as_str()).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "deny[1]",
                "pass_env[0]",
                "sandbox_read[0]",
                "timeout",
                "tools.t.timeout",
                "tools.v.writes"
            ]
        );
        assert_eq!(config.timeout, None);
        assert_eq!(config.max_output, Some(1000));
        assert_eq!(config.pass_env, ["DATABASE_URL"]);
        assert_eq!(config.deny, ["curl"]);
        assert_eq!(config.sandbox_read, [PathBuf::from("/usr")]);
        let tools: Vec<&str> = config.tools.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(tools, ["u"]);
    }

    #[test]
    fn a_missing_path_under_home_is_shown_resolved_with_the_home_used() {
        let mut reader = Reader {
            problems: Vec::new(),
            base: Path::new("/"),
            home: Some(PathBuf::from("/home/ann")),
        };
        assert_eq!(reader.path_of("sandbox_read[0]", "~/.rustup", true), None);
        assert_eq!(
            reader.problems[0].1,
            "`~/.rustup` (`/home/ann/.rustup`; `~` is HOME=/home/ann) does not exist; name a file or folder on this machine"
        );
    }

    #[test]
    fn every_key_is_read() {
        let (config, problems) = read(json!({
            "$schema": "x", "cwd": "/", "sandbox": "required", "sandbox_read": ["/usr"],
            "sandbox_write": ["/tmp"], "pid_namespace": true, "timeout": 60, "max_output": 1000,
            "memory": "2G", "file_size": 1048576, "open_files": 64, "cpu_time": "none",
            "processes": 256, "temp_size": "256M", "cgroup": "off",
            "allow_exec": ["ls"], "exec_writes": true, "deny": ["curl"],
            "env": {"RUST_BACKTRACE": "1"}, "pass_env": ["DATABASE_URL"],
            "tools": {"t": {"timeout": 900, "env": {"A": "b"}, "processes": 32}},
        }));
        assert_eq!(problems, []);
        assert_eq!(config.cwd.as_deref(), Some(Path::new("/")));
        assert_eq!(config.sandbox, Some(SandboxMode::Required));
        assert_eq!(config.timeout, Some(Duration::from_secs(60)));
        assert_eq!(config.max_output, Some(1000));
        assert_eq!(config.memory, Some(Limit::At(2 << 30)));
        assert_eq!(config.file_size, Some(Limit::At(1 << 20)));
        assert_eq!(config.open_files, Some(Limit::At(64)));
        assert_eq!(config.cpu_time, Some(Limit::Host));
        assert_eq!(config.processes, Some(Limit::At(256)));
        assert_eq!(config.temp_size, Some(Limit::At(256 << 20)));
        assert_eq!(config.cgroup, Some(CgroupMode::Off));
        assert_eq!(config.allow_exec, ["ls"]);
        assert_eq!(config.exec_writes, Some(true));
        assert_eq!(config.deny, ["curl"]);
        assert_eq!(config.env, [("RUST_BACKTRACE".into(), "1".into())]);
        assert_eq!(config.pass_env, ["DATABASE_URL"]);
        assert_eq!(config.tools[0].0, "t");
        assert_eq!(config.tools[0].1.timeout, Some(Duration::from_secs(900)));
        assert_eq!(config.tools[0].1.processes, Some(32));
        // Every key of the list is read above (the list and the reader agree).
        assert_eq!(CONFIG_KEYS.len(), 21);
    }

    #[test]
    fn every_bad_value_names_its_key() {
        assert_eq!(keys(json!({"timout": 5})), ["timout"]);
        assert_eq!(keys(json!({"timeout": 0})), ["timeout"]);
        assert_eq!(keys(json!({"timeout": 86401})), ["timeout"]);
        assert_eq!(keys(json!({"max_output": -1})), ["max_output"]);
        assert_eq!(keys(json!({"sandbox": "strict"})), ["sandbox"]);
        assert_eq!(keys(json!({"memory": "4X"})), ["memory"]);
        assert_eq!(keys(json!({"temp_size": "4K"})), ["temp_size"]);
        assert_eq!(keys(json!({"temp_size": true})), ["temp_size"]);
        assert_eq!(
            keys(json!({"env": {"LD_PRELOAD": "x"}})),
            ["env.LD_PRELOAD"]
        );
        assert_eq!(keys(json!({"env": {"PATH": "/tmp"}})), ["env.PATH"]);
        assert_eq!(keys(json!({"pass_env": ["GIT_DIR"]})), ["pass_env[0]"]);
        assert_eq!(
            keys(json!({"sandbox_read": ["/no/such/dir"]})),
            ["sandbox_read[0]"]
        );
        assert_eq!(keys(json!({"allow_exec": "ls"})), ["allow_exec"]);
        assert_eq!(keys(json!({"deny": ["rm -rf"]})), ["deny[0]"]);
        assert_eq!(
            keys(json!({"tools": {"t": {"timeout": 0, "writes": true}}})),
            ["tools.t.writes", "tools.t.timeout"]
        );
        assert_eq!(
            keys(json!({"tools": {"t": {"sandbox_read": ["/no/such"]}}})),
            ["tools.t.sandbox_read[0]"]
        );
        assert_eq!(keys(json!([1])), [""]);
        let message = read(json!({"timout": 5})).1[0].to_string();
        assert!(
            message.contains("/w/config.json") && message.contains("timeout"),
            "{message}"
        );
    }
}
