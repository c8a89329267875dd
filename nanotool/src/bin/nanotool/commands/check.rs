//! `nanotool check`: validates the descriptors of a folder and the work folder's config file;
//! exit 1 on any error (613 for a descriptor).

use std::path::{Path, PathBuf};

use nanotool::CODE_INVALID_DESCRIPTOR;
use serde_json::json;

use crate::assembly::{Assembled, assemble_from, unreadable_binaries, work_dir};
use crate::cli::Common;
use crate::config;
use crate::report::{Failure, print_json, write_stdout};

pub(crate) fn run(common: &Common, dir: Option<&Path>, json: bool) -> Result<u8, Failure> {
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
    // The config file: its problems are reported with the descriptors' (the descriptors are
    // then checked with what is left of it).
    let (config, config_errors) = match work_dir(common).filter(|_| !common.no_config) {
        Some(work) => config::load(&work),
        None => (None, Vec::new()),
    };
    let Assembled {
        toolbox,
        errors,
        descriptors,
        host,
        unknown_tools,
        dropped_tool_settings,
        ..
    } = assemble_from(common, config.as_ref(), Some(&dir), None)?;
    let loaded: Vec<&str> = descriptors.iter().map(String::as_str).collect();
    // An entry for no tool is an error here: `check` is where a typo must show.
    let mut config_problems: Vec<(String, String, String)> = config_errors
        .iter()
        .map(|e| (e.file.display().to_string(), e.key.clone(), e.to_string()))
        .collect();
    let file = host
        .config
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    for unknown in unknown_tools.iter().chain(&dropped_tool_settings) {
        config_problems.push((file.clone(), "tools".to_owned(), unknown.clone()));
    }
    // What a command could have written is reported as the start would refuse it.
    if let Some(work) = work_dir(common) {
        let writers = crate::assembly::writers(&toolbox, &host);
        if let Err(e) = crate::trust::check(&work, &writers) {
            config_problems.push((
                work.join("config.json").display().to_string(),
                "trust".to_owned(),
                e.message,
            ));
        }
    }
    for warning in &host.warnings {
        eprintln!("warning: {warning}");
    }
    if json {
        let value = json!({
            "dir": dir.display().to_string(),
            "loaded": loaded,
            "errors": errors.iter().map(|e| json!({
                "code": CODE_INVALID_DESCRIPTOR,
                "file": e.file.display().to_string(),
                "message": e.message,
            })).chain(config_problems.iter().map(|(file, key, message)| json!({
                "file": file,
                "key": key,
                "message": message,
            }))).collect::<Vec<_>>(),
        });
        print_json(&value)?;
    } else {
        let mut text = String::new();
        for e in &errors {
            text.push_str(&format!("{e}\n"));
        }
        for (_, _, message) in &config_problems {
            text.push_str(&format!("{message}\n"));
        }
        text.push_str(&format!(
            "{}: {} descriptor(s) loaded, {} error(s)\n",
            dir.display(),
            loaded.len(),
            errors.len()
        ));
        if !file.is_empty() || !config_problems.is_empty() {
            text.push_str(&format!(
                "config file: {} error(s)\n",
                config_problems.len()
            ));
        }
        for (tool, hint) in unreadable_binaries(&toolbox) {
            if loaded.contains(&tool.as_str()) {
                text.push_str(&format!("warning: tool `{tool}`: {hint}\n"));
            }
        }
        write_stdout(&text)?;
    }
    Ok(if errors.is_empty() && config_problems.is_empty() {
        0
    } else {
        1
    })
}
