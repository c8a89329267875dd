//! The toolbox every subcommand uses: the kernel from the common options, the built-in
//! tools, `exec` when allowed, then the descriptors of the work folder.

use std::io;
use std::path::{Path, PathBuf};

use nanotool::{
    CommandExecKernel, DescriptorError, KernelError, KernelSettings, RegisterError, Toolbox,
};

use crate::cli::Common;
use crate::config::{self, ConfigError, HostConfig};
use crate::report::Failure;
use crate::settings::{self, HostSettings};
use crate::trust::DescriptorWriters;

/// Where the descriptors are: `WORK/tools`, or `None` when there is none yet. A work folder
/// or descriptor folder that exists but cannot be read is an error (exit 1), never an empty
/// toolbox: its tools would silently vanish.
pub(crate) fn tools_dir(common: &Common) -> Result<Option<PathBuf>, Failure> {
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

/// The work folder when there is one: `--work DIR`, else `.work` if it exists.
pub(crate) fn work_dir(common: &Common) -> Option<PathBuf> {
    match &common.work {
        Some(work) => Some(work.clone()),
        None => Some(PathBuf::from(".work")).filter(|w| w.is_dir()),
    }
}

/// The config file of the work folder, read and checked (`None` without one, or with
/// `--no-config`), and its problems, each naming the file and the key: a bad entry is left out
/// and the rest of the file applies.
pub(crate) fn host_config(common: &Common) -> (Option<HostConfig>, Vec<ConfigError>) {
    if common.no_config {
        return (None, Vec::new());
    }
    let Some(work) = work_dir(common) else {
        return (None, Vec::new());
    };
    config::load(&work)
}

pub(crate) fn kernel(settings: KernelSettings) -> Result<CommandExecKernel, Failure> {
    CommandExecKernel::new(settings).map_err(|e| match e {
        KernelError::Cwd { .. } => Failure::cannot_run(format!(
            "{e}; pass an existing folder with --cwd DIR or the config file's `cwd` (default: the current folder)"
        )),
        KernelError::SandboxPath { .. } => Failure::cannot_run(format!(
            "{e}; check the --sandbox-read / --sandbox-write values and the config file's `sandbox_read` / `sandbox_write`"
        )),
        _ => Failure::cannot_run(e.to_string()),
    })
}

/// For each command tool whose binary confined commands cannot read (a toolchain under
/// `$HOME`): the tool's name and what to do.
pub(crate) fn unreadable_binaries(toolbox: &Toolbox) -> Vec<(String, String)> {
    toolbox
        .tools()
        .iter()
        .filter_map(|t| {
            let binary = t.spec()?.template().binary().to_owned();
            let hint = match t.settings() {
                Some(own) => toolbox.kernel().unreadable_binary_for(&binary, own)?,
                None => toolbox.kernel().unreadable_binary(&binary)?,
            };
            Some((t.name().to_owned(), hint.to_string()))
        })
        .collect()
}

pub(crate) fn warn_unreadable(toolbox: &Toolbox) {
    for (tool, hint) in unreadable_binaries(toolbox) {
        eprintln!("warning: tool `{tool}`: {hint}");
    }
}

/// The toolbox every subcommand uses: built-ins, `exec` if allowed, then the descriptors.
/// A toolbox and what loading its descriptors said.
pub(crate) struct Assembled {
    pub(crate) toolbox: Toolbox,
    /// One 613 error per descriptor file that did not load.
    pub(crate) errors: Vec<DescriptorError>,
    /// The names of the tools the descriptors added, in loading order.
    pub(crate) descriptors: Vec<String>,
    /// What the host runs with, and where each value came from.
    pub(crate) host: HostSettings,
    /// The config file's per-tool entries that name no tool: `(name, suggestion)`.
    pub(crate) unknown_tools: Vec<String>,
    /// The config file's per-tool entries a tool could not take (left out; the tool runs with
    /// its own settings), one message each.
    pub(crate) dropped_tool_settings: Vec<String>,
    /// Every config file problem (each entry left out) and every descriptor that did not
    /// load, one message each: what `serve` tells its client at level `error`.
    pub(crate) left_out: Vec<String>,
}

/// How a config file problem reads in a warning and a log message: what was left out, and
/// that the rest applies.
pub(crate) fn config_problem(error: &ConfigError) -> String {
    if error.key.is_empty() {
        format!("{error} (the whole file is left out: fix it and restart)")
    } else {
        format!("{error} (this entry is left out; the rest of the file applies)")
    }
}

pub(crate) fn assemble(common: &Common) -> Result<Assembled, Failure> {
    assemble_for(common, None)
}

/// [`assemble`] for one call of the tool `name`: a built-in (or `exec`) loads no descriptor,
/// and a descriptor named after the tool (`WORK/tools/NAME.tool.json`) that defines it loads
/// alone, so a call's cost does not grow with the tools it does not use; any other name loads
/// them all (the tool may be in a file named otherwise, or not exist: its error lists them).
pub(crate) fn assemble_call(common: &Common, name: &str) -> Result<Assembled, Failure> {
    assemble_for(common, Some(name))
}

fn assemble_for(common: &Common, only: Option<&str>) -> Result<Assembled, Failure> {
    let dir = tools_dir(common)?;
    let (config, config_errors) = host_config(common);
    let work = work_dir(common);
    // Who may write the work folder depends on every tool, not only the one a call needs:
    // where some command could reach it (it lies in or holds the working directory or a
    // `--sandbox-write` path), a call needs to know which descriptors declare `writes`. An
    // earlier full load recorded it, if nothing in the folder changed since; else the call
    // loads them all, and records what it found.
    let mut recorded = Vec::new();
    let mut to_record = None;
    let only = match (only, &work, &dir) {
        (Some(name), Some(work), Some(dir)) => {
            let host = settings::resolve(common, config.as_ref())?;
            if crate::trust::reachable(work, &host) {
                match crate::trust::descriptor_writers(dir, &host) {
                    DescriptorWriters::Recorded(writers) => {
                        recorded = writers;
                        Some(name)
                    }
                    DescriptorWriters::Unknown(listing) => {
                        to_record = listing;
                        None
                    }
                }
            } else {
                Some(name)
            }
        }
        (only, _, _) => only,
    };
    let mut assembled = assemble_from(common, config.as_ref(), dir.as_deref(), only)?;
    if let (Some(listing), Some(dir)) = (&to_record, &dir) {
        let found: Vec<String> = assembled
            .descriptors
            .iter()
            .filter(|d| assembled.toolbox.get(d).is_some_and(|t| t.access().writes))
            .cloned()
            .collect();
        crate::trust::keep_descriptor_writers(dir, &assembled.host, listing, &found);
    }
    if let Some(work) = work {
        let mut writing = writing_tools(&assembled.toolbox, &assembled.host);
        for tool in recorded {
            if !writing.contains(&tool) {
                writing.push(tool);
            }
        }
        crate::trust::check(&work, &crate::trust::writers(&assembled.host, &writing))?;
    }
    for warning in &assembled.host.warnings {
        eprintln!("warning: {warning}");
    }
    let mut left_out: Vec<String> = config_errors.iter().map(config_problem).collect();
    left_out.extend(assembled.dropped_tool_settings.iter().cloned());
    left_out.extend(assembled.unknown_tools.iter().cloned());
    for problem in &left_out {
        eprintln!("warning: {problem}");
    }
    left_out.extend(assembled.errors.iter().map(descriptor_problem));
    assembled.left_out = left_out;
    Ok(assembled)
}

pub(crate) fn assemble_from(
    common: &Common,
    config: Option<&HostConfig>,
    dir: Option<&Path>,
    only: Option<&str>,
) -> Result<Assembled, Failure> {
    let host = settings::resolve(common, config)?;
    let mut toolbox = Toolbox::new(kernel(host.kernel.clone())?);
    // The host's denials first: a built-in, `exec` or a descriptor they refuse is refused.
    toolbox.deny_binaries(host.deny.iter().cloned());
    for tool in nanotool::builtins::all() {
        let name = tool.name().to_owned();
        match toolbox.register_arc(tool) {
            Ok(()) => {}
            // A host that denies `grep` or `find` does without that built-in.
            Err(RegisterError::Denied { .. }) => {
                tracing::warn!(
                    "built-in tool `{name}` is left out: the host's deny list refuses its binary"
                );
            }
            Err(e) => {
                return Err(Failure::cannot_run(format!(
                    "built-in tool `{name}` could not be registered: {e}"
                )));
            }
        }
    }
    // `exec` first: a descriptor that takes its name is a name conflict (613) for that file,
    // and the other files still load.
    if !host.allow_exec.is_empty() {
        toolbox
            .enable_exec_with_writes(host.allow_exec.clone(), host.exec_writes)
            .map_err(|e| {
                Failure::cannot_run(format!(
                    "--allow-exec / the config file's `allow_exec`: {e}; give binaries by name, e.g. --allow-exec git,ls"
                ))
            })?;
    }
    let before = toolbox.tools().len();
    // One call needs one tool: found already, or in the file named after it.
    let partial = match (only, dir) {
        (Some(name), _) if toolbox.get(name).is_some() => true,
        (Some(name), Some(dir)) => toolbox.load_descriptor_named(dir, name),
        _ => false,
    };
    let errors = match dir {
        _ if partial => Vec::new(),
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
    // What the descriptors added: the tools registered by this load, whatever came before.
    let descriptors = toolbox.tools()[before..]
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    // The config file's settings per tool, over the tool's own. An entry for a tool that is
    // not here (its descriptor did not load, or a typo) is reported; settings a tool cannot
    // take are a failure, as a bad flag is.
    let mut unknown_tools = Vec::new();
    let mut dropped_tool_settings = Vec::new();
    let file = host
        .config
        .as_ref()
        .map(|p| format!(" `{}`", p.display()))
        .unwrap_or_default();
    for (name, own) in &host.tools {
        match toolbox.set_tool_settings(name, own) {
            Ok(()) => {}
            // Not loaded for this call: nothing to say (`list` and `check` say it).
            Err(RegisterError::Unknown(_)) if partial => {}
            Err(RegisterError::Unknown(unknown)) => unknown_tools.push(format!(
                "config file{file}: `tools.{name}`: {unknown} (its settings apply to no tool)"
            )),
            // Settings the tool cannot take: left out, as a bad entry of the file is; the
            // tool runs with its own.
            Err(e) => dropped_tool_settings.push(format!(
                "config file{file}: `tools.{name}`: {e} (this entry is left out; the tool runs with its own settings)"
            )),
        }
    }
    Ok(Assembled {
        toolbox,
        errors,
        descriptors,
        host,
        unknown_tools,
        dropped_tool_settings,
        left_out: Vec::new(),
    })
}

/// The paths commands of this toolbox may write, and who may ([`crate::trust`]).
pub(crate) fn writers(toolbox: &Toolbox, host: &HostSettings) -> Vec<crate::trust::Writer> {
    crate::trust::writers(host, &writing_tools(toolbox, host))
}

/// The tools of `toolbox` that declare `writes` (`exec` is named with the flag instead).
fn writing_tools(toolbox: &Toolbox, host: &HostSettings) -> Vec<String> {
    toolbox
        .tools()
        .iter()
        .filter(|t| t.access().writes)
        // `exec` is named with the flag that lets it write.
        .filter(|t| !(host.exec_writes && t.spec().is_none() && t.name() == "exec"))
        .map(|t| t.name().to_owned())
        .collect()
}

/// `nanotool trust`: approves the work folder's current content.
pub(crate) fn approve(common: &Common) -> Result<u8, Failure> {
    let Some(work) = work_dir(common) else {
        return Err(Failure::cannot_run(
            "no work folder to approve: `.work` does not exist here; name one with --work DIR",
        ));
    };
    let dir = tools_dir(common)?;
    let (config, _) = host_config(common);
    let assembled = assemble_from(common, config.as_ref(), dir.as_deref(), None)?;
    let said = crate::trust::approve(&work, &writers(&assembled.toolbox, &assembled.host))?;
    crate::report::write_stdout(&said)?;
    Ok(0)
}

/// How a descriptor that did not load reads in a warning and a log message.
pub(crate) fn descriptor_problem(error: &DescriptorError) -> String {
    format!("{error} (this file is skipped; the others load)")
}

pub(crate) fn warn_descriptors(errors: &[DescriptorError]) {
    for e in errors {
        eprintln!("warning: {}", descriptor_problem(e));
    }
}
