//! `*.tool.json` descriptors and their loader (error 613).
//!
//! A descriptor lets someone who does not write Rust publish a command tool: one JSON file,
//! dropped into a `tools/` folder.
//!
//! ```json
//! {
//!   "$schema": "https://example.invalid/nanotool/schemas/tool.schema.json",
//!   "name": "count_lines",
//!   "description": "Count the lines of a file",
//!   "command": "wc -l <file>",
//!   "arguments": {
//!     "file": { "type": "path", "description": "The file to count" }
//!   }
//! }
//! ```
//!
//! A descriptor goes through exactly the same code as a `#[command_tool]` struct: its fields
//! become [`SlotSpec`](crate::slot::SlotSpec)s, [`CommandSpec::new`] parses the template, applies the policy and
//! matches slots to specs, and the result runs as a [`CommandTool`]. This module only reads
//! files and turns JSON into those types; it holds no security rule of its own besides the
//! file-level ones (size limit, no symbolic links, regular files only).
//!
//! # The format
//!
//! | field | | |
//! |---|---|---|
//! | `name` | required | `^[A-Za-z0-9_-]{1,64}$`, free among all tools |
//! | `description` | required | what the tool does, for the model |
//! | `command` | required | the template (`grep -rn <pattern> <path>`) |
//! | `arguments` | optional | one entry per slot of the template; may be left out by a tool without slots |
//! | `writes` | optional | `true`: the command may write, create and delete inside the workspace (default `false`: read-only) |
//! | `network` | optional | `true`: the command may use TCP and UDP (default `false`: offline); never unix sockets by path; `"local"`: a private loopback only (127.0.0.1 and ::1 of the call's own, nothing else) |
//! | `timeout` | optional | seconds before the command's process group is killed, 1 to 86400 (default: the host's, 30 s) |
//! | `max_output` | optional | bytes of output kept, as head and tail, 1 to 16 MiB (default: the host's, 30,000) |
//! | `env` | optional | variables set for the command, `{"RUST_BACKTRACE": "1"}`; not the ones the kernel sets for safety (`PATH`, `HOME`, `TMPDIR`, `GIT_*`, `LD_*`, the Python and git overrides: [`crate::kernel::env_name_problem`]) |
//! | `$schema` | optional | ignored: lets editors check the file against `schemas/tool.schema.json` |
//!
//! Each argument takes `type` (`string`, `integer`, `number`, `enum` or `path`) and
//! `description` (both required), and `required`, `default`, `enum`, `pattern`, `minimum`,
//! `maximum`. An enum may be written `"type": "enum", "enum": [...]` or, as JSON Schema writes
//! it, `"type": "string", "enum": [...]`: both mean the same [`SlotKind::Enum`](crate::slot::SlotKind::Enum). `pattern` is
//! for `string` arguments, `minimum`/`maximum` for `integer` and `number` ones. An argument is
//! required unless it has a `default` or says `"required": false`; `"required": true` beside a
//! `"default"` is a contradiction and an error. Any other field, at the top or in an argument,
//! is an error (a typo must not pass silently).
//!
//! # Loading a folder
//!
//! [`DescriptorLoader::load_dir`] reads every `*.tool.json` (that suffix only: `x.tool.json.bak`,
//! `x.json`, `x.tool.yaml` are not read) in byte order of their names. Each bad file is one
//! [`DescriptorError`] (613) naming the file and saying what to write instead; that file is
//! skipped and the others load. A folder that does not exist is an empty load with no error
//! ("no descriptors yet"); a path that exists but is not a folder is an error. The folder itself
//! may be a symbolic link; the files in it may not.
//!
//! Other choices the format makes:
//!
//! - One error per bad file: when a file has several shape problems (unknown fields, wrong
//!   types), the one 613 error lists each on its own line, so the author fixes them in one go.
//! - A key given twice in one object is an error (a JSON parser would keep the last one
//!   silently, and a reader could check one `command` while another runs).
//! - A UTF-8 byte-order mark at the start of the file is accepted and ignored.
//! - A file's name need not match the tool's `name`; names must be unique among all tools:
//!   the loader is given the names already taken ([`DescriptorLoader::reserve`]), and of two
//!   files with one name the later in name order is refused.
//! - File names are compared byte by byte; a name that is not UTF-8 is an error naming the
//!   file (shown lossily), never a crash.
//!
//! ```
//! use nanotool_runtime::descriptor::DescriptorLoader;
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(
//!     dir.path().join("count_lines.tool.json"),
//!     r#"{"name": "count_lines", "description": "Count the lines of a file",
//!         "command": "wc -l <file>",
//!         "arguments": {"file": {"type": "path", "description": "The file to count"}}}"#,
//! ).unwrap();
//! std::fs::write(
//!     dir.path().join("bad.tool.json"),
//!     r#"{"name": "bad", "description": "Chained", "command": "ls ; rm -rf /"}"#,
//! ).unwrap();
//!
//! let load = DescriptorLoader::new().load_dir(dir.path());
//! assert_eq!(load.tools.len(), 1);
//! assert_eq!(load.errors.len(), 1);
//! assert!(load.errors[0].to_string().starts_with("error 613: "));
//! assert!(load.errors[0].to_string().contains("bad.tool.json"));
//! ```

use crate::error::CODE_INVALID_DESCRIPTOR;
use crate::spec::CommandSpec;
use crate::tool::CommandTool;
use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

mod fields;
mod json;
mod settings;

use fields::*;
use json::json_error;
pub use json::parse_json;

/// The suffix a descriptor file's name ends with; no other file is read.
pub const DESCRIPTOR_SUFFIX: &str = ".tool.json";

/// The largest descriptor file the loader reads, in bytes (1 MiB). The size is checked before
/// the file is read, and again while reading (a file that grows is cut off, not read whole).
pub const MAX_DESCRIPTOR_BYTES: u64 = 1 << 20;

/// The top-level fields of a descriptor.
pub const DESCRIPTOR_FIELDS: &[&str] = &[
    "$schema",
    "name",
    "description",
    "command",
    "arguments",
    "writes",
    "network",
    // The run settings (RUN_SETTINGS_FIELDS): these nine, in this place.
    "timeout",
    "max_output",
    "env",
    "sandbox_read",
    "memory",
    "file_size",
    "open_files",
    "cpu_time",
    "processes",
    "exit_codes",
];

/// The fields of [`DESCRIPTOR_FIELDS`] that are run settings: what a host's per-tool entry may
/// set too ([`run_settings_from_json`]).
pub const RUN_SETTINGS_FIELDS: &[&str] = DESCRIPTOR_FIELDS.split_at(7).1.split_at(9).0;

/// Reads the run settings of a JSON object as a descriptor holds them — `timeout` (seconds),
/// `max_output` (bytes), `env` (an object of strings), `sandbox_read` (an array of paths, `~/`
/// for `$HOME`, resolved), the resource limits `memory`, `file_size`, `open_files`,
/// `cpu_time` and `processes` — by the same rules and with the same messages; other fields are
/// not looked at. A host's config file uses it for its per-tool entries, so a setting means
/// one thing wherever it is written. Each problem is the dotted path of the field at fault
/// and what to do.
///
/// ```
/// use nanotool_runtime::descriptor::run_settings_from_json;
/// use serde_json::json;
///
/// let ok = json!({"timeout": 900, "env": {"RUST_BACKTRACE": "1"}});
/// let settings = run_settings_from_json(ok.as_object().unwrap()).unwrap();
/// assert_eq!(settings.timeout.unwrap().as_secs(), 900);
///
/// let bad = json!({"timeout": 0, "env": {"LD_PRELOAD": "x.so"}});
/// let problems = run_settings_from_json(bad.as_object().unwrap()).unwrap_err();
/// assert_eq!(problems[0].0, "timeout");
/// assert_eq!(problems[1].0, "env.LD_PRELOAD");
/// ```
pub fn run_settings_from_json(
    object: &serde_json::Map<String, serde_json::Value>,
) -> Result<crate::kernel::RunSettings, Vec<(String, String)>> {
    let mut problems = Vec::new();
    let settings = settings::run_settings(object, &mut problems);
    if problems.is_empty() {
        Ok(settings)
    } else {
        Err(problems)
    }
}

/// The fields of one argument of a descriptor.
pub const ARGUMENT_FIELDS: &[&str] = &[
    "type",
    "description",
    "required",
    "default",
    "enum",
    "pattern",
    "minimum",
    "maximum",
];

/// The values of an argument's `type` field.
pub const ARGUMENT_TYPES: &[&str] = &["string", "integer", "number", "enum", "path"];

/// A descriptor file that could not be loaded (error 613).
///
/// Its [`Display`](fmt::Display) reads `error 613: FILE[:LINE:COLUMN]: [JSON.PATH: ]MESSAGE`,
/// where the message says what is wrong and what to write instead:
///
/// ```text
/// error 613: tools/search.tool.json: arguments.path.type: unknown type `file`; write one of `string`, `integer`, `number`, `enum`, `path`
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescriptorError {
    /// The file at fault (or the folder, when the folder itself cannot be read).
    pub file: PathBuf,
    /// What is wrong and what to write instead. A template or policy error carries the
    /// template with a caret line under the offending characters; several problems in one
    /// file are listed one per line.
    pub message: String,
    /// Where in the JSON document, as a dotted path (`arguments.path.type`); `None` for a
    /// problem with the file itself.
    pub pointer: Option<String>,
    /// Line and column (1-based) of a JSON syntax error.
    pub position: Option<(usize, usize)>,
}

impl DescriptorError {
    fn file(file: &Path, message: impl Into<String>) -> Self {
        DescriptorError {
            file: file.to_path_buf(),
            message: message.into(),
            pointer: None,
            position: None,
        }
    }

    fn at(file: &Path, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        let pointer = pointer.into();
        DescriptorError {
            file: file.to_path_buf(),
            message: message.into(),
            pointer: (!pointer.is_empty()).then_some(pointer),
            position: None,
        }
    }

    /// The error code: always 613 ([`CODE_INVALID_DESCRIPTOR`]).
    pub fn code(&self) -> u16 {
        CODE_INVALID_DESCRIPTOR
    }
}

impl fmt::Display for DescriptorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error {}: {}", self.code(), self.file.display())?;
        if let Some((line, column)) = self.position {
            write!(f, ":{line}:{column}")?;
        }
        f.write_str(": ")?;
        if let Some(pointer) = &self.pointer {
            write!(f, "{pointer}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for DescriptorError {}

/// What loading a folder gave: the tools, in file-name order, and one error per bad file.
#[derive(Debug, Default)]
pub struct DescriptorLoad {
    /// The tools that loaded.
    pub tools: Vec<CommandTool>,
    /// One 613 error per file that did not.
    pub errors: Vec<DescriptorError>,
}

/// Loads `*.tool.json` descriptors into [`CommandTool`]s.
///
/// The loader knows the names already taken (built-ins, code tools: [`reserve`](Self::reserve))
/// and the host's extra deny list ([`deny_binaries`](Self::deny_binaries)); each tool it loads
/// takes its name, so two files with one name conflict (the later one, in name order, is
/// refused).
///
/// ```
/// use nanotool_runtime::descriptor::DescriptorLoader;
/// use std::path::Path;
///
/// let loader = DescriptorLoader::new().reserve(["grep"]);
/// let err = loader
///     .parse(
///         Path::new("grep.tool.json"),
///         br#"{"name": "grep", "description": "Mine", "command": "grep -c x ."}"#,
///     )
///     .unwrap_err();
/// assert_eq!(err.pointer.as_deref(), Some("name"));
/// assert!(err.message.contains("already taken"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct DescriptorLoader {
    /// Name → who holds it (`a registered tool`, or a file name).
    taken: HashMap<String, Holder>,
    deny: Vec<String>,
    /// Slot specs of arguments with a `pattern`, by argument name and JSON text: compiling a
    /// regex costs far more than reading a descriptor, and folders repeat their arguments.
    patterned: PatternCache,
}

impl DescriptorLoader {
    /// A loader with no name taken and only the built-in deny list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks names as taken (the built-in and code tools already registered).
    pub fn reserve<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        for name in names {
            self.taken.insert(name.into(), Holder::Registered);
        }
        self
    }

    /// Adds the host's binaries to deny, on top of the built-in deny list.
    pub fn deny_binaries<I, S>(mut self, binaries: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.deny.extend(binaries.into_iter().map(Into::into));
        self
    }

    /// Whether `name` is taken.
    pub fn is_taken(&self, name: &str) -> bool {
        self.taken.contains_key(name)
    }

    /// Loads every `*.tool.json` in `dir`, in name order. A missing folder is an empty load.
    pub fn load_dir(&mut self, dir: &Path) -> DescriptorLoad {
        let mut load = DescriptorLoad::default();
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // No folder: no descriptors yet. A dangling folder link is the same.
                return load;
            }
            Err(e) => {
                let message = if dir.is_file() {
                    "is a file, not a folder: descriptors are read from a folder of \
                     NAME.tool.json files; give the folder's path"
                        .to_owned()
                } else {
                    format!("cannot read the descriptor folder: {e}")
                };
                load.errors.push(DescriptorError::file(dir, message));
                return load;
            }
        };
        let mut files = Vec::new();
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    load.errors.push(DescriptorError::file(
                        dir,
                        format!("cannot list the descriptor folder: {e}"),
                    ));
                    continue;
                }
            };
            let name = entry.file_name();
            if !name.as_bytes().ends_with(DESCRIPTOR_SUFFIX.as_bytes()) {
                continue;
            }
            files.push((name, entry));
        }
        files.sort_by(|a, b| a.0.cmp(&b.0));
        load.tools.reserve(files.len());
        self.taken.reserve(files.len());
        for (name, entry) in files {
            let path = entry.path();
            let result = if name.to_str().is_none() {
                Err(DescriptorError::file(
                    &path,
                    "the file name is not valid UTF-8: rename the file to a UTF-8 name \
                     ending in `.tool.json`",
                ))
            } else {
                match entry.file_type() {
                    Ok(kind) => match file_kind_error(kind) {
                        Some(message) => Err(DescriptorError::file(&path, message)),
                        None => self.load_file_unchecked(&path),
                    },
                    Err(e) => Err(DescriptorError::file(&path, format!("cannot read: {e}"))),
                }
            };
            match result {
                Ok(tool) => load.tools.push(tool),
                Err(err) => load.errors.push(err),
            }
        }
        load
    }

    /// Loads one descriptor file; on success its tool's name is taken.
    pub fn load_file(&mut self, path: &Path) -> Result<CommandTool, DescriptorError> {
        let meta = fs::symlink_metadata(path)
            .map_err(|e| DescriptorError::file(path, format!("cannot read: {e}")))?;
        if let Some(message) = file_kind_error(meta.file_type()) {
            return Err(DescriptorError::file(path, message));
        }
        self.load_file_unchecked(path)
    }

    /// Reads a file known (from its directory entry) to be a regular file; the open refuses
    /// a symbolic link swapped in since, and the size is checked on the open file.
    fn load_file_unchecked(&mut self, path: &Path) -> Result<CommandTool, DescriptorError> {
        let bytes = read_limited(path)?;
        let mut cache = std::mem::take(&mut self.patterned);
        let spec = self.parse_cached(path, &bytes, &mut cache);
        self.patterned = cache;
        let spec = spec?;
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        self.taken
            .insert(spec.name().to_owned(), Holder::File(file.into()));
        Ok(CommandTool::new(spec))
    }

    /// Parses one descriptor's bytes into a [`CommandSpec`] (`file` names it in errors). The
    /// name is checked against the names taken but not taken: [`load_file`](Self::load_file)
    /// and [`load_dir`](Self::load_dir) do that.
    pub fn parse(&self, file: &Path, bytes: &[u8]) -> Result<CommandSpec, DescriptorError> {
        self.parse_cached(file, bytes, &mut PatternCache::default())
    }

    fn parse_cached(
        &self,
        file: &Path,
        bytes: &[u8],
        cache: &mut PatternCache,
    ) -> Result<CommandSpec, DescriptorError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            DescriptorError::file(
                file,
                format!(
                    "the file is not valid UTF-8 (invalid byte at offset {}): save it as UTF-8",
                    e.valid_up_to()
                ),
            )
        })?;
        // Editors on some systems write a byte-order mark; it is not part of the JSON.
        let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
        let value = parse_json(text).map_err(|e| json_error(file, &e))?;
        let raw = RawDescriptor::from_value(&value, cache).map_err(|problems| {
            let mut problems = problems.into_iter();
            let (pointer, first) = problems.next().expect("at least one problem");
            let mut err = DescriptorError::at(file, pointer, first);
            for (pointer, message) in problems {
                err.message.push_str("\n  also: ");
                if !pointer.is_empty() {
                    err.message.push_str(&pointer);
                    err.message.push_str(": ");
                }
                err.message.push_str(&message);
            }
            err
        })?;
        if let Some(holder) = self.taken.get(raw.name) {
            return Err(DescriptorError::at(
                file,
                "name",
                format!(
                    "the name `{}` is already taken by {holder}: tool names must be unique; \
                     give this tool another name{}",
                    raw.name,
                    self.free_name_hint(raw.name)
                ),
            ));
        }
        let command = raw.command;
        let spec = CommandSpec::new(raw.name, raw.description, command, raw.slots)
            .map_err(|e| spec_error(file, command, &e))?
            .with_access(raw.access)
            .with_settings(raw.settings)
            .and_then(|spec| spec.with_exit_codes(raw.exit_codes))
            .map_err(|e| spec_error(file, command, &e))?;
        if !self.deny.is_empty() {
            spec.check_denied(&self.deny)
                .map_err(|e| spec_error(file, command, &e))?;
        }
        Ok(spec)
    }

    fn free_name_hint(&self, name: &str) -> String {
        (2..100)
            .map(|n| format!("{name}_{n}"))
            .find(|candidate| candidate.len() <= 64 && !self.taken.contains_key(candidate))
            .map(|free| format!(", e.g. `{free}`"))
            .unwrap_or_default()
    }
}

/// Who holds a taken name, for the message of a name conflict.
#[derive(Debug, Clone)]
enum Holder {
    /// A tool registered before the descriptors (a built-in, a code tool).
    Registered,
    /// The descriptor file (its name) that loaded first.
    File(Box<str>),
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holder::Registered => f.write_str("a tool already registered"),
            Holder::File(name) => write!(f, "`{name}`"),
        }
    }
}

const SYMLINK_REFUSED: &str = "is a symbolic link: descriptor files are read only as regular \
     files, so that what is checked is what runs; copy the file into the folder instead of linking it";

/// Why a directory entry of this kind is not read, if it is not a regular file.
fn file_kind_error(kind: fs::FileType) -> Option<&'static str> {
    if kind.is_symlink() {
        Some(SYMLINK_REFUSED)
    } else if kind.is_dir() {
        Some(
            "is a folder, not a file: a descriptor is a regular file named NAME.tool.json; \
             rename the folder",
        )
    } else if !kind.is_file() {
        Some(
            "is not a regular file (a FIFO, socket or device): a descriptor is a regular file \
             named NAME.tool.json; replace it with one",
        )
    } else {
        None
    }
}

fn too_large(path: &Path, size: u64) -> DescriptorError {
    DescriptorError::file(
        path,
        format!(
            "the file is {size} bytes; a descriptor may be at most {MAX_DESCRIPTOR_BYTES} bytes \
             (1 MiB): describe one tool per file"
        ),
    )
}

/// Opens without following a symbolic link and without blocking on a FIFO swapped in, checks
/// the open file is regular and small enough, and reads at most the limit plus one byte.
fn read_limited(path: &Path) -> Result<Vec<u8>, DescriptorError> {
    let mut file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                DescriptorError::file(path, SYMLINK_REFUSED)
            } else {
                DescriptorError::file(path, format!("cannot read: {e}"))
            }
        })?;
    let meta = file
        .metadata()
        .map_err(|e| DescriptorError::file(path, format!("cannot read: {e}")))?;
    if let Some(message) = file_kind_error(meta.file_type()) {
        return Err(DescriptorError::file(path, message));
    }
    if meta.len() > MAX_DESCRIPTOR_BYTES {
        return Err(too_large(path, meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize + 1);
    (&mut file)
        .take(MAX_DESCRIPTOR_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| DescriptorError::file(path, format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_DESCRIPTOR_BYTES {
        return Err(too_large(path, bytes.len() as u64));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run settings are the descriptor's fields that `run_settings_from_json` reads: a
    /// value no setting takes is a problem naming exactly those fields, and the others are
    /// not looked at.
    #[test]
    fn the_run_settings_are_the_fields_run_settings_from_json_reads() {
        for field in DESCRIPTOR_FIELDS {
            let object = serde_json::Map::from_iter([(field.to_string(), true.into())]);
            let read = match run_settings_from_json(&object) {
                Ok(_) => false,
                Err(problems) => {
                    assert!(
                        problems.iter().all(|(path, _)| path == field),
                        "{field}: {problems:?}"
                    );
                    true
                }
            };
            assert_eq!(read, RUN_SETTINGS_FIELDS.contains(field), "{field}");
        }
        assert_eq!(RUN_SETTINGS_FIELDS.len(), 9, "{RUN_SETTINGS_FIELDS:?}");
    }
}
