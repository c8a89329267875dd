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
//! become [`SlotSpec`]s, [`CommandSpec::new`] parses the template, applies the policy and
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
//! | `network` | optional | `true`: the command may use TCP and UDP (default `false`: offline); never unix sockets by path |
//! | `$schema` | optional | ignored: lets editors check the file against `schemas/tool.schema.json` |
//!
//! Each argument takes `type` (`string`, `integer`, `number`, `enum` or `path`) and
//! `description` (both required), and `required`, `default`, `enum`, `pattern`, `minimum`,
//! `maximum`. An enum may be written `"type": "enum", "enum": [...]` or, as JSON Schema writes
//! it, `"type": "string", "enum": [...]`: both mean the same [`SlotKind::Enum`]. `pattern` is
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
use crate::hint;
use crate::kernel::Access;
use crate::slot::{SlotKind, SlotSpec};
use crate::spec::{CommandSpec, SpecError, is_tool_name};
use crate::template::is_slot_name;
use crate::tool::CommandTool;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

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
];

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
            .with_access(raw.access);
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

/// Parses JSON like `serde_json::from_str::<Value>`, but refuses a key given twice in one
/// object: `serde_json` would keep the last silently, so a reader could check one `command`
/// while another runs. The descriptor loader and the MCP server's framing both read JSON
/// through it.
pub fn parse_json(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde::de::DeserializeSeed::deserialize(UniqueKeys, &mut de)?;
    de.end()?;
    Ok(value)
}

/// A [`Value`] seed that errors on a duplicate object key.
#[derive(Clone, Copy)]
struct UniqueKeys;

impl<'de> serde::de::DeserializeSeed<'de> for UniqueKeys {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for UniqueKeys {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(self)?;
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format_args!(
                    "the key `{key}` is given twice in one object; keep one"
                )));
            }
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

fn json_error(file: &Path, e: &serde_json::Error) -> DescriptorError {
    let full = e.to_string();
    let what = match full.rfind(" at line ") {
        Some(cut) => &full[..cut],
        None => &full,
    };
    let advice = match e.classify() {
        serde_json::error::Category::Eof => {
            "; the file ends too early: close every `{`, `[` and `\"` that is opened"
        }
        serde_json::error::Category::Syntax => {
            "; check for a missing or extra comma, quote, colon or brace there (JSON allows no \
             comments and no trailing commas)"
        }
        _ => "",
    };
    DescriptorError {
        file: file.to_path_buf(),
        message: format!("invalid JSON: {what}{advice}"),
        pointer: None,
        position: (e.line() > 0).then(|| (e.line(), e.column())),
    }
}

/// Turns a [`SpecError`] into a 613 error: a template or policy error points into `command`
/// with a caret line; an error about one argument points at the field at fault.
fn spec_error(file: &Path, command: &str, e: &SpecError) -> DescriptorError {
    let arg = |slot: &str, field: &str| {
        if field.is_empty() {
            format!("arguments.{slot}")
        } else {
            format!("arguments.{slot}.{field}")
        }
    };
    let (pointer, mut message) = match e {
        SpecError::Template(t) => return DescriptorError::at(file, "command", t.to_string()),
        SpecError::Policy(_) | SpecError::PolicyVariant { .. } => {
            ("command".to_owned(), e.to_string())
        }
        SpecError::InvalidName { .. } => ("name".to_owned(), e.to_string()),
        SpecError::EmptyDescription { .. } => ("description".to_owned(), e.to_string()),
        SpecError::SlotWithoutSpec { slot, braced, .. } => (
            "arguments".to_owned(),
            if *braced {
                format!(
                    "the command has `{{{slot}}}`, which reads as a slot that `arguments` does not \
                     describe: if it is literal text, write `{{{{{slot}}}}}` (as in Rust's \
                     `format!`, `{{{{` and `}}}}` write a literal brace); if it is a slot, add \
                     \"{slot}\": {{\"type\": \"string\", \"description\": \"...\"}} to `arguments`"
                )
            } else {
                format!(
                    "the command has the slot `<{slot}>` but `arguments` does not describe it: add \
                     \"{slot}\": {{\"type\": \"string\", \"description\": \"...\"}} to `arguments`, or \
                     remove the placeholder"
                )
            },
        ),
        SpecError::SpecWithoutSlot { slot } => (
            arg(slot, ""),
            format!(
                "the command has no `<{slot}>`: add the placeholder to the command where the \
                 value goes, or remove this argument"
            ),
        ),
        SpecError::DuplicateSpec { slot, .. } => (arg(slot, ""), e.to_string()),
        SpecError::EmptySlotDescription { slot, .. } => (arg(slot, "description"), e.to_string()),
        SpecError::EmptyEnum { slot, .. } | SpecError::EnumValue { slot, .. } => {
            (arg(slot, "enum"), e.to_string())
        }
        SpecError::PatternNotForKind { slot, .. } | SpecError::InvalidPattern { slot, .. } => {
            (arg(slot, "pattern"), e.to_string())
        }
        SpecError::RangeNotForKind { slot, .. } | SpecError::InvalidRange { slot, .. } => {
            (arg(slot, "minimum"), e.to_string())
        }
        SpecError::InvalidDefault { slot, .. } => (arg(slot, "default"), e.to_string()),
    };
    if let Some(span) = e.span() {
        message.push('\n');
        message.push_str(&crate::template::caret_line(command, span));
    }
    DescriptorError::at(file, pointer, message)
}

fn did_you_mean(word: &str, candidates: &[&str]) -> String {
    let near = hint::closest(word, candidates.iter().copied());
    match hint::did_you_mean(&near[..near.len().min(1)]) {
        Some(hint) => format!("{hint} "),
        None => String::new(),
    }
}

/// A problem: the dotted JSON path and the message.
type Problem = (String, String);

/// A descriptor's fields, checked for shape (types of fields, unknown fields, contradictions);
/// everything about the command and the slots' meaning is left to [`CommandSpec::new`].
struct RawDescriptor<'v> {
    name: &'v str,
    description: &'v str,
    command: &'v str,
    slots: Vec<SlotSpec>,
    access: Access,
}

impl<'v> RawDescriptor<'v> {
    fn from_value(value: &'v Value, cache: &mut PatternCache) -> Result<Self, Vec<Problem>> {
        let mut problems = Vec::new();
        let Some(object) = value.as_object() else {
            return Err(vec![(
                String::new(),
                format!(
                    "the descriptor is {}, not a JSON object: write \
                     {{\"name\": ..., \"description\": ..., \"command\": ..., \"arguments\": {{...}}}}",
                    hint::json_kind(value)
                ),
            )]);
        };
        for key in object.keys() {
            if !DESCRIPTOR_FIELDS.contains(&key.as_str()) {
                problems.push((
                    key.clone(),
                    format!(
                        "unknown field `{key}`; {}a descriptor has only the fields {}",
                        did_you_mean(key, DESCRIPTOR_FIELDS),
                        hint::backticked(DESCRIPTOR_FIELDS)
                    ),
                ));
            }
        }
        if let Some(schema) = object.get("$schema") {
            if !schema.is_string() {
                problems.push((
                    "$schema".into(),
                    format!(
                        "is {}; write the schema's URL as a string",
                        hint::json_kind(schema)
                    ),
                ));
            }
        }
        let name = required_str(object, "name", None, &mut problems, "e.g. \"search_text\"");
        if let Some(name) = name {
            if !is_tool_name(name) {
                problems.push((
                    "name".into(),
                    format!(
                        "`{name}` is not a valid tool name: use 1 to 64 ASCII letters, digits, `_` \
                         or `-` (e.g. `{}`)",
                        crate::spec::suggest_tool_name(name)
                    ),
                ));
            }
        }
        let description = required_str(
            object,
            "description",
            None,
            &mut problems,
            "what the tool does, for the model",
        );
        let command = required_str(
            object,
            "command",
            None,
            &mut problems,
            "the template, e.g. \"grep -rn <pattern> <path>\"",
        );
        let mut flag = |field: &str| match object.get(field) {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                problems.push((
                    field.to_owned(),
                    format!(
                        "is {}; write `true` or `false` (default `false`)",
                        hint::json_kind(other)
                    ),
                ));
                false
            }
        };
        let access = Access {
            writes: flag("writes"),
            network: flag("network"),
        };
        let mut slots = Vec::new();
        match object.get("arguments") {
            None => {}
            Some(Value::Object(arguments)) => {
                for (arg, spec) in arguments {
                    let cached = cached_slot(cache, arg, spec);
                    if let Some(slot) = cached {
                        slots.push(slot);
                    } else if let Some(slot) = argument(arg, spec, &mut problems) {
                        remember_slot(cache, arg, spec, &slot);
                        slots.push(slot);
                    }
                }
            }
            Some(other) => problems.push((
                "arguments".into(),
                format!(
                    "is {}; write an object with one entry per slot of the command, e.g. \
                     {{\"path\": {{\"type\": \"path\", \"description\": \"...\"}}}}",
                    hint::json_kind(other)
                ),
            )),
        }
        match (name, description, command) {
            (Some(name), Some(description), Some(command)) if problems.is_empty() => {
                Ok(RawDescriptor {
                    name,
                    description,
                    command,
                    slots,
                    access,
                })
            }
            _ => Err(problems),
        }
    }
}

/// A required, non-blank string field: of the descriptor (`argument: None`) or of one
/// argument's object.
fn required_str<'v>(
    object: &'v Map<String, Value>,
    field: &str,
    argument: Option<&str>,
    problems: &mut Vec<Problem>,
    example: &str,
) -> Option<&'v str> {
    // The pointer is only written down for a problem: a good file formats nothing.
    let pointer = || match argument {
        Some(name) => format!("arguments.{name}.{field}"),
        None => field.to_owned(),
    };
    match object.get(field) {
        None => {
            problems.push((pointer(), format!("missing; write \"{field}\": {example}")));
            None
        }
        Some(Value::String(s)) if s.trim().is_empty() => {
            problems.push((pointer(), format!("is empty; write {example}")));
            None
        }
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            problems.push((
                pointer(),
                format!("is {}; write a string: {example}", hint::json_kind(other)),
            ));
            None
        }
    }
}

/// Slot specs already built for arguments with a `pattern`, keyed by the argument's name and
/// JSON text (keys sorted, so equal objects give equal text).
#[derive(Debug, Clone, Default)]
struct PatternCache(HashMap<String, SlotSpec>);

fn cache_key(name: &str, value: &Value) -> Option<String> {
    value.get("pattern")?;
    Some(format!("{name}\u{0}{value}"))
}

fn cached_slot(cache: &PatternCache, name: &str, value: &Value) -> Option<SlotSpec> {
    cache.0.get(&cache_key(name, value)?).cloned()
}

fn remember_slot(cache: &mut PatternCache, name: &str, value: &Value, slot: &SlotSpec) {
    if let Some(key) = cache_key(name, value) {
        cache.0.insert(key, slot.clone());
    }
}

/// One argument's fields into a [`SlotSpec`], or problems.
fn argument(name: &str, value: &Value, problems: &mut Vec<Problem>) -> Option<SlotSpec> {
    let at = |field: &str| format!("arguments.{name}.{field}");
    let before = problems.len();
    if !is_slot_name(name) {
        problems.push((
            format!("arguments.{name}"),
            format!(
                "`{name}` is not a valid argument name: use lowercase ASCII letters, digits and \
                 `_`, not starting with a digit (e.g. `max_count`), the same name as its `<slot>` \
                 in the command"
            ),
        ));
    }
    let Some(object) = value.as_object() else {
        problems.push((
            format!("arguments.{name}"),
            format!(
                "is {}; write an object, e.g. {{\"type\": \"string\", \"description\": \"...\"}}",
                hint::json_kind(value)
            ),
        ));
        return None;
    };
    for key in object.keys() {
        if !ARGUMENT_FIELDS.contains(&key.as_str()) {
            problems.push((
                at(key),
                format!(
                    "unknown field `{key}`; {}an argument has only the fields {}",
                    did_you_mean(key, ARGUMENT_FIELDS),
                    hint::backticked(ARGUMENT_FIELDS)
                ),
            ));
        }
    }
    let description = required_str(
        object,
        "description",
        Some(name),
        problems,
        "what the model should put here",
    );
    let enum_values = match object.get("enum") {
        None => None,
        Some(Value::Array(items)) => {
            let mut values = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) => {
                        if values.contains(s) {
                            problems.push((
                                format!("{}[{i}]", at("enum")),
                                format!("`{s}` is listed twice; list each value once"),
                            ));
                        }
                        values.push(s.clone());
                    }
                    other => problems.push((
                        format!("{}[{i}]", at("enum")),
                        format!(
                            "is {}; enum values are strings (write \"{}\")",
                            hint::json_kind(other),
                            other
                        ),
                    )),
                }
            }
            if items.is_empty() {
                problems.push((
                    at("enum"),
                    "is empty; list the values the model may choose, e.g. [\"-l\", \"-1\"]".into(),
                ));
            }
            Some(values)
        }
        Some(other) => {
            problems.push((
                at("enum"),
                format!(
                    "is {}; write the values as an array of strings, e.g. [\"-l\", \"-1\"]",
                    hint::json_kind(other)
                ),
            ));
            None
        }
    };
    let kind = match object.get("type") {
        None => {
            let hint = if object.contains_key("enum") {
                "\"enum\""
            } else {
                "\"string\" (or \"integer\", \"number\", \"enum\", \"path\")"
            };
            problems.push((at("type"), format!("missing; write \"type\": {hint}")));
            None
        }
        Some(Value::String(t)) => match (t.as_str(), enum_values) {
            ("enum" | "string", Some(values)) => Some(SlotKind::Enum(values)),
            ("enum", None) => {
                if !object.contains_key("enum") {
                    problems.push((
                        at("enum"),
                        "missing: an argument of type `enum` lists its values, e.g. \
                         \"enum\": [\"-l\", \"-1\"]"
                            .into(),
                    ));
                }
                None
            }
            ("string", None) => Some(SlotKind::String),
            ("integer", None) => Some(SlotKind::Integer),
            ("number", None) => Some(SlotKind::Number),
            ("path", None) => Some(SlotKind::Path),
            (other @ ("integer" | "number" | "path"), Some(_)) => {
                problems.push((
                    at("enum"),
                    format!(
                        "an argument of type `{other}` takes no `enum`; write \"type\": \"enum\" \
                         for a choice among strings, or remove `enum`"
                    ),
                ));
                None
            }
            (other, _) => {
                problems.push((
                    at("type"),
                    format!(
                        "unknown type `{other}`; {}write one of {}",
                        did_you_mean(other, ARGUMENT_TYPES),
                        hint::backticked(ARGUMENT_TYPES)
                    ),
                ));
                None
            }
        },
        Some(other) => {
            problems.push((
                at("type"),
                format!(
                    "is {}; write one of {} as a string",
                    hint::json_kind(other),
                    hint::backticked(ARGUMENT_TYPES)
                ),
            ));
            None
        }
    };
    let required = match object.get("required") {
        None => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            problems.push((
                at("required"),
                format!("is {}; write true or false", hint::json_kind(other)),
            ));
            None
        }
    };
    let default = object.get("default");
    if required == Some(true) && default.is_some() {
        problems.push((
            at("required"),
            "`\"required\": true` beside a `\"default\"` is a contradiction: an argument with a \
             default is optional; remove `required`, or remove `default` if the model must \
             always give it"
                .into(),
        ));
    }
    let pattern = match object.get("pattern") {
        None => None,
        Some(Value::String(p)) => {
            if !matches!(kind, Some(SlotKind::String) | None) {
                problems.push((
                    at("pattern"),
                    "only a `string` argument takes a `pattern`; remove it, or write \
                     \"type\": \"string\""
                        .into(),
                ));
            }
            Some(p.as_str())
        }
        Some(other) => {
            problems.push((
                at("pattern"),
                format!(
                    "is {}; write a regex as a string, e.g. \"^\\\\d+$\"",
                    hint::json_kind(other)
                ),
            ));
            None
        }
    };
    let mut bound = |field: &str| -> Option<f64> {
        match object.get(field) {
            None => None,
            Some(Value::Number(n)) => {
                if !matches!(kind, Some(SlotKind::Integer | SlotKind::Number) | None) {
                    problems.push((
                        at(field),
                        format!(
                            "only an `integer` or `number` argument takes `{field}`; remove it"
                        ),
                    ));
                }
                n.as_f64()
            }
            Some(other) => {
                problems.push((
                    at(field),
                    format!("is {}; write a number", hint::json_kind(other)),
                ));
                None
            }
        }
    };
    let minimum = bound("minimum");
    let maximum = bound("maximum");
    if let (Some(lo), Some(hi)) = (minimum, maximum) {
        if lo > hi {
            problems.push((
                at("minimum"),
                format!("{lo} is above the maximum {hi}; swap them"),
            ));
        }
    }
    if problems.len() > before {
        return None;
    }
    let (kind, description) = (kind?, description?);
    let mut slot = SlotSpec::new(name, kind, description);
    if let Some(default) = default {
        slot = slot.with_default(default.clone());
    } else if required == Some(false) {
        slot = slot.optional();
    }
    if let Some(pattern) = pattern {
        slot = slot.with_pattern(pattern);
    }
    if let Some(minimum) = minimum {
        slot = slot.with_minimum(minimum);
    }
    if let Some(maximum) = maximum {
        slot = slot.with_maximum(maximum);
    }
    Some(slot)
}
