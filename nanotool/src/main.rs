//! The `nanotool` command (DESIGN §9): list, export, check and call command tools, or serve
//! them to an MCP client over stdio.
//!
//! Exit statuses: 0 when the work was done (for `call`: the command ran, whatever its own exit
//! code, a timeout included), 2 when a call was refused (614) or names an unknown tool, 1 when
//! something could not run (a binary missing, a folder unreadable, bad usage, `check` errors).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand, ValueEnum};
use nanotool::mcp::{self, McpServer, ServerOptions};
use nanotool::{
    CODE_INVALID_ARGUMENTS, CODE_INVALID_DESCRIPTOR, CancelHandle, CommandExecKernel,
    DescriptorError, KernelError, KernelSettings, SandboxMode, Tool, Toolbox, hint,
};
use serde_json::{Value, json};

const EXAMPLES: &str = "\
Examples:
  nanotool list
  nanotool call grep '{\"pattern\": \"TODO\", \"path\": \"src\"}'
  nanotool call sed_print '{\"range\": \"1,20\", \"path\": \"README.md\"}' --json
  nanotool check .work/tools
  nanotool schema --format openai > tools.json
  nanotool serve --work ~/agent --cwd ~/project

Descriptors (*.tool.json) are read from WORK/tools; built-in tools (grep, find, sed_print)
are always there. Exit status: 0 done, 2 call refused (614) or unknown tool, 1 could not run.";

/// Command tools for LLM agents whose safety is a property of their shape.
#[derive(Debug, Parser)]
#[command(name = "nanotool", version, after_long_help = EXAMPLES, after_help = EXAMPLES)]
struct Cli {
    #[command(flatten)]
    common: Common,
    #[command(subcommand)]
    command: Command,
}

/// Options every subcommand takes, before or after its name.
#[derive(Debug, Args)]
struct Common {
    /// Work folder; descriptors are read from DIR/tools [default: .work]
    #[arg(long, global = true, value_name = "DIR")]
    work: Option<PathBuf>,
    /// Folder every command runs in (paths stay inside it)
    #[arg(long, global = true, value_name = "DIR", default_value = ".")]
    cwd: PathBuf,
    /// Kill a command's whole process group after SECS seconds [default: 30]
    #[arg(long, global = true, value_name = "SECS", value_parser = parse_timeout)]
    timeout: Option<Duration>,
    /// Keep at most BYTES of a command's output, as head and tail [default: 2048]
    #[arg(long, global = true, value_name = "BYTES", value_parser = parse_max_output)]
    max_output: Option<usize>,
    /// Enable the free-text `exec` tool for these binaries only
    #[arg(
        long,
        global = true,
        value_name = "BIN[,BIN...]",
        value_delimiter = ','
    )]
    allow_exec: Vec<String>,
    /// Let `exec` commands write inside the working directory (read-only otherwise)
    #[arg(long, global = true)]
    exec_writes: bool,
    /// Confine every command: required (never run unconfined), best-effort, or off
    #[arg(long, global = true, value_name = "MODE", default_value = "best-effort", value_parser = parse_sandbox)]
    sandbox: SandboxMode,
    /// Let every confined command read (and execute) DIR too, e.g. a toolchain under $HOME (repeatable)
    #[arg(long, global = true, value_name = "DIR")]
    sandbox_read: Vec<PathBuf>,
    /// Let every confined command read and write DIR too (repeatable)
    #[arg(long, global = true, value_name = "DIR")]
    sandbox_write: Vec<PathBuf>,
}

fn parse_sandbox(s: &str) -> Result<SandboxMode, String> {
    s.parse()
}

#[derive(Debug, Subcommand)]
enum Command {
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
    /// Validate the descriptors in DIR [default: WORK/tools]; exit 1 on any error (613)
    Check {
        /// Folder of *.tool.json files
        dir: Option<PathBuf>,
        /// Print {dir, loaded, errors} as JSON
        #[arg(long)]
        json: bool,
    },
    /// Serve the tools over stdio to an MCP client (protocol 2025-11-25 and 2026-07-28)
    Serve,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// MCP `tools/list` entries
    Mcp,
    /// OpenAI function tools
    Openai,
    /// Anthropic tools
    Anthropic,
}

fn parse_timeout(s: &str) -> Result<Duration, String> {
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

fn parse_max_output(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err(format!(
            "`{s}` keeps nothing; give at least 1 byte, e.g. --max-output 4096"
        )),
        Err(_) => Err(format!(
            "`{s}` is not a byte count; give a whole number, e.g. --max-output 4096"
        )),
    }
}

/// A failure of the command itself, with its exit status.
#[derive(Debug)]
struct Failure {
    status: u8,
    message: String,
}

impl Failure {
    fn cannot_run(message: impl Into<String>) -> Self {
        Failure {
            status: 1,
            message: message.into(),
        }
    }

    fn refused(message: impl Into<String>) -> Self {
        Failure {
            status: 2,
            message: message.into(),
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    init_logging(matches!(cli.command, Command::Serve));
    match run(cli) {
        Ok(status) => ExitCode::from(status),
        Err(failure) => {
            eprintln!("nanotool: {}", failure.message);
            ExitCode::from(failure.status)
        }
    }
}

/// The server's log pipe (only `serve` logs through one): flushed, briefly, before it exits.
static LOG_PIPE: std::sync::OnceLock<mcp::LogPipe> = std::sync::OnceLock::new();

/// How long an exiting server waits for its log lines to reach stderr.
const LOG_FLUSH_WAIT: Duration = Duration::from_millis(500);

fn init_logging(serve: bool) {
    let level = match std::env::var("NANOTOOL_LOG").ok().as_deref() {
        Some("off") => None,
        Some("error") => Some(tracing::Level::ERROR),
        Some("warn") => Some(tracing::Level::WARN),
        Some("debug") => Some(tracing::Level::DEBUG),
        Some("trace") => Some(tracing::Level::TRACE),
        _ => Some(tracing::Level::INFO),
    };
    let Some(level) = level else { return };
    // The server never waits for stderr: a client that does not read it may lose log lines,
    // never answers (see `mcp::LogPipe`). One-shot commands write to stderr directly.
    if serve && let Ok(pipe) = mcp::LogPipe::stderr(1024 * 1024) {
        let pipe = LOG_PIPE.get_or_init(|| pipe);
        tracing_subscriber::fmt()
            .with_writer(move || pipe.writer())
            .with_max_level(level)
            .with_target(false)
            .init();
        return;
    }
    tracing_subscriber::fmt()
        .with_writer(io::stderr)
        .with_max_level(level)
        .with_target(false)
        .init();
}

fn run(cli: Cli) -> Result<u8, Failure> {
    let common = &cli.common;
    match &cli.command {
        Command::List { json } => {
            let (toolbox, errors) = assemble(common)?;
            warn_descriptors(&errors);
            if *json {
                warn_unreadable(&toolbox);
            }
            list(&toolbox, *json)
        }
        Command::Schema { format } => {
            let (toolbox, errors) = assemble(common)?;
            warn_descriptors(&errors);
            let defs = match format {
                Format::Mcp => toolbox.mcp_tools(),
                Format::Openai => toolbox.openai_tools(false),
                Format::Anthropic => toolbox.anthropic_tools(),
            };
            print_json(&Value::Array(defs))
        }
        Command::Call { name, args, json } => {
            let (toolbox, errors) = assemble(common)?;
            warn_descriptors(&errors);
            call(&toolbox, name, args, *json)
        }
        Command::Check { dir, json } => check(common, dir.as_deref(), *json),
        Command::Serve => serve(common),
    }
}

/// Where the descriptors are: `WORK/tools`, or `None` when there is none yet. A work folder
/// or descriptor folder that exists but cannot be read is an error (exit 1), never an empty
/// toolbox: its tools would silently vanish.
fn tools_dir(common: &Common) -> Result<Option<PathBuf>, Failure> {
    let (work, named) = match &common.work {
        Some(work) => (work.clone(), true),
        None => (PathBuf::from(".work"), false),
    };
    match std::fs::metadata(&work) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(Failure::cannot_run(format!(
                "work folder `{}` is not a folder; pass a folder with --work DIR (its descriptors go in DIR/tools)",
                work.display()
            )));
        }
        // A missing default `.work` is not an error: no descriptors yet.
        Err(e) if e.kind() == io::ErrorKind::NotFound && !named => return Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(Failure::cannot_run(format!(
                "work folder `{}` does not exist; create it with `mkdir -p {}/tools`, or leave --work out to use .work",
                work.display(),
                work.display()
            )));
        }
        Err(e) => {
            return Err(Failure::cannot_run(format!(
                "work folder `{}` is unreadable: {e}",
                work.display()
            )));
        }
    }
    let dir = work.join("tools");
    match std::fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => Ok(Some(dir)),
        Ok(_) => Err(Failure::cannot_run(format!(
            "`{}` is not a folder: descriptors (*.tool.json) go in a folder WORK/tools",
            dir.display()
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if named {
                tracing::warn!(
                    "no descriptor folder `{}`: only the built-in tools are served",
                    dir.display()
                );
            }
            Ok(None)
        }
        Err(e) => Err(Failure::cannot_run(format!(
            "work folder `{}` is unreadable ({}: {e})",
            work.display(),
            dir.display()
        ))),
    }
}

fn kernel(common: &Common) -> Result<CommandExecKernel, Failure> {
    let mut settings = KernelSettings {
        cwd: common.cwd.clone(),
        ..KernelSettings::default()
    };
    if let Some(timeout) = common.timeout {
        settings.timeout = timeout;
    }
    if let Some(max) = common.max_output {
        settings.max_output = max;
    }
    settings.sandbox = common.sandbox;
    settings.sandbox_read = common.sandbox_read.clone();
    settings.sandbox_write = common.sandbox_write.clone();
    CommandExecKernel::new(settings).map_err(|e| match e {
        KernelError::Cwd { .. } => Failure::cannot_run(format!(
            "{e}; pass an existing folder with --cwd DIR (default: the current folder)"
        )),
        KernelError::SandboxPath { .. } => Failure::cannot_run(format!(
            "{e}; check the --sandbox-read / --sandbox-write value"
        )),
        _ => Failure::cannot_run(e.to_string()),
    })
}

/// For each command tool whose binary confined commands cannot read (a toolchain under
/// `$HOME`): the tool's name and what to do.
fn unreadable_binaries(toolbox: &Toolbox) -> Vec<(String, String)> {
    toolbox
        .tools()
        .iter()
        .filter_map(|t| {
            let binary = t.spec()?.template().binary().to_owned();
            let hint = toolbox.kernel().unreadable_binary(&binary)?;
            Some((t.name().to_owned(), hint.to_string()))
        })
        .collect()
}

fn warn_unreadable(toolbox: &Toolbox) {
    for (tool, hint) in unreadable_binaries(toolbox) {
        eprintln!("warning: tool `{tool}`: {hint}");
    }
}

/// The toolbox every subcommand uses: built-ins, `exec` if allowed, then the descriptors.
fn assemble(common: &Common) -> Result<(Toolbox, Vec<DescriptorError>), Failure> {
    let dir = tools_dir(common)?;
    assemble_from(common, dir.as_deref())
}

fn assemble_from(
    common: &Common,
    dir: Option<&Path>,
) -> Result<(Toolbox, Vec<DescriptorError>), Failure> {
    let mut toolbox = Toolbox::new(kernel(common)?);
    for tool in nanotool::builtins::all() {
        let name = tool.name().to_owned();
        toolbox.register_arc(tool).map_err(|e| {
            Failure::cannot_run(format!(
                "built-in tool `{name}` could not be registered: {e}"
            ))
        })?;
    }
    // `exec` first: a descriptor that takes its name is a name conflict (613) for that file,
    // and the other files still load.
    if !common.allow_exec.is_empty() {
        let allow: Vec<String> = common
            .allow_exec
            .iter()
            .map(|b| b.trim().to_owned())
            .filter(|b| !b.is_empty())
            .collect();
        toolbox
            .enable_exec_with_writes(allow, common.exec_writes)
            .map_err(|e| {
                Failure::cannot_run(format!(
                    "--allow-exec: {e}; give binaries by name, e.g. --allow-exec git,ls"
                ))
            })?;
    }
    let errors = match dir {
        Some(dir) => {
            std::fs::read_dir(dir).map_err(|e| {
                Failure::cannot_run(format!(
                    "descriptor folder `{}` is unreadable: {e}",
                    dir.display()
                ))
            })?;
            toolbox.load_descriptors(dir)
        }
        None => Vec::new(),
    };
    Ok((toolbox, errors))
}

fn warn_descriptors(errors: &[DescriptorError]) {
    for e in errors {
        eprintln!("warning: {e} (this file is skipped; the others load)");
    }
}

fn print_json(value: &Value) -> Result<u8, Failure> {
    let text = serde_json::to_string_pretty(value).expect("a JSON value always serialises");
    write_stdout(&text)?;
    Ok(0)
}

fn write_stdout(text: &str) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    let result = if text.ends_with('\n') {
        out.write_all(text.as_bytes())
    } else {
        writeln!(out, "{text}")
    };
    result
        .and_then(|()| out.flush())
        .or_else(|e| {
            if e.kind() == io::ErrorKind::BrokenPipe {
                Ok(())
            } else {
                Err(e)
            }
        })
        .map_err(|e| Failure::cannot_run(format!("cannot write to stdout: {e}")))
}

fn list(toolbox: &Toolbox, json: bool) -> Result<u8, Failure> {
    let tools = toolbox.tools();
    if json {
        let items: Vec<Value> = tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name(),
                    "description": t.description(),
                    "input_schema": t.input_schema(),
                    "writes": t.access().writes,
                    "network": t.access().network,
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
    }
    if tools.is_empty() {
        text.push_str("no tools\n");
    }
    text.push_str(&format!("{}\n", toolbox.kernel().sandbox_status()));
    write_stdout(&text)?;
    warn_unreadable(toolbox);
    Ok(0)
}

fn call(toolbox: &Toolbox, name: &str, raw_args: &str, json: bool) -> Result<u8, Failure> {
    let index = match toolbox.position(name) {
        Ok(index) => index,
        Err(unknown) => {
            let names: Vec<&str> = toolbox.tools().iter().map(|t| t.name()).collect();
            let hint = hint::did_you_mean(&unknown.suggestions)
                .map(|hint| format!("{hint} "))
                .unwrap_or_default();
            if json {
                print_json(&json!({
                    "tool": name,
                    "is_error": true,
                    "error": "unknown tool",
                    "closest": unknown.suggestions,
                    "tools": names,
                }))?;
            }
            return Err(Failure::refused(format!(
                "unknown tool `{name}`; {hint}tools: {} (see `nanotool list`)",
                names.join(", ")
            )));
        }
    };
    let tool = toolbox.tools()[index].clone();
    let args = parse_args(raw_args, tool.as_ref())?;
    make_non_dumpable();
    let cancel = CancelHandle::new();
    let signalled = Arc::new(std::sync::atomic::AtomicI32::new(0));
    if let Some(signals) = SignalWatch::start() {
        let cancel = cancel.clone();
        let signalled = signalled.clone();
        signals.on_signal(move |signal| {
            signalled.store(signal, std::sync::atomic::Ordering::SeqCst);
            cancel.cancel();
        });
    }
    let started = Instant::now();
    let output = toolbox.call_at(index, &args, Some(&cancel));
    mcp::audit("cli", tool.name(), &args, &output, started.elapsed());
    let status = match &output.exec {
        _ if output.code == Some(CODE_INVALID_ARGUMENTS) => 2,
        // The command could not start (missing binary, ...).
        Some(exec) if exec.start_error.is_some() => 1,
        Some(_) => 0,
        None if output.is_error => 1,
        None => 0,
    };
    if json {
        let mut value = json!({
            "tool": tool.name(),
            "is_error": output.is_error,
            "code": output.code,
            "text": output.text,
        });
        if let Some(exec) = &output.exec {
            value["exit_code"] = json!(exec.exit_code);
            value["signal"] = json!(exec.signal);
            value["timed_out"] = json!(exec.timed_out);
            value["cancelled"] = json!(exec.cancelled);
            value["truncated"] = json!(exec.truncated);
            value["total_bytes"] = json!(exec.total_bytes);
            value["duration_ms"] = json!(exec.duration.as_secs_f64() * 1000.0);
            value["output"] = json!(exec.output);
            value["start_error"] = json!(exec.start_error);
            value["confined"] = json!(exec.confined);
        }
        print_json(&value)?;
    } else {
        write_stdout(&output.text)?;
    }
    let signal = signalled.load(std::sync::atomic::Ordering::SeqCst);
    if signal != 0 {
        return Ok(u8::try_from(128 + signal).unwrap_or(1));
    }
    Ok(status)
}

/// Parses ARGS_JSON, or says where it went wrong and what good JSON looks like. Valid JSON
/// that is not an object goes to the tool, whose validation refuses it (614), as it would
/// refuse it from a model.
fn parse_args(raw: &str, tool: &dyn Tool) -> Result<Value, Failure> {
    serde_json::from_str::<Value>(raw).map_err(|e| {
        let example = example_args(tool);
        let line_text = raw.lines().nth(e.line().saturating_sub(1)).unwrap_or("");
        let caret = format!("{}^", " ".repeat(e.column().saturating_sub(1)));
        Failure::cannot_run(format!(
            "ARGS_JSON is not valid JSON: {e}\n  {line_text}\n  {caret}\nwrite a JSON object in single quotes, keys and strings in double quotes, for example:\n  nanotool call {} '{example}'",
            tool.name()
        ))
    })
}

/// A JSON object naming the tool's arguments, for error messages.
fn example_args(tool: &dyn Tool) -> String {
    let schema = tool.input_schema();
    let mut example = serde_json::Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            let value = match prop.get("type").and_then(Value::as_str) {
                Some("integer") => json!(1),
                Some("number") => json!(1.5),
                Some("boolean") => json!(true),
                _ => match prop.get("enum").and_then(Value::as_array) {
                    Some(values) if !values.is_empty() => values[0].clone(),
                    _ => json!("..."),
                },
            };
            example.insert(name.clone(), value);
        }
    }
    Value::Object(example).to_string()
}

fn check(common: &Common, dir: Option<&Path>, json: bool) -> Result<u8, Failure> {
    let dir = match dir {
        Some(dir) => dir.to_path_buf(),
        None => {
            let work = common
                .work
                .clone()
                .unwrap_or_else(|| PathBuf::from(".work"));
            work.join("tools")
        }
    };
    if !dir.is_dir() {
        return Err(Failure::cannot_run(format!(
            "no descriptor folder `{}`; create it (mkdir -p {}) or name one: nanotool check DIR",
            dir.display(),
            dir.display()
        )));
    }
    let (toolbox, errors) = assemble_from(common, Some(&dir))?;
    let builtins = nanotool::builtins::all().len();
    let loaded: Vec<&str> = toolbox
        .tools()
        .iter()
        .skip(builtins)
        .filter(|t| t.name() != "exec")
        .map(|t| t.name())
        .collect();
    if json {
        let value = json!({
            "dir": dir.display().to_string(),
            "loaded": loaded,
            "errors": errors.iter().map(|e| json!({
                "code": CODE_INVALID_DESCRIPTOR,
                "file": e.file.display().to_string(),
                "message": e.message,
            })).collect::<Vec<_>>(),
        });
        print_json(&value)?;
    } else {
        let mut text = String::new();
        for e in &errors {
            text.push_str(&format!("{e}\n"));
        }
        text.push_str(&format!(
            "{}: {} descriptor(s) loaded, {} error(s)\n",
            dir.display(),
            loaded.len(),
            errors.len()
        ));
        for (tool, hint) in unreadable_binaries(&toolbox) {
            if loaded.contains(&tool.as_str()) {
                text.push_str(&format!("warning: tool `{tool}`: {hint}\n"));
            }
        }
        write_stdout(&text)?;
    }
    Ok(if errors.is_empty() { 0 } else { 1 })
}

fn serve(common: &Common) -> Result<u8, Failure> {
    let (toolbox, errors) = assemble(common)?;
    warn_descriptors(&errors);
    make_non_dumpable();
    let signals = SignalWatch::start();
    let tools = toolbox.tools().len();
    let cwd = toolbox.kernel().cwd().to_path_buf();
    if cwd == Path::new("/") {
        tracing::warn!(
            "the working directory is `/`: path arguments may name any file on the system; pass --cwd DIR (MCP clients often start servers in `/`)"
        );
    }
    let toolbox_status = (
        toolbox.kernel().sandbox_status().to_string(),
        unreadable_binaries(&toolbox),
    );
    let server = Arc::new(McpServer::new(Arc::new(toolbox), ServerOptions::default()));
    if let Some(signals) = signals {
        let server = server.clone();
        signals.on_signal(move |signal| {
            let n = server.cancel_all();
            tracing::warn!(
                signal,
                cancelled = n,
                "signal: cancelling calls and exiting"
            );
            // The kernel kills each cancelled group and reaps it; give that a moment.
            for _ in 0..200 {
                if server.in_flight() == 0 {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            if let Some(pipe) = LOG_PIPE.get() {
                pipe.flush(LOG_FLUSH_WAIT);
            }
            std::process::exit(128 + signal);
        });
    }
    tracing::info!("{}", toolbox_status.0);
    for (tool, hint) in &toolbox_status.1 {
        tracing::warn!("tool `{tool}`: {hint}");
    }
    tracing::info!(
        tools,
        cwd = %cwd.display(),
        "serving MCP over stdio (2025-11-25 initialize, 2026-07-28 server/discover)"
    );
    let stdin = io::stdin();
    server
        .serve(stdin, io::stdout())
        .map_err(|e| Failure::cannot_run(format!("reading stdin: {e}")))?;
    tracing::info!("stdin closed; exiting");
    if let Some(pipe) = LOG_PIPE.get() {
        pipe.flush(LOG_FLUSH_WAIT);
    }
    Ok(0)
}

/// Makes this process non-dumpable, so no tool it runs (same user) can read its
/// `/proc/<pid>/environ` or `mem`: the host's secrets stay out of reach.
fn make_non_dumpable() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(PR_SET_DUMPABLE) takes plain integers and touches no memory of ours.
        let rc = unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
        if rc != 0 {
            tracing::warn!(
                "prctl(PR_SET_DUMPABLE, 0) failed: {}",
                io::Error::last_os_error()
            );
        }
    }
}

/// The write end of the signal pipe, for the handler (`-1`: none yet).
static SIGNAL_PIPE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// The handler of SIGINT, SIGTERM and SIGHUP: writes the signal's number to the pipe (a
/// `write` is async-signal-safe), for the watching thread to act on.
extern "C" fn note_signal(signal: libc::c_int) {
    let fd = SIGNAL_PIPE.load(std::sync::atomic::Ordering::Relaxed);
    if fd >= 0 {
        let byte = signal as u8;
        // SAFETY: write(2) on a pipe fd we own, from a one-byte local; errno is put back so
        // the interrupted code sees its own.
        unsafe {
            let errno = *libc::__errno_location();
            libc::write(fd, (&byte as *const u8).cast(), 1);
            *libc::__errno_location() = errno;
        }
    }
}

/// SIGINT, SIGTERM and SIGHUP caught by a handler that wakes one thread, so that a signal
/// cancels the running calls (killing their process groups, which the terminal's or
/// client's signal does not reach) instead of leaving them orphaned.
///
/// A handler, not a blocked mask and `sigwait`: a blocked mask is inherited through
/// `posix_spawn` and `exec` (std's `Command` passes the spawning thread's mask on, measured
/// with Rust 1.95), so every command would start deaf to SIGTERM (`timeout` could not stop
/// its child, nothing could die of SIGINT). A caught signal goes back to its default action in
/// the child at `exec`, and the child's mask stays empty. A signal ignored on entry (SIGHUP
/// under `nohup`) stays ignored, for nanotool and its commands alike.
struct SignalWatch {
    read: std::os::fd::OwnedFd,
    /// The signals whose handler is ours, with the action each had before.
    installed: Vec<(libc::c_int, libc::sigaction)>,
}

impl SignalWatch {
    /// Opens the pipe and installs the handler for each of the signals not ignored on entry
    /// (under `nohup`, SIGHUP stays ignored). On any failure nothing stays installed.
    fn start() -> Option<Self> {
        use std::os::fd::FromRawFd;
        let mut fds = [-1; 2];
        // SAFETY: pipe2 writes two fds into the array; both are ours to own from here on.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            tracing::warn!(
                "no signal pipe ({}); a signal ends nanotool without cancelling calls",
                io::Error::last_os_error()
            );
            return None;
        }
        // SAFETY: fresh fds from pipe2, owned by nobody else.
        let (read, write) = unsafe {
            (
                std::os::fd::OwnedFd::from_raw_fd(fds[0]),
                std::os::fd::OwnedFd::from_raw_fd(fds[1]),
            )
        };
        // The handler must never block: a full pipe drops the byte (one is enough).
        // SAFETY: fcntl on an fd we own.
        unsafe {
            let flags = libc::fcntl(fds[1], libc::F_GETFL);
            libc::fcntl(fds[1], libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        // The write end lives as long as the process: the handler may run at any time.
        SIGNAL_PIPE.store(
            std::os::fd::IntoRawFd::into_raw_fd(write),
            std::sync::atomic::Ordering::SeqCst,
        );
        let mut watch = SignalWatch {
            read,
            installed: Vec::new(),
        };
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: sigaction reads our zeroed, filled-in action and writes the old one into
            // a local; the handler only calls async-signal-safe functions.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, std::ptr::null(), &mut old) != 0 {
                    SignalWatch::restore_all(&watch.installed);
                    return None;
                }
                if old.sa_sigaction == libc::SIG_IGN {
                    continue;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = note_signal as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                    tracing::warn!(
                        signal,
                        "cannot catch signal ({}); a signal ends nanotool without cancelling calls",
                        io::Error::last_os_error()
                    );
                    SignalWatch::restore_all(&watch.installed);
                    return None;
                }
                watch.installed.push((signal, old));
            }
        }
        Some(watch)
    }

    /// Runs `f` with the signal number on a dedicated thread when a signal arrives; a second
    /// signal while `f` runs exits at once. Without a thread, the signals get their old
    /// actions back (a signal then ends nanotool as it would have without the watch).
    fn on_signal(self, f: impl FnOnce(i32) + Send + 'static) {
        let installed = self.installed.clone();
        let read = self.read;
        let spawned = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let mut pipe = std::fs::File::from(read);
                let mut f = Some(f);
                let mut byte = [0u8; 1];
                loop {
                    match std::io::Read::read(&mut pipe, &mut byte) {
                        Ok(1) => {}
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        _ => return,
                    }
                    let signal = i32::from(byte[0]);
                    let Some(f) = f.take() else {
                        std::process::exit(128 + signal);
                    };
                    // A second signal while cancelling: exit now. Without a thread for that,
                    // the loop reads it once `f` returns.
                    if let Ok(mut again) = pipe.try_clone() {
                        let _ = std::thread::Builder::new()
                            .name("signals-again".into())
                            .spawn(move || {
                                let mut byte = [0u8; 1];
                                loop {
                                    match std::io::Read::read(&mut again, &mut byte) {
                                        Ok(1) => std::process::exit(128 + i32::from(byte[0])),
                                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                                        _ => return,
                                    }
                                }
                            });
                    }
                    f(signal);
                }
            });
        if spawned.is_err() {
            SignalWatch::restore_all(&installed);
            tracing::warn!("no signal thread; a signal ends nanotool without cancelling calls");
        }
    }

    /// Puts back each signal's old action (as it was before [`SignalWatch::start`]).
    fn restore_all(installed: &[(libc::c_int, libc::sigaction)]) {
        for (signal, old) in installed {
            // SAFETY: an action sigaction itself returned for this signal.
            unsafe {
                libc::sigaction(*signal, old, std::ptr::null_mut());
            }
        }
    }
}
