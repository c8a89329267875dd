//! Nothing a command can write changes what a later call may do: the files nanotool reads at
//! start (the work folder's `config.json` and its `tools/*.tool.json`) are used only where no
//! command can write them, or where the user approved exactly their content.
//!
//! Confined commands may write the working directory (a tool that declares `writes`, `exec`
//! with `--exec-writes`) and every `--sandbox-write` path. A work folder inside one of those, or holding one, is *exposed*: a
//! formatter's script or an archive member could rewrite the config (`"sandbox": "off"`) or
//! plant a descriptor for the next start. An exposed work folder starts only when its content
//! is the content the user approved with `nanotool trust` — as `direnv allow` and `mise trust`
//! do for the files a project carries. The approval is a SHA-256 of each file, kept in the
//! user's own state folder (`$XDG_STATE_HOME/nanotool/trusted/`, else
//! `~/.local/state/nanotool/trusted/`), which must itself be out of every command's reach.
//!
//! Once a work folder has an approval, every later start checks it, exposed or not: a
//! planted config that no longer names a writer would otherwise pass as unexposed.
//!
//! Where the sandbox does not confine files (`--sandbox off`, a Linux without Landlock),
//! commands act with the user's rights and may write the work folder wherever it is; this
//! check covers what confinement defines, and the status line says files are not confined.

mod record;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::report::Failure;
use crate::settings::HostSettings;

/// The name of the config file in a work folder.
const CONFIG: &str = "config.json";

/// One path commands may write, and who may write it, in words.
#[derive(Debug, Clone)]
pub(crate) struct Writer {
    pub(crate) path: PathBuf,
    pub(crate) who: String,
}

/// The paths confined commands of this host may write, each with who: the working directory
/// for each tool that declares `writes` and for `exec --exec-writes`; every `--sandbox-write`
/// path.
pub(crate) fn writers(host: &HostSettings, writing_tools: &[String]) -> Vec<Writer> {
    let cwd = canonical(&host.kernel.cwd);
    let mut out = Vec::new();
    for tool in writing_tools {
        out.push(Writer {
            path: cwd.clone(),
            who: format!("tool `{tool}` (it declares `writes`)"),
        });
    }
    if host.exec_writes && !host.allow_exec.is_empty() {
        out.push(Writer {
            path: cwd.clone(),
            who: "the `exec` tool (`--exec-writes` / `exec_writes`)".to_owned(),
        });
    }
    for path in &host.kernel.sandbox_write {
        out.push(Writer {
            path: canonical(path),
            who: format!("every command (`--sandbox-write {}`)", path.display()),
        });
    }
    out
}

/// Whether some command could reach `dir` whatever the tools declare: it lies in (or holds)
/// the working directory or a `--sandbox-write` path.
pub(crate) fn reachable(dir: &Path, host: &HostSettings) -> bool {
    let dir = canonical(dir);
    std::iter::once(&host.kernel.cwd)
        .chain(&host.kernel.sandbox_write)
        .map(|p| canonical(p))
        .any(|p| dir.starts_with(&p) || p.starts_with(&dir))
}

/// The writers whose path holds `dir` or lies inside it, in words (`None`: none).
fn reaching(dir: &Path, writers: &[Writer]) -> Option<String> {
    let said: Vec<String> = writers
        .iter()
        .filter(|w| dir.starts_with(&w.path) || w.path.starts_with(dir))
        .map(|w| format!("{} may write {}", w.who, w.path.display()))
        .collect();
    (!said.is_empty()).then(|| said.join(", "))
}

/// Where approvals are kept: `$XDG_STATE_HOME/nanotool/trusted`, else
/// `$HOME/.local/state/nanotool/trusted`; `None` without either.
fn approvals_dir() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let state = std::env::var_os("XDG_STATE_HOME")
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".local/state"))
        })?;
    Some(state.join("nanotool/trusted"))
}

/// What is known, before loading them, of which descriptors in a folder declare `writes`.
pub(crate) enum DescriptorWriters {
    /// As recorded by an earlier full load, nothing in the folder changed since: these tools.
    Recorded(Vec<String>),
    /// Not known: a full load tells, and [`keep_descriptor_writers`] records it for the
    /// folder as listed here (`None`: not to be recorded).
    Unknown(Option<record::Listing>),
}

/// Where the records of descriptor writers are kept: beside the approvals, and only where no
/// command of this host could write them.
fn records_dir(host: &HostSettings) -> Option<PathBuf> {
    let dir = approvals_dir()?.parent()?.join("writers");
    let state = dir.parent()?;
    (!reachable(state, host)).then_some(dir)
}

/// Which descriptors of the folder `dir` declare `writes`, from the record of an earlier load
/// when nothing in the folder changed since ([`record`]).
pub(crate) fn descriptor_writers(dir: &Path, host: &HostSettings) -> DescriptorWriters {
    let Some(records) = records_dir(host) else {
        return DescriptorWriters::Unknown(None);
    };
    let dir = canonical(dir);
    let Some(now) = record::listing(&dir) else {
        return DescriptorWriters::Unknown(None);
    };
    match record::recorded_writers(&records, &now) {
        Some(writers) => DescriptorWriters::Recorded(writers),
        None => DescriptorWriters::Unknown(Some(now)),
    }
}

/// Records `writers`, the tools that declare `writes` as a full load of `dir` found them, for
/// the descriptor folder as `seen` listed it before that load (nothing where `dir` now leads
/// to another folder than the one listed).
pub(crate) fn keep_descriptor_writers(
    dir: &Path,
    host: &HostSettings,
    seen: &record::Listing,
    writers: &[String],
) {
    if canonical(dir) != seen.dir() {
        return;
    }
    if let Some(records) = records_dir(host) {
        record::record(&records, seen, writers);
    }
}

/// The approval file of the work folder `work` (canonical).
fn approval_file(dir: &Path, work: &Path) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    dir.join(hex(&Sha256::digest(work.as_os_str().as_bytes())))
}

/// The files read at start in `work`, each as (name relative to `work`, SHA-256 of its
/// bytes): `config.json` (`absent` when missing) and every `tools/*.tool.json`, in name order.
fn digests(work: &Path) -> Result<Vec<(String, String)>, Failure> {
    let mut out = Vec::new();
    let read = |path: &Path| {
        std::fs::read(path)
            .map_err(|e| Failure::cannot_run(format!("`{}` cannot be read: {e}", path.display())))
    };
    let config = work.join(CONFIG);
    out.push((
        CONFIG.to_owned(),
        match std::fs::symlink_metadata(&config) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => "absent".to_owned(),
            _ => hex(&Sha256::digest(read(&config)?)),
        },
    ));
    let tools = work.join("tools");
    let mut names: Vec<String> = match std::fs::read_dir(&tools) {
        Ok(entries) => entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.ends_with(".tool.json"))
            .collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    for name in names {
        let path = tools.join(&name);
        let digest = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => "symlink".to_owned(),
            _ => hex(&Sha256::digest(read(&path)?)),
        };
        out.push((format!("tools/{name}"), digest));
    }
    Ok(out)
}

/// An approval's text: the work folder, then one `SHA256  NAME` line per file.
fn approval_text(work: &Path, files: &[(String, String)]) -> String {
    let mut text = format!("# nanotool trust: {}\n", work.display());
    for (name, digest) in files {
        let _ = writeln!(text, "{digest}  {name}");
    }
    text
}

/// The files of an approval's text, as [`digests`] gives them.
fn parse_approval(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once("  "))
        .map(|(digest, name)| (name.to_owned(), digest.to_owned()))
        .collect()
}

/// What differs between the approved files and the current ones, in words.
fn changes(approved: &[(String, String)], now: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, digest) in now {
        match approved.iter().find(|(n, _)| n == name) {
            None if digest != "absent" => out.push(format!("{name} is new")),
            Some((_, d)) if d != digest => out.push(format!("{name} changed")),
            _ => {}
        }
    }
    for (name, digest) in approved {
        if digest != "absent" && !now.iter().any(|(n, _)| n == name) {
            out.push(format!("{name} was removed"));
        }
    }
    out
}

/// Checks the work folder `work` before anything starts: `Ok` where no command can write it
/// and no approval is kept for it, or where its files are the approved ones; otherwise a
/// failure naming the files, who could write them, and the fixes.
pub(crate) fn check(work: &Path, writers: &[Writer]) -> Result<(), Failure> {
    let named = absolute(work);
    let work = canonical(work);
    // What a start reads, where it really is: the folder, and its config file and descriptor
    // folder where links lead them elsewhere.
    let exposed = [
        work.clone(),
        canonical(&work.join(CONFIG)),
        canonical(&work.join("tools")),
    ]
    .iter()
    .find_map(|path| reaching(path, writers));
    // The approvals of the folder's real path and of the path the host named: a command that
    // replaced the folder with a link to one of its own (where it may write the folder's
    // parent) finds the named path's approval in the way.
    let mut approvals = Vec::new();
    if let Some(dir) = approvals_dir() {
        for path in [&work, &named] {
            if let Ok(text) = std::fs::read_to_string(approval_file(&dir, path))
                && !approvals.contains(&text)
            {
                approvals.push(text);
            }
        }
    }
    if exposed.is_none() && approvals.is_empty() {
        return Ok(());
    }
    let now = digests(&work)?;
    let fix = format!(
        "move the work folder out of what commands may write (`--work DIR` outside it; the config file's `cwd` says where commands run), or approve this content with `nanotool trust --work {}` (needed again after every change)",
        work.display()
    );
    if approvals.is_empty() {
        let who = exposed.expect("exposed or approved");
        return Err(Failure::cannot_run(format!(
            "`{}` and the descriptors in `{}` are not used: {who}, which holds them, so a command could change what later calls may do; {fix}",
            work.join(CONFIG).display(),
            work.join("tools").display(),
        )));
    }
    let Some(changed) = approvals
        .iter()
        .map(|approved| changes(&parse_approval(approved), &now))
        .find(|changed| !changed.is_empty())
    else {
        return Ok(());
    };
    let why = match exposed {
        Some(who) => format!("{who}, which holds them"),
        None => "a command may have written them while a tool could".to_owned(),
    };
    Err(Failure::cannot_run(format!(
        "the work folder `{}` changed since it was approved ({}); it is not used: {why}; check the change, then {fix}",
        work.display(),
        changed.join(", ")
    )))
}

/// `nanotool trust`: approves the current content of the work folder `work`, writing its
/// digests to the user's state folder, which no command may write.
pub(crate) fn approve(work: &Path, writers: &[Writer]) -> Result<String, Failure> {
    let named = absolute(work);
    let work = canonical(work);
    let Some(dir) = approvals_dir() else {
        return Err(Failure::cannot_run(
            "no folder to keep approvals in: set HOME or XDG_STATE_HOME to an absolute path",
        ));
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| Failure::cannot_run(format!("cannot create `{}`: {e}", dir.display())))?;
    let real = canonical(&dir);
    if let Some(who) = reaching(&real, writers) {
        return Err(Failure::cannot_run(format!(
            "approvals are kept in `{}`, and {who}: a command could approve its own changes; set XDG_STATE_HOME to a folder no command may write",
            real.display(),
        )));
    }
    let files = digests(&work)?;
    // Under the folder's real path and, where a link leads there, the path the host named.
    let text = approval_text(&work, &files);
    let file = approval_file(&dir, &work);
    for path in std::iter::once(&work).chain((named != work).then_some(&named)) {
        let file = approval_file(&dir, path);
        write_whole(&file, &text)
            .map_err(|e| Failure::cannot_run(format!("cannot write `{}`: {e}", file.display())))?;
    }
    Ok(format!(
        "approved {} file(s) of `{}` (kept in `{}`)",
        files.iter().filter(|(_, d)| d != "absent").count(),
        work.display(),
        file.display()
    ))
}

/// Writes `text` to `file` whole or not at all (a file of this process's beside it, renamed
/// over it); the temporary file goes where the write fails.
fn write_whole(file: &Path, text: &str) -> std::io::Result<()> {
    let tmp = file.with_extension(format!("new-{}", std::process::id()));
    let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, file));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// `path` made absolute against the current directory, its links left as they are.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `path` with links resolved where it exists.
fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_approval_reads_back_and_names_each_change() {
        let files = vec![
            (CONFIG.to_owned(), "aa".to_owned()),
            ("tools/a.tool.json".to_owned(), "bb".to_owned()),
        ];
        let text = approval_text(Path::new("/w"), &files);
        assert_eq!(parse_approval(&text), files);
        let now = vec![
            (CONFIG.to_owned(), "cc".to_owned()),
            ("tools/b.tool.json".to_owned(), "dd".to_owned()),
        ];
        assert_eq!(
            changes(&files, &now),
            [
                "config.json changed",
                "tools/b.tool.json is new",
                "tools/a.tool.json was removed"
            ]
        );
        assert!(changes(&files, &files).is_empty());
    }

    #[test]
    fn a_writer_reaches_a_folder_it_holds_or_lies_in() {
        let w = |p: &str| Writer {
            path: PathBuf::from(p),
            who: p.to_owned(),
        };
        assert!(reaching(Path::new("/p/.work"), &[w("/p")]).is_some());
        assert!(reaching(Path::new("/p/.work"), &[w("/p/.work/tools")]).is_some());
        assert!(reaching(Path::new("/agent"), &[w("/p")]).is_none());
        assert!(reaching(Path::new("/p2"), &[w("/p")]).is_none());
    }
}
