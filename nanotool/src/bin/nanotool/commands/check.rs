//! `nanotool check`: validates the descriptors of a folder; exit 1 on any error (613).

use std::path::{Path, PathBuf};

use nanotool::CODE_INVALID_DESCRIPTOR;
use serde_json::json;

use crate::assembly::{Assembled, assemble_from, unreadable_binaries};
use crate::cli::Common;
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
    let Assembled {
        toolbox,
        errors,
        descriptors,
    } = assemble_from(common, Some(&dir))?;
    let loaded: Vec<&str> = descriptors.iter().map(String::as_str).collect();
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
