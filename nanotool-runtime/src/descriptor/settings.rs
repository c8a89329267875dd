//! The run settings of a descriptor, which a host's per-tool entry may set too: `timeout`,
//! `max_output`, `env`, `sandbox_read` and the tool's own resource limits, each checked by the
//! kernel's own rules, and the [`Problem`] a field at fault is told as.

use crate::hint;
use crate::kernel::{self, RunSettings, RunSettingsError};
use serde_json::{Map, Value};

/// A problem: the dotted JSON path and the message.
pub(super) type Problem = (String, String);

/// The run settings of a descriptor (or of a host's per-tool entry): `timeout` (seconds),
/// `max_output` (bytes), `env` (an object of strings), `sandbox_read` (an array of paths, `~/`
/// for the agent's home), each checked by the kernel's own rules. Other fields are left to
/// the caller.
pub(crate) fn run_settings(
    object: &Map<String, Value>,
    problems: &mut Vec<Problem>,
) -> RunSettings {
    let mut settings = RunSettings::new();
    let mut whole = |field: &str, example: &str| -> Option<u128> {
        let value = object.get(field)?;
        match value.as_u64() {
            Some(n) => Some(n.into()),
            None => {
                let what = match value {
                    Value::Number(n) if n.as_i64().is_some_and(|n| n <= 0) => {
                        format!("{n} is out of range")
                    }
                    Value::Number(n) => format!("{n} is not a whole number"),
                    other => format!("is {}", hint::json_kind(other)),
                };
                problems.push((
                    field.to_owned(),
                    format!("{what}; write a whole number greater than 0, e.g. {example}"),
                ));
                None
            }
        }
    };
    let timeout = whole("timeout", "900 (15 minutes)");
    let max_output = whole("max_output", "65536 (64 KiB)");
    if let Some(secs) = timeout {
        match kernel::check_timeout_secs(secs as f64) {
            Ok(()) => settings = settings.with_timeout(std::time::Duration::from_secs(secs as u64)),
            Err(e) => problems.push(("timeout".into(), e.to_string())),
        }
    }
    if let Some(bytes) = max_output {
        match kernel::check_max_output(bytes) {
            Ok(()) => settings = settings.with_max_output(bytes as usize),
            Err(e) => problems.push(("max_output".into(), e.to_string())),
        }
    }
    match object.get("env") {
        None => {}
        Some(Value::Object(vars)) => {
            if vars.len() > kernel::MAX_ENV_VARS {
                problems.push((
                    "env".into(),
                    format!(
                        "{} variables; a tool may set at most {}",
                        vars.len(),
                        kernel::MAX_ENV_VARS
                    ),
                ));
            }
            for (name, value) in vars {
                let at = format!("env.{name}");
                match value {
                    Value::String(text) => match kernel::check_env(name, text) {
                        Ok(()) => settings = settings.with_env(name.as_str(), text.as_str()),
                        Err(
                            RunSettingsError::EnvName { reason, .. }
                            | RunSettingsError::EnvValue { reason, .. },
                        ) => problems.push((at, reason)),
                        Err(e) => problems.push((at, e.to_string())),
                    },
                    other => problems.push((
                        at,
                        format!(
                            "is {}; write the value as a string, e.g. \"{name}\": \"1\"",
                            hint::json_kind(other)
                        ),
                    )),
                }
            }
        }
        Some(other) => problems.push((
            "env".into(),
            format!(
                "is {}; write an object of variables, e.g. {{\"RUST_BACKTRACE\": \"1\"}}",
                hint::json_kind(other)
            ),
        )),
    }
    limits(object, &mut settings, problems);
    match object.get("sandbox_read") {
        None => {}
        Some(Value::Array(paths)) => {
            let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
            for (i, path) in paths.iter().enumerate() {
                let at = format!("sandbox_read[{i}]");
                let Some(text) = path.as_str() else {
                    problems.push((
                        at,
                        format!(
                            "is {}; write the path as a string, e.g. \"~/.cargo\"",
                            hint::json_kind(path)
                        ),
                    ));
                    continue;
                };
                let Some(expanded) = kernel::expand_home(text, home.as_deref()) else {
                    problems.push((
                        at,
                        format!(
                            "`{text}`: `~` stands for the agent's own home only (`~/...`), and \
                             only where $HOME is set; write the absolute path"
                        ),
                    ));
                    continue;
                };
                match kernel::check_sandbox_read(&expanded) {
                    // Resolved once here: what `list` shows is what the sandbox opens.
                    Ok(()) => {
                        let real = expanded.canonicalize().unwrap_or(expanded);
                        if !settings.sandbox_read.contains(&real) {
                            settings = settings.with_sandbox_read(real);
                        }
                    }
                    Err(RunSettingsError::SandboxRead { reason, .. }) => problems.push((
                        at,
                        format!(
                            "{}: {reason}",
                            hint::resolved_path(text, &expanded, home.as_deref())
                        ),
                    )),
                    Err(e) => problems.push((at, e.to_string())),
                }
            }
        }
        Some(other) => problems.push((
            "sandbox_read".into(),
            format!(
                "is {}; write an array of paths, e.g. [\"~/.cargo\", \"~/.rustup\"]",
                hint::json_kind(other)
            ),
        )),
    }
    settings
}

/// A tool's own resource limits: `memory` and `file_size` (bytes, or a size such as `"2G"`),
/// `open_files` and `processes` (counts), `cpu_time` (seconds), each checked by the kernel's
/// rule.
fn limits(object: &Map<String, Value>, settings: &mut RunSettings, problems: &mut Vec<Problem>) {
    for field in ["memory", "file_size", "open_files", "cpu_time", "processes"] {
        let Some(value) = object.get(field) else {
            continue;
        };
        let sized = matches!(field, "memory" | "file_size");
        let example = match field {
            "memory" => "\"2G\" or 2147483648",
            "file_size" => "\"100M\"",
            "open_files" => "4096",
            "processes" => "64",
            _ => "600 (seconds)",
        };
        // Each message is whole: a type error gets an example, a size or range error says
        // what to write already.
        let number = match value {
            Value::Number(n) => n
                .as_u64()
                .ok_or_else(|| format!("{n} is out of range; write e.g. {example}")),
            Value::String(text) if sized => kernel::parse_size(text),
            other => Err(format!(
                "is {}; write e.g. {example}",
                hint::json_kind(other)
            )),
        };
        match number.and_then(|n| {
            kernel::check_limit(field, n)
                .map(|()| n)
                .map_err(|e| e.to_string())
        }) {
            Ok(n) => match field {
                "memory" => settings.memory = Some(n),
                "file_size" => settings.file_size = Some(n),
                "open_files" => settings.open_files = Some(n),
                "processes" => settings.processes = Some(n),
                _ => settings.cpu_time = Some(std::time::Duration::from_secs(n)),
            },
            Err(e) => problems.push((field.to_owned(), e)),
        }
    }
}
