//! The command line: clap's types for `nanotool` and its subcommands, and the parsers of
//! their values.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use nanotool::SandboxMode;
use nanotool::{CgroupMode, PidNamespaceMode};

const EXAMPLES: &str = "\
Examples:
  nanotool list
  nanotool call grep '{\"pattern\": \"TODO\", \"path\": \"src\"}'
  nanotool call sed_print '{\"range\": \"1,20\", \"path\": \"README.md\"}' --json
  nanotool check .work/tools
  nanotool schema --format openai > tools.json
  nanotool serve --work ~/agent --cwd ~/project

Descriptors (*.tool.json) are read from WORK/tools, settings from WORK/config.json (flags
win over it); built-in tools (grep, find, sed_print) are always there. Exit status: 0 done, 2 call refused (614) or unknown tool, 1 could not run.";

/// Command tools for LLM agents whose safety is a property of their shape.
#[derive(Debug, Parser)]
#[command(name = "nanotool", version, after_long_help = EXAMPLES, after_help = EXAMPLES)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) common: Common,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Options every subcommand takes, before or after its name.
#[derive(Debug, Args)]
pub(crate) struct Common {
    /// Work folder; descriptors are read from DIR/tools [default: .work]
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) work: Option<PathBuf>,
    /// Folder every command runs in (paths stay inside it) [default: the current folder]
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) cwd: Option<PathBuf>,
    /// Kill a command's whole process group after SECS seconds [default: 30]
    #[arg(long, global = true, value_name = "SECS", value_parser = parse_timeout)]
    pub(crate) timeout: Option<Duration>,
    /// Keep at most BYTES of a command's output, as head and tail [default: 30000]
    #[arg(long, global = true, value_name = "BYTES", value_parser = parse_max_output)]
    pub(crate) max_output: Option<usize>,
    /// Enable the free-text `exec` tool for these binaries only
    #[arg(
        long,
        global = true,
        value_name = "BIN[,BIN...]",
        value_delimiter = ','
    )]
    pub(crate) allow_exec: Vec<String>,
    /// Let `exec` commands write inside the working directory (read-only otherwise)
    #[arg(long, global = true)]
    pub(crate) exec_writes: bool,
    /// Refuse these binaries too, in every tool and in `exec` (added to the built-in deny list)
    #[arg(
        long,
        global = true,
        value_name = "BIN[,BIN...]",
        value_delimiter = ','
    )]
    pub(crate) deny: Vec<String>,
    /// Give every command NAME=VALUE, or NAME with this process's value (repeatable; not PATH,
    /// HOME, TMPDIR, GIT_*, LD_* nor what the kernel fixes)
    #[arg(long, global = true, value_name = "NAME[=VALUE]")]
    pub(crate) env: Vec<String>,
    /// Confine every command: required (never run unconfined), best-effort, or off [default: best-effort]
    #[arg(long, global = true, value_name = "MODE", value_parser = parse_sandbox)]
    pub(crate) sandbox: Option<SandboxMode>,
    /// Let every confined command read (and execute) DIR too, e.g. a toolchain under $HOME (repeatable)
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) sandbox_read: Vec<PathBuf>,
    /// Let every confined command read and write DIR too (repeatable)
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) sandbox_write: Vec<PathBuf>,
    /// Confine as Landlock ABI N would at most (0: as without Landlock), to see what holds on
    /// an older Linux; never raises what this one enforces
    #[arg(long, global = true, value_name = "N", hide = true)]
    pub(crate) landlock_abi: Option<u32>,
    /// Run each confined command in a private PID namespace (nothing outside its call can be
    /// signalled or seen, its children die with it): auto (where Landlock cannot confine
    /// signals, before Linux 6.12), on, or off; the flag alone means on [default: auto]
    #[arg(long, global = true, value_name = "MODE", value_parser = parse_pid_namespace,
          num_args = 0..=1, require_equals = true, default_missing_value = "on")]
    pub(crate) pid_namespace: Option<PidNamespaceMode>,
    /// A cgroup v2 child per call where the host delegates one (processes and memory per
    /// call, every process killed at its end): auto (where it bounds something), on (wherever
    /// delegated) or off [default: auto]
    #[arg(long, global = true, value_name = "MODE", value_parser = parse_cgroup)]
    pub(crate) cgroup: Option<CgroupMode>,
    /// Ignore WORK/config.json
    #[arg(long, global = true)]
    pub(crate) no_config: bool,
    /// Memory each command's process may allocate (RLIMIT_DATA), e.g. 512M, 4G, or none [default: 4G]
    #[arg(long, global = true, value_name = "SIZE", value_parser = parse_size)]
    pub(crate) memory: Option<Limit>,
    /// Largest file a command may write (RLIMIT_FSIZE), e.g. 100M, or none [default: 1G]
    #[arg(long, global = true, value_name = "SIZE", value_parser = parse_size)]
    pub(crate) file_size: Option<Limit>,
    /// Files each command's process may hold open (RLIMIT_NOFILE), or none [default: 1024]
    #[arg(long, global = true, value_name = "N", value_parser = parse_count)]
    pub(crate) open_files: Option<Limit>,
    /// CPU seconds each command's process may use (RLIMIT_CPU) [default: none, the timeout bounds it]
    #[arg(long, global = true, value_name = "SECS", value_parser = parse_count)]
    pub(crate) cpu_time: Option<Limit>,
    /// Processes and threads one call may have at once (the pids.max of its cgroup, 8 to
    /// 4194304; holds where a delegated cgroup v2 has the pids controller), or none [default: 4096]
    #[arg(long, global = true, value_name = "N", value_parser = parse_processes)]
    pub(crate) processes: Option<Limit>,
    /// Size of the commands' private temp dir (TMPDIR): a tmpfs that only commands see, where
    /// the agent may mount one (root), 1M to 1T, or none for a folder on disk [default: 1G]
    #[arg(long, global = true, value_name = "SIZE", value_parser = parse_temp_size)]
    pub(crate) temp_size: Option<Limit>,
}

/// A limit's value on the command line: a number, or `none` for the host's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Limit {
    /// This many (bytes, files, seconds).
    At(u64),
    /// No limit of nanotool's: the host's own.
    Host,
}

impl From<Option<u64>> for Limit {
    fn from(value: Option<u64>) -> Self {
        value.map_or(Limit::Host, Limit::At)
    }
}

impl Limit {
    pub(crate) fn value(self) -> Option<u64> {
        match self {
            Limit::At(n) => Some(n),
            Limit::Host => None,
        }
    }
}

/// `512M`, `4G`, `100K`, `1048576`, or `none`: binary units.
pub(crate) fn parse_size(s: &str) -> Result<Limit, String> {
    if s.trim().eq_ignore_ascii_case("none") {
        return Ok(Limit::Host);
    }
    nanotool_runtime::kernel::parse_size(s)
        .map(Limit::At)
        .map_err(|e| format!("{e}, or none"))
}

/// A positive whole number, or `none`.
pub(crate) fn parse_count(s: &str) -> Result<Limit, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(Limit::Host);
    }
    match t.parse::<u64>() {
        Ok(n) if n > 0 => Ok(Limit::At(n)),
        _ => Err(format!(
            "`{s}` is not a positive whole number; give e.g. 64, or none"
        )),
    }
}

/// A process count in the per-call range (8 to 4194304, the kernel's rule), or `none`.
pub(crate) fn parse_processes(s: &str) -> Result<Limit, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(Limit::Host);
    }
    let n = t.parse::<u64>().map_err(|_| {
        format!("`{s}` is not a whole number; give a count from 8 to 4194304, e.g. 256, or none")
    })?;
    in_range("processes", Limit::At(n))
}

/// A temp dir size in its range (1 MiB to 1 TiB, the kernel's rule), or `none`.
pub(crate) fn parse_temp_size(s: &str) -> Result<Limit, String> {
    in_range("temp_size", parse_size(s)?)
}

/// `limit` within the kernel's range for `field` (`none` is always one).
fn in_range(field: &str, limit: Limit) -> Result<Limit, String> {
    match limit {
        Limit::At(n) => nanotool_runtime::kernel::check_limit(field, n)
            .map(|()| limit)
            .map_err(|e| format!("{e}, or none")),
        Limit::Host => Ok(limit),
    }
}

pub(crate) fn parse_sandbox(s: &str) -> Result<SandboxMode, String> {
    s.parse()
}

pub(crate) fn parse_cgroup(s: &str) -> Result<CgroupMode, String> {
    s.parse()
}

pub(crate) fn parse_pid_namespace(s: &str) -> Result<PidNamespaceMode, String> {
    s.parse()
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List the tools with their descriptions
    List {
        /// Print a JSON array of {name, description, input_schema}
        #[arg(long)]
        json: bool,
    },
    /// Print the tool definitions as JSON
    Schema {
        /// Provider format
        #[arg(long, value_enum, default_value_t = Format::Mcp)]
        format: Format,
    },
    /// Run one call and print its result
    Call {
        /// Tool name (see `nanotool list`)
        name: String,
        /// Arguments as a JSON object
        #[arg(value_name = "ARGS_JSON", default_value = "{}")]
        args: String,
        /// Print the result as a JSON object
        #[arg(long)]
        json: bool,
    },
    /// Validate the descriptors in DIR [default: WORK/tools] and WORK/config.json; exit 1 on any error
    Check {
        /// Folder of *.tool.json files
        dir: Option<PathBuf>,
        /// Print {dir, loaded, errors} as JSON
        #[arg(long)]
        json: bool,
    },
    /// Serve the tools over stdio to an MCP client (protocol 2025-11-25 and 2026-07-28)
    Serve {
        /// Send `structuredContent` (and an `outputSchema`) beside each result's text; off by
        /// default, as Claude Code and Codex then show the model that JSON instead of the text
        #[arg(long)]
        structured_content: bool,
    },
    /// Approve the current content of WORK/config.json and WORK/tools where commands may write them
    Trust,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// MCP `tools/list` entries
    Mcp,
    /// OpenAI function tools
    Openai,
    /// Anthropic tools
    Anthropic,
}

pub(crate) fn parse_timeout(s: &str) -> Result<Duration, String> {
    let hint = "give seconds as a positive number, e.g. --timeout 30 or --timeout 0.5";
    let secs: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number; {hint}"))?;
    if !secs.is_finite() || secs <= 0.0 || secs > 86_400.0 {
        return Err(format!("`{s}` is out of range (0 < SECS <= 86400); {hint}"));
    }
    Ok(Duration::from_secs_f64(secs))
}

pub(crate) fn parse_max_output(s: &str) -> Result<usize, String> {
    use nanotool_runtime::kernel::MAX_OUTPUT_LIMIT;
    match s.trim().parse::<usize>() {
        Ok(n) if n > MAX_OUTPUT_LIMIT => Err(format!(
            "`{s}` is over the limit of {MAX_OUTPUT_LIMIT} bytes (16 MiB): the output is held in memory and sent to a model whole; give at most {MAX_OUTPUT_LIMIT}"
        )),
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err(format!(
            "`{s}` keeps nothing; give at least 1 byte, e.g. --max-output 4096"
        )),
        Err(_) => Err(format!(
            "`{s}` is not a byte count; give a whole number, e.g. --max-output 4096"
        )),
    }
}
