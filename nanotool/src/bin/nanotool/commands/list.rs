//! `nanotool list`: the tools with their descriptions (or as JSON), the settings each runs
//! with and where each came from, and the sandbox status.

use serde_json::{Value, json};

use nanotool::{TempDirStatus, Tool, Toolbox};

use crate::assembly::warn_unreadable;
use crate::report::{Failure, print_json, write_stdout};
use crate::settings::{HostSettings, Source};

/// One effective run setting of one tool: its name, its value in words, where it came from
/// (`default`, `config`, `flag`, `tool` for the descriptor or the macro, `config: tools.NAME`
/// for the config file's entry for the tool).
struct ToolSetting {
    name: &'static str,
    value: String,
    from: String,
    /// Whether it is enforced on this host, for a setting that may be carried without being
    /// enforced (`processes`: only where the calls' cgroups have the pids controller).
    holds: Option<bool>,
}

/// The words `list` adds to a tool's own process limit where no cgroup enforces it here.
const PROCESSES_NOT_ENFORCED: &str =
    "not enforced here: the calls have no cgroup with the pids controller, see the limits line";

/// `pids_hold`: the calls' cgroups have the pids controller on this host.
fn tool_settings(tool: &dyn Tool, host: &HostSettings, pids_hold: bool) -> Vec<ToolSetting> {
    let Some(settings) = tool.settings() else {
        return Vec::new();
    };
    let entry = host
        .tools
        .iter()
        .find(|(name, _)| name == tool.name())
        .map(|(_, s)| s);
    let own = format!("config: tools.{}", tool.name());
    let from = |by_entry: bool| {
        if by_entry {
            own.clone()
        } else {
            "tool".to_owned()
        }
    };
    let shown = |name: &str| {
        host.shown
            .iter()
            .find(|s| s.name == name)
            .map_or(Source::Default, |s| s.from)
            .as_str()
            .to_owned()
    };
    let mut out = Vec::new();
    let timeout = settings.timeout.unwrap_or(host.kernel.timeout);
    out.push(ToolSetting {
        name: "timeout",
        value: format!("{} s", timeout.as_secs_f64()),
        from: match settings.timeout {
            Some(_) => from(entry.is_some_and(|e| e.timeout.is_some())),
            None => shown("timeout"),
        },
        holds: None,
    });
    let max_output = settings.max_output.unwrap_or(host.kernel.max_output);
    out.push(ToolSetting {
        name: "max_output",
        value: format!("{max_output} bytes"),
        from: match settings.max_output {
            Some(_) => from(entry.is_some_and(|e| e.max_output.is_some())),
            None => shown("max_output"),
        },
        holds: None,
    });
    // Resource limits a tool or its entry sets (the host's are on the settings line).
    let limits = [
        ("memory", settings.memory, entry.and_then(|e| e.memory)),
        (
            "file_size",
            settings.file_size,
            entry.and_then(|e| e.file_size),
        ),
        (
            "open_files",
            settings.open_files,
            entry.and_then(|e| e.open_files),
        ),
        (
            "cpu_time",
            settings.cpu_time.map(|d| d.as_secs()),
            entry.and_then(|e| e.cpu_time.map(|d| d.as_secs())),
        ),
        (
            "processes",
            settings.processes,
            entry.and_then(|e| e.processes),
        ),
    ];
    for (name, value, by_entry) in limits {
        if let Some(value) = value {
            let unit = match name {
                "memory" | "file_size" => " bytes",
                "cpu_time" => " s",
                _ => "",
            };
            out.push(ToolSetting {
                name,
                value: format!("{value}{unit}"),
                from: from(by_entry.is_some()),
                holds: (name == "processes").then_some(pids_hold),
            });
        }
    }
    // Variables by name only: a value may be a secret.
    for (name, source) in &host.env_from {
        if !settings.env.iter().any(|(n, _)| n == name) {
            out.push(ToolSetting {
                name: "env",
                value: name.clone(),
                from: source.as_str().to_owned(),
                holds: None,
            });
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for (name, _) in settings.env.iter().rev() {
        if seen.contains(&name.as_str()) {
            continue;
        }
        seen.push(name);
        out.push(ToolSetting {
            name: "env",
            value: name.clone(),
            from: from(entry.is_some_and(|e| e.env.iter().any(|(n, _)| n == name))),
            holds: None,
        });
    }
    for path in &settings.sandbox_read {
        out.push(ToolSetting {
            name: "sandbox_read",
            value: path.display().to_string(),
            from: from(entry.is_some_and(|e| e.sandbox_read.contains(path))),
            holds: None,
        });
    }
    out
}

pub(crate) fn run(toolbox: &Toolbox, host: &HostSettings, json: bool) -> Result<u8, Failure> {
    let tools = toolbox.tools();
    let pids_hold = toolbox.kernel().limits_status().cgroup.has("pids");
    if json {
        let status = toolbox.kernel().sandbox_status();
        // What holds for every tool alike: the line, and each promise that does not hold.
        let sandbox = json!({
            "status": status.to_string(),
            "enforced": status.enforced(),
            "not_confined": status
                .not_holding()
                .iter()
                .map(|p| json!({"what": p.what, "needs": p.needs, "agent_safety": p.agent_safety}))
                .collect::<Vec<_>>(),
        });
        // Which limits hold per call (the cgroup's among them), the same for every tool.
        let limits = toolbox.kernel().limits_status();
        let limits_json = json!({
            "status": limits.to_string(),
            "cgroup": limits.cgroup.parent.as_ref().map(|p| p.display().to_string()),
            "processes_per_call": limits.cgroup.has("pids") && limits.limits.processes.is_some(),
            "memory_per_call": limits.cgroup.has("memory") && limits.limits.memory.is_some(),
            // The temp dir's size bound, where it is a tmpfs (bytes), else null.
            "temp_dir_size": match limits.temp_dir {
                TempDirStatus::Tmpfs { size, .. } => Some(size),
                _ => None,
            },
        });
        // The host's settings, each with its source: the same for every tool.
        let host_json = json!({
            "config": host.config.as_ref().map(|p| p.display().to_string()),
            "settings": host
                .shown
                .iter()
                .map(|s| json!({"name": s.name, "value": s.value, "from": s.from.as_str()}))
                .collect::<Vec<_>>(),
        });
        let items: Vec<Value> = tools
            .iter()
            .map(|t| {
                let settings: Vec<Value> = tool_settings(t.as_ref(), host, pids_hold)
                    .into_iter()
                    .map(|s| {
                        let mut v = json!({"name": s.name, "value": s.value, "from": s.from});
                        if let Some(holds) = s.holds {
                            v["holds"] = holds.into();
                        }
                        v
                    })
                    .collect();
                json!({
                    "name": t.name(),
                    "description": t.description(),
                    "input_schema": t.input_schema(),
                    "writes": t.access().writes,
                    "network": t.access().network,
                    "settings": settings,
                    "host": host_json,
                    "sandbox": sandbox,
                    "limits": limits_json,
                })
            })
            .collect();
        return print_json(&Value::Array(items));
    }
    let width = tools.iter().map(|t| t.name().len()).max().unwrap_or(0);
    let mut text = String::new();
    for t in tools {
        let description = t
            .description()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        text.push_str(&format!("{:width$}  {description}\n", t.name()));
        // What this tool sets apart from the host's defaults, on a line of its own.
        let own: Vec<String> = tool_settings(t.as_ref(), host, pids_hold)
            .into_iter()
            .filter(|s| s.from == "tool" || s.from.starts_with("config: tools."))
            .map(|s| match s.holds {
                Some(false) => format!(
                    "{} {} ({}; {PROCESSES_NOT_ENFORCED})",
                    s.name, s.value, s.from
                ),
                _ => format!("{} {} ({})", s.name, s.value, s.from),
            })
            .collect();
        if !own.is_empty() {
            text.push_str(&format!("{:width$}  [{}]\n", "", own.join("; ")));
        }
    }
    if tools.is_empty() {
        text.push_str("no tools\n");
    }
    let mut line = Vec::new();
    for s in &host.shown {
        line.push(format!("{} {} ({})", s.name, s.value, s.from.as_str()));
    }
    for (name, from) in &host.env_from {
        line.push(format!("env {name} ({})", from.as_str()));
    }
    let config = match &host.config {
        Some(path) => format!("config file {}", path.display()),
        None => "no config file".to_owned(),
    };
    text.push_str(&format!("settings ({config}): {}\n", line.join("; ")));
    text.push_str(&format!("{}\n", toolbox.kernel().sandbox_status()));
    text.push_str(&format!("{}\n", toolbox.kernel().limits_status()));
    write_stdout(&text)?;
    warn_unreadable(toolbox);
    Ok(0)
}
