//! The toolbox every subcommand uses: the kernel from the common options, the built-in
//! tools, `exec` when allowed, then the descriptors of the work folder.

use std::io;
use std::path::{Path, PathBuf};

use nanotool::{CommandExecKernel, DescriptorError, KernelError, KernelSettings, Toolbox};

use crate::cli::Common;
use crate::report::Failure;

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

pub(crate) fn kernel(common: &Common) -> Result<CommandExecKernel, Failure> {
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
    settings.landlock_abi_limit = common.landlock_abi;
    settings.pid_namespace = common.pid_namespace;
    if let Some(l) = common.memory {
        settings.limits.memory = l.value();
    }
    if let Some(l) = common.file_size {
        settings.limits.file_size = l.value();
    }
    if let Some(l) = common.open_files {
        settings.limits.open_files = l.value();
    }
    if let Some(l) = common.cpu_time {
        settings.limits.cpu_time = l.value().map(std::time::Duration::from_secs);
    }
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
pub(crate) fn unreadable_binaries(toolbox: &Toolbox) -> Vec<(String, String)> {
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
}

pub(crate) fn assemble(common: &Common) -> Result<Assembled, Failure> {
    let dir = tools_dir(common)?;
    assemble_from(common, dir.as_deref())
}

pub(crate) fn assemble_from(common: &Common, dir: Option<&Path>) -> Result<Assembled, Failure> {
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
    let before = toolbox.tools().len();
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
    // What the descriptors added: the tools registered by this load, whatever came before.
    let descriptors = toolbox.tools()[before..]
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    Ok(Assembled {
        toolbox,
        errors,
        descriptors,
    })
}

pub(crate) fn warn_descriptors(errors: &[DescriptorError]) {
    for e in errors {
        eprintln!("warning: {e} (this file is skipped; the others load)");
    }
}
