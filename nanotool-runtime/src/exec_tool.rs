//! [`ExecTool`]: the free-text form, off by default, guarded by five layers.
//!
//! The model writes a whole command (`ls -l src`); only the binary is fixed, by the host's
//! allowlist. That makes it the weakest form — best effort, not structural — so every layer is
//! strict and each refusal is error 614 naming its layer:
//!
//! | layer | name | refuses |
//! |---|---|---|
//! | 3 | operator scan | (run first, on the raw text) an empty command; shell metacharacters `;` `\|` `&` `$` `` ` `` `<` `>`, quotes `'` `"`, a backslash before a space, control characters (newline, tab, ...), Unicode whitespace other than the ASCII space, and format characters (zero-width, bidi) |
//! | 1 | binary allowlist | a binary not on the allowlist, matched on the exact token: with `ls` allowlisted, `/bin/ls` and `./ls` are refused (allowlist the path form itself to allow it) |
//! | 2 | deny list | a binary on the built-in deny list or the host's, even when allowlisted |
//! | 4 | argument rules | code-entry options and launcher/writer options ([`policy::check_exec_argv`]: `find -exec`/`-delete`, `sed -i`, `sort -o`, `git -c`, ...), options that follow symbolic links out or delete files (`find -L`, `grep -R`, `tar --remove-files`, `rsync --delete`, ...), remote names (`tar -f host:x`, `rsync src host:dst`), options that move where later names resolve (`git -C`, `tar -C`) or rename what is written (`tar --transform`); git subcommands that delete, serve, connect out or write outside ([`GIT_REFUSED_SUBCOMMANDS`], a repository named by URL or `host:path`, `git config` writes); any argument naming a `.git` folder or what is in it, as written or through a symbolic link; and every argument that could name a file outside the working directory: an operand, the value of an option (`--file=/etc/passwd`), a value attached after any letter of a short option (`-f/etc/passwd`, `-cf/tmp/x`), and each piece of a value separated by `=`, `,` or `:` — refused when absolute, when it escapes through a symbolic link, or when it holds a `..` component at all |
//! | 5 | kernel | (not a refusal) the command runs through the kernel: locked cwd, no shell, closed stdin, timeout, capped output, reduced environment |
//!
//! Tokens are split on ASCII spaces; an argument can never contain a space (layer 3 refuses the
//! quotes and the backslash-space a model might write to make one). A backslash and
//! parentheses are otherwise plain characters: no shell reads them (`grep -P l\d a.txt`,
//! `find . ( -name a -o -name b )`), and they name no file any differently. The confinement of
//! layer 4 applies to every argument because in free text the tool cannot know which ones are
//! paths; a non-path argument that starts with `/` (`grep -e /usr x`) is refused too, and so
//! is a short option with a `/` after its letters (`-fsub/a.tar`: write `-f sub/a.tar`), the
//! price of strictness.
//!
//! `..` is refused as a path component even when it stays inside (`sub/../x`: write `x`): the
//! path rule normalises `..` lexically, but the raw argument is what runs, and the system
//! resolves a symbolic link before the `..` that follows it, so with `out -> /etc`,
//! `out/../etc/hostname` would read the host's file. `..` inside a word is no component
//! (`git log HEAD~1..HEAD` runs). Template path slots need no such rule: they render the
//! normalised path.
//!
//! ```
//! use nanotool_runtime::ExecTool;
//! use std::path::Path;
//!
//! let exec = ExecTool::new(vec!["ls".into(), "cat".into()]).unwrap();
//! let root = std::env::current_dir().unwrap().canonicalize().unwrap();
//! assert_eq!(exec.check("ls -l", &root).unwrap(), ["ls", "-l"]);
//!
//! let err = exec.check("python3 -c 1", &root).unwrap_err();
//! assert_eq!(err.layer, 1);
//! assert_eq!(
//!     err.to_string(),
//!     "error 614: exec refused (layer 1, binary allowlist): `python3` is not allowlisted; allowed: ls, cat"
//! );
//! assert_eq!(exec.check("ls | cat", &root).unwrap_err().layer, 3);
//! assert_eq!(exec.check("cat /etc/shadow", &root).unwrap_err().layer, 4);
//! ```

use crate::error::CODE_INVALID_ARGUMENTS;
use crate::kernel::{Access, RunSettings};
use crate::policy;
use crate::slot;
use crate::template::is_format_char;
use crate::tool::{Tool, ToolContext, ToolOutput};
use serde_json::{Value, json};
use std::fmt;
use std::path::Path;
use std::sync::{Arc, RwLock};
use thiserror::Error;

mod tools;

pub use tools::GIT_REFUSED_SUBCOMMANDS;
use tools::{git_rules, package_manager_rules};

/// The tool's name.
pub const EXEC_TOOL_NAME: &str = "exec";

/// Characters layer 3 refuses anywhere in the command text (besides control, Unicode
/// whitespace and format characters). The backslash and parentheses are not here: no shell
/// reads the text, so they reach the command as plain characters (`grep -P l\d a.txt`,
/// `find . ( -name a -o -name b )`); only a backslash before a space is refused.
pub const EXEC_OPERATORS: &[char] = &[';', '|', '&', '$', '`', '<', '>', '\'', '"'];

/// The free-text tool `exec`: one argument, `command`, run when it passes the five layers.
///
/// The default has an empty allowlist: it refuses everything.
#[derive(Debug, Default)]
pub struct ExecTool {
    allow: Vec<String>,
    deny: Arc<RwLock<Vec<String>>>,
    description: String,
    writes: bool,
    /// The host's settings for `exec` commands (a config file's `tools.exec`).
    settings: RunSettings,
}

/// Why an allowlist is not acceptable.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ExecToolError {
    /// An allowlisted binary is on the deny list.
    #[error(
        "exec allowlist: `{0}` is on the deny list and cannot be allowlisted: the deny list holds \
         binaries no tool may run; remove it from the allowlist"
    )]
    Denied(String),
    /// An allowlist entry is not a binary name or path.
    #[error(
        "exec allowlist: `{entry}` is not a binary: {why}; write a bare name like `ls` or a path \
         like `/usr/bin/ls`"
    )]
    NotABinary {
        /// The entry as given.
        entry: String,
        /// What is wrong with it.
        why: &'static str,
    },
}

/// The layer of ExecTool that refused a call; numbered as the module's table numbers them
/// (and compared with those numbers: `refusal.layer == 4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExecLayer {
    /// 1: the binary is not on the allowlist.
    Allowlist = 1,
    /// 2: the binary is on the built-in or the host's deny list.
    DenyList = 2,
    /// 3: the text holds an operator, a quote or a character a command may not hold.
    OperatorScan = 3,
    /// 4: an argument breaks the argument rules.
    ArgumentRules = 4,
}

impl ExecLayer {
    /// The layer's number (1 to 4).
    pub fn number(self) -> u8 {
        self as u8
    }

    /// The layer's name (`binary allowlist`, `deny list`, `operator scan`, `argument rules`).
    pub fn name(self) -> &'static str {
        match self {
            ExecLayer::Allowlist => "binary allowlist",
            ExecLayer::DenyList => "deny list",
            ExecLayer::OperatorScan => "operator scan",
            ExecLayer::ArgumentRules => "argument rules",
        }
    }
}

impl PartialEq<u8> for ExecLayer {
    fn eq(&self, other: &u8) -> bool {
        self.number() == *other
    }
}

/// A refused `exec` call (error 614), naming the layer that refused it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecRefusal {
    /// The layer that refused the call.
    pub layer: ExecLayer,
    /// Why, and what to write instead.
    pub message: String,
}

impl ExecRefusal {
    fn new(layer: ExecLayer, message: impl Into<String>) -> Self {
        ExecRefusal {
            layer,
            message: message.into(),
        }
    }

    /// The layer's name (`binary allowlist`, `deny list`, `operator scan`, `argument rules`).
    pub fn layer_name(&self) -> &'static str {
        self.layer.name()
    }

    /// The error code: always 614.
    pub fn code(&self) -> u16 {
        CODE_INVALID_ARGUMENTS
    }
}

impl fmt::Display for ExecRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "error {}: exec refused (layer {}, {}): {}",
            self.code(),
            self.layer.number(),
            self.layer_name(),
            self.message
        )
    }
}

impl std::error::Error for ExecRefusal {}

impl ExecTool {
    /// An `exec` tool running only the binaries of `allow`, each matched exactly as written.
    /// Refuses an entry on the built-in deny list, or one that is not a plain binary.
    pub fn new(allow: Vec<String>) -> Result<Self, ExecToolError> {
        Self::with_shared_deny(allow, Arc::default())
    }

    /// Like [`new`](Self::new), with the host's extra deny list on top of the built-in one.
    pub fn with_deny(allow: Vec<String>, extra_deny: Vec<String>) -> Result<Self, ExecToolError> {
        Self::with_shared_deny(allow, Arc::new(RwLock::new(extra_deny)))
    }

    /// Like [`with_deny`](Self::with_deny), with a deny list the host may still extend: it is
    /// read at every call.
    pub(crate) fn with_shared_deny(
        allow: Vec<String>,
        deny: Arc<RwLock<Vec<String>>>,
    ) -> Result<Self, ExecToolError> {
        {
            let extra = deny.read().unwrap_or_else(|e| e.into_inner());
            for entry in &allow {
                if let Some(why) = not_a_binary(entry) {
                    return Err(ExecToolError::NotABinary {
                        entry: entry.clone(),
                        why,
                    });
                }
                if policy::is_denied(entry, &extra) {
                    return Err(ExecToolError::Denied(entry.clone()));
                }
            }
        }
        let mut allow_unique: Vec<String> = Vec::with_capacity(allow.len());
        for entry in allow {
            if !allow_unique.contains(&entry) {
                allow_unique.push(entry);
            }
        }
        let description = format!(
            "Run one simple command in the working directory, without a shell: the binary, then \
             its arguments separated by spaces (no quotes, pipes, redirections, `;` or `$`; no \
             absolute paths or `..`: name files from the working directory). Allowed \
             binaries: {}.",
            if allow_unique.is_empty() {
                "none".to_owned()
            } else {
                allow_unique.join(", ")
            }
        );
        Ok(ExecTool {
            allow: allow_unique,
            deny,
            description,
            writes: false,
            settings: RunSettings::default(),
        })
    }

    /// The same tool whose commands may (`true`) or may not (`false`, the default) write
    /// inside the workspace. The sandbox enforces it; the exec tool never has the network.
    ///
    /// ```
    /// use nanotool_runtime::{ExecTool, Tool};
    ///
    /// let exec = ExecTool::new(vec!["touch".into()]).unwrap();
    /// assert!(!exec.access().writes);
    /// assert!(exec.with_writes(true).access().writes);
    /// ```
    pub fn with_writes(mut self, writes: bool) -> Self {
        self.writes = writes;
        self
    }

    /// The allowlisted binaries.
    pub fn allowlist(&self) -> &[String] {
        &self.allow
    }

    /// Runs layers 3, 1, 2 and 4 over `command` and returns the argv to run; `root` is the
    /// kernel's canonical working directory, which arguments may not leave.
    pub fn check(&self, command: &str, root: &Path) -> Result<Vec<String>, ExecRefusal> {
        operator_scan(command)?;
        let argv: Vec<String> = command
            .split(' ')
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect();
        let Some(binary) = argv.first() else {
            return Err(ExecRefusal::new(
                ExecLayer::OperatorScan,
                "the command is empty: write a binary and its arguments, e.g. `ls -l`",
            ));
        };
        if !self.allow.iter().any(|a| a == binary) {
            let allowed = if self.allow.is_empty() {
                "none (the host allowlists binaries when it enables exec)".to_owned()
            } else {
                self.allow.join(", ")
            };
            let mut message = format!("`{binary}` is not allowlisted; allowed: {allowed}");
            let base = policy::binary_basename(binary);
            if base != binary && self.allow.iter().any(|a| a == base) {
                message.push_str(&format!(
                    " (binaries are matched exactly as written: write `{base}`)"
                ));
            }
            return Err(ExecRefusal::new(ExecLayer::Allowlist, message));
        }
        {
            let extra = self.deny.read().unwrap_or_else(|e| e.into_inner());
            if policy::is_denied(binary, &extra) {
                return Err(ExecRefusal::new(
                    ExecLayer::DenyList,
                    format!(
                        "`{binary}` is on the deny list: it cannot run here whatever the allowlist \
                         says; use a tool made for the job"
                    ),
                ));
            }
        }
        policy::check_exec_argv(&argv)
            .map_err(|e| ExecRefusal::new(ExecLayer::ArgumentRules, e.to_string()))?;
        if policy::tables::reads_response_files(binary)
            && let Some(at) = argv[1..].iter().find(|a| a.starts_with('@'))
        {
            return Err(ExecRefusal::new(
                ExecLayer::ArgumentRules,
                format!(
                    "`{at}` names a response file: `{binary}` reads further arguments from it, \
                     where they cannot be checked (and prints its lines back in errors); write \
                     the arguments themselves"
                ),
            ));
        }
        if policy::binary_basename(binary) == "git" {
            git_rules(&argv[1..])?;
        }
        if matches!(policy::binary_basename(binary), "npm" | "pnpm" | "yarn") {
            package_manager_rules(binary, &argv[1..])?;
        }
        for token in &argv[1..] {
            confine_token(token, root)?;
        }
        Ok(argv)
    }
}

/// Layer 3: one simple command, plain printable text.
fn operator_scan(command: &str) -> Result<(), ExecRefusal> {
    for (offset, c) in command.char_indices() {
        let why = if EXEC_OPERATORS.contains(&c) {
            match c {
                '\'' | '"' => format!(
                    "`{c}` at byte {offset}: no shell runs, so quotes would reach the command \
                     literally; write the arguments without quotes (an argument cannot hold a space \
                     here)"
                ),
                _ => format!(
                    "`{c}` at byte {offset} is a shell operator, and no shell runs here: one simple \
                     command per call, no pipes, chaining, redirection, substitution or \
                     expansion; write the binary and its arguments separated by spaces"
                ),
            }
        } else if c == '\\' && command[offset + 1..].starts_with(' ') {
            format!(
                "`\\ ` at byte {offset}: no shell runs, so a backslash does not join words; an \
                 argument cannot hold a space here: write the arguments without it"
            )
        } else if c.is_control() {
            format!(
                "control character U+{:04X} at byte {offset}: write the command on one line, \
                 with plain spaces between arguments",
                c as u32
            )
        } else if (c.is_whitespace() && c != ' ') || is_format_char(c) {
            format!(
                "invisible character U+{:04X} at byte {offset}: it would make the command read \
                 differently than it runs; use plain ASCII spaces between arguments",
                c as u32
            )
        } else {
            continue;
        };
        return Err(ExecRefusal::new(ExecLayer::OperatorScan, why));
    }
    Ok(())
}

/// Why an allowlist entry is not a plain binary.
fn not_a_binary(entry: &str) -> Option<&'static str> {
    if entry.is_empty() {
        return Some("it is empty");
    }
    if entry.ends_with('/') {
        return Some("it ends with `/`");
    }
    if entry.chars().any(|c| {
        c == ' '
            || c.is_control()
            || c.is_whitespace()
            || is_format_char(c)
            || EXEC_OPERATORS.contains(&c)
            || matches!(c, '\\' | '(' | ')')
    }) {
        return Some("it holds a space, an operator, a quote or an invisible character");
    }
    if entry.starts_with('-') {
        return Some("it starts with `-`");
    }
    None
}

/// Layer 4, confinement: every piece of `token` that could name a file must pass the path
/// rules of a `path` slot (`slot::path::check`: relative, no `..` escape, no symbolic link out of
/// `root`, never `/proc`, `/dev` or `/sys`), and may hold no `..` component at all.
///
/// The pieces are the token split on `=`, `,` and `:`; of a short option (`-xf/etc/passwd`),
/// every tail after its first letter (`f/etc/passwd`, `/etc/passwd`, ...), since any letter of
/// the bundle may take the rest as its value; a long option's name is no path unless it holds a `/` (an operand after
/// `--`).
///
/// Why `..` is refused even inside the working directory: the path rule normalises `..`
/// lexically (`out/..` is `.`), but the raw token is what runs, and the system resolves a
/// symbolic link before the `..` after it: with `out -> /etc`, `out/../etc/hostname` is the
/// host's `/etc/hostname`. A template renders the normalised path, so it needs no such rule.
fn confine_token(token: &str, root: &Path) -> Result<(), ExecRefusal> {
    // git's pathspec magic names paths from the repository's root, which may lie above the
    // working directory: `:(top)`, `:(glob,top)x`, `:/`, `:/x` (also as an option's value).
    if let Some(magic) = token
        .split('=')
        .find(|part| part.starts_with(":(") || part.starts_with(":/"))
    {
        return Err(ExecRefusal::new(
            ExecLayer::ArgumentRules,
            format!(
                "`{magic}` is git pathspec magic: `:(top)` and `:/` name paths from the \
                 repository's root, which may be outside the working directory; name paths \
                 relative to the working directory"
            ),
        ));
    }
    let long_option = token.starts_with("--");
    let short_option = token.starts_with('-') && !long_option;
    for (i, piece) in token.split(['=', ',', ':']).enumerate() {
        // (candidate, whether it is a value attached after option letters)
        let mut candidates: Vec<(&str, bool)> = Vec::new();
        if i == 0 && long_option {
            // An option name is no path; an operand after `--` that begins with `-` but holds
            // a `/` could be one, and the path rule refuses it.
            if piece.contains('/') {
                candidates.push((piece, false));
            }
        } else if i == 0 && short_option {
            // A value attached after any option letter: `-f/x`, `-cf/x`, `-tvfout/x`; and an
            // operand after `--` such as `-/x`.
            let from = if piece[1..].starts_with('/') { 1 } else { 2 };
            candidates.extend(
                piece
                    .char_indices()
                    .skip(from)
                    .map(|(k, _)| (&piece[k..], true)),
            );
        } else {
            candidates.push((piece, false));
        }
        for (candidate, attached) in candidates {
            if candidate.is_empty() || (candidate.starts_with('-') && !candidate.contains('/')) {
                continue;
            }
            let what = if candidate == token {
                String::new()
            } else if attached {
                format!("in `{token}`: an option letter may take `{candidate}` as its value: ")
            } else {
                format!("in `{token}`: ")
            };
            // The slot path rule. (The characters a slot value may not hold never reach here:
            // layer 3 refuses them in the whole command.)
            if let Err(reason) = slot::path::check(candidate, root) {
                let fix = if attached {
                    "; write an option's value as an argument of its own, and keep arguments \
                     that could name files inside the working directory"
                } else {
                    "; arguments that could name files must stay inside the working directory"
                };
                return Err(ExecRefusal::new(
                    ExecLayer::ArgumentRules,
                    format!("{what}{reason}{fix}"),
                ));
            }
            if in_git_internals(candidate, root) {
                return Err(ExecRefusal::new(
                    ExecLayer::ArgumentRules,
                    format!(
                        "{what}`{candidate}` is inside a `.git` folder: git runs what it finds \
                         there (hooks, configuration), so no command may name it; use git's \
                         own commands to read the repository"
                    ),
                ));
            }
            if candidate.split('/').any(|c| c == "..") {
                // The slot rule's lexical reading, written from the working directory.
                let instead = match slot::path::lexical(candidate) {
                    Ok(parts) if parts.is_empty() => " (here `.`)".to_owned(),
                    Ok(parts) => format!(" (here `{}`)", parts.join("/")),
                    Err(_) => String::new(),
                };
                return Err(ExecRefusal::new(
                    ExecLayer::ArgumentRules,
                    format!(
                        "{what}`..` in `{candidate}`: the system resolves a symbolic link before \
                         the `..` after it, so such a path may lead outside the working \
                         directory; name the path from the working directory without `..`\
                         {instead}"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Whether `candidate` names something inside a `.git` folder (or the folder itself), as
/// written or once symbolic links are resolved (`g/hooks` with `g -> .git`): git runs what it
/// finds there (hooks, configuration), so no argument may name it, whatever it does with it.
fn in_git_internals(candidate: &str, root: &Path) -> bool {
    let is_git = |c: &std::ffi::OsStr| c.as_encoded_bytes().eq_ignore_ascii_case(b".git");
    if Path::new(candidate)
        .components()
        .any(|c| is_git(c.as_os_str()))
    {
        return true;
    }
    // The deepest part of it that exists, resolved.
    let mut path = root.join(candidate);
    loop {
        if let Ok(real) = path.canonicalize() {
            return real
                .strip_prefix(root)
                .is_ok_and(|rel| rel.components().any(|c| is_git(c.as_os_str())));
        }
        if !path.pop() || !path.starts_with(root) {
            return false;
        }
    }
}

impl Tool for ExecTool {
    fn name(&self) -> &str {
        EXEC_TOOL_NAME
    }

    fn settings(&self) -> Option<&RunSettings> {
        Some(&self.settings)
    }

    fn with_host_settings(
        &self,
        host: &RunSettings,
    ) -> Option<Result<Arc<dyn Tool>, crate::spec::SpecError>> {
        let settings = self.settings.overridden_by(host);
        Some(match settings.check() {
            Ok(()) => Ok(Arc::new(ExecTool {
                allow: self.allow.clone(),
                deny: Arc::clone(&self.deny),
                description: self.description.clone(),
                writes: self.writes,
                settings,
            })),
            Err(e) => Err(e.into()),
        })
    }

    fn access(&self) -> Access {
        Access {
            writes: self.writes,
            network: false,
            ..Access::READ_ONLY
        }
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "command": {
                    "type": "string",
                    "description": "One simple command: the binary, then its arguments separated by spaces, e.g. `ls -l src`"
                }
            },
            "required": ["command"],
            "additionalProperties": false
        })
    }

    fn call(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        let command = match args {
            Value::Object(map) => {
                if let Some(unknown) = map.keys().find(|k| *k != "command") {
                    return ToolOutput::refused_text(format!(
                        "error {CODE_INVALID_ARGUMENTS}: argument `{unknown}`: unknown argument; \
                         `exec` takes only `command`"
                    ));
                }
                match map.get("command") {
                    Some(Value::String(s)) => s,
                    Some(_) => {
                        return ToolOutput::refused_text(format!(
                            "error {CODE_INVALID_ARGUMENTS}: argument `command`: must be a string, \
                             e.g. {{\"command\": \"ls -l\"}}"
                        ));
                    }
                    None => {
                        return ToolOutput::refused_text(format!(
                            "error {CODE_INVALID_ARGUMENTS}: argument `command`: missing; write \
                             {{\"command\": \"ls -l\"}}"
                        ));
                    }
                }
            }
            _ => {
                return ToolOutput::refused_text(format!(
                    "error {CODE_INVALID_ARGUMENTS}: the arguments must be an object, e.g. \
                     {{\"command\": \"ls -l\"}}"
                ));
            }
        };
        let argv = match self.check(command, ctx.kernel.cwd()) {
            Ok(argv) => argv,
            Err(refusal) => return ToolOutput::refused_text(refusal.to_string()),
        };
        let result = ctx
            .kernel
            .run_with(&argv, self.access(), &self.settings, ctx.cancel);
        ToolOutput::ran(argv, result)
    }
}
