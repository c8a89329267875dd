//! The scanner: reads one command — a template's tokens or a free-text argv — against the
//! code-entry table ([`super::tables::CODE_ENTRY`]) and reports every place where code goes
//! (a [`Hit`]). The checks in the parent module decide what a hit means for each form.

use super::tables::{self, Entry, Operands, Opt};
use super::{is_denied, name_forms};
use crate::template::{Part, Template};
use std::ops::Range;

mod options;

use options::*;

/// Where code goes: the place in a command a scanner hit (and so a refusal or a
/// [`crate::policy::CodeEntrySite`]) is about. Two words, so that a [`crate::PolicyError`]
/// stays small enough to return by value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Site {
    /// The value of this option, as the code-entry table spells it (`-c`, `--eval`, `-exec`).
    ValueOf(&'static str),
    /// Another place in the command: an operand, the command a launcher runs, ...
    At(Place),
}

/// A [`Site`] that is not an option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Place {
    /// A program operand (`python3 <script>`, `sed <script> f`).
    Program,
    /// An operand read as code (`make <target>`, `m4 <file>`).
    Operand,
    /// The operand that chooses the subcommand (`git <sub>`, `deno <x>`).
    Subcommand,
    /// The binary of a command a launcher runs (`timeout 5 <cmd>`, `find . -exec <cmd> +`):
    /// only literal text may stand there.
    Command,
    /// The option itself, chosen by a slot (`python3 -<flags>`, `git --<x>`).
    OptionName,
    /// What follows an option a slot chooses, which may be that option's value.
    OptionValue,
    /// A `+command` (`less +<x>`), or an operand that could begin with `+` (`less <file>`).
    PlusCommand,
}

impl Site {
    /// The site as messages name it: the option as spelled (`-c`), or a label (`program
    /// operand`, `operand`, `subcommand`, `command`, `option name`, `option value`,
    /// `+command`).
    pub fn label(self) -> &'static str {
        match self {
            Site::ValueOf(option) => option,
            Site::At(Place::Program) => "program operand",
            Site::At(Place::Operand) => "operand",
            Site::At(Place::Subcommand) => "subcommand",
            Site::At(Place::Command) => "command",
            Site::At(Place::OptionName) => "option name",
            Site::At(Place::OptionValue) => "option value",
            Site::At(Place::PlusCommand) => "+command",
        }
    }
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// One character of a token, or a slot standing there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Ch(char),
    Slot(usize),
}

/// A token (template) or an argument (argv), as the scanner reads it.
#[derive(Debug, Clone)]
pub(crate) struct Word {
    items: Vec<Item>,
    slots: Vec<(String, Range<usize>)>,
    span: Option<Range<usize>>,
    /// The token as written in the template (for messages), or the argument.
    text: String,
    /// The token's literal text, when it holds no slot (`{{}}` in a template reads `{}`).
    lit: Option<String>,
    /// The token's index in the template or argv.
    index: usize,
}

impl Word {
    pub(crate) fn from_template(template: &Template) -> Vec<Word> {
        let source = template.source();
        template
            .tokens()
            .iter()
            .enumerate()
            .map(|(index, token)| {
                let mut items = Vec::new();
                let mut slots = Vec::new();
                for part in token.parts() {
                    match part {
                        Part::Literal(text) => items.extend(text.chars().map(Item::Ch)),
                        Part::Slot(slot) => {
                            items.push(Item::Slot(slots.len()));
                            slots.push((slot.name().to_owned(), slot.span()));
                        }
                    }
                }
                Word {
                    items,
                    slots,
                    text: source[token.span()].to_owned(),
                    lit: token.as_literal().map(str::to_owned),
                    span: Some(token.span()),
                    index,
                }
            })
            .collect()
    }

    pub(crate) fn from_argv(argv: &[String]) -> Vec<Word> {
        argv.iter()
            .enumerate()
            .map(|(index, arg)| Word {
                items: arg.chars().map(Item::Ch).collect(),
                slots: Vec::new(),
                span: None,
                text: arg.clone(),
                lit: Some(arg.clone()),
                index,
            })
            .collect()
    }

    pub(crate) fn literal(&self) -> Option<&str> {
        self.lit.as_deref()
    }

    /// The literal text before the first slot.
    fn lit_prefix(&self) -> String {
        self.items
            .iter()
            .map_while(|item| match item {
                Item::Ch(c) => Some(*c),
                Item::Slot(_) => None,
            })
            .collect()
    }

    fn slots_in(&self, items: &[Item]) -> Vec<(String, Range<usize>)> {
        items
            .iter()
            .filter_map(|item| match item {
                Item::Slot(i) => Some(self.slots[*i].clone()),
                Item::Ch(_) => None,
            })
            .collect()
    }
}

/// What a hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HitKind {
    /// Code stands here (an option's value, a program operand, an option a slot chooses): a
    /// slot here must be constrained; ExecTool refuses it outright.
    Code,
    /// A launcher's command binary is a slot: only literal text may stand there.
    CommandBinary,
    /// An option that writes files or runs a configured program: ExecTool refuses it.
    Effect,
    /// A launcher would run a denied binary.
    Denied,
    /// Launchers nested deeper than [`MAX_DEPTH`]: the innermost command is not read.
    TooDeep,
    /// A launcher runs this (literal, allowed) command: fine in a template, where the author
    /// fixed it; ExecTool refuses it, since its allowlist vouches only for the first binary.
    Launch,
}

/// A place where code goes, found by the scanner.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    pub kind: HitKind,
    /// The binary whose option or operand this is, as written.
    pub binary: String,
    /// Where it stands: an option's value (the option's canonical name) or another place.
    pub site: Site,
    pub why: &'static str,
    /// The slots standing in the code, in order.
    pub slots: Vec<(String, Range<usize>)>,
    /// The option and its value as written (the denied binary for [`HitKind::Denied`]).
    pub written: String,
    /// The denied binary's span ([`HitKind::Denied`]).
    pub span: Option<Range<usize>>,
    /// ExecTool may let this literal through (`sed -n 5p`).
    pub exec_ok: bool,
    /// A `path` slot is harmless here: the danger lies only in how the value begins (`+cmd`)
    /// or in a `:` before its first `/` (`host:file`), and a path renders `./...` or `.`.
    pub path_ok: bool,
}

#[derive(Default)]
struct Step {
    consumed: usize,
    code: bool,
    ambiguous: bool,
    choice: bool,
}

struct Cx<'e> {
    binary: String,
    entry: &'e Entry,
    depth: usize,
}

/// How deep launchers may nest (`timeout 5 nice -n 1 ...`); a deeper command is refused.
pub(crate) const MAX_DEPTH: usize = 8;

pub(crate) struct Scanner<'a> {
    extra: &'a [String],
    pub hits: Vec<Hit>,
    /// The indices of the words that cannot be read as an option whatever they hold: the
    /// separate value of a literal option the table lists as taking one (`grep -e X`), and
    /// a data operand after a literal `--` of a binary whose entry says `--` ends its
    /// options (`git log -- X`).
    pub not_options: Vec<usize>,
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(extra: &'a [String]) -> Self {
        Scanner {
            extra,
            hits: Vec::new(),
            not_options: Vec::new(),
        }
    }

    /// Scans a whole command whose binary (`words[0]`) was already checked.
    pub(crate) fn command(&mut self, words: &[Word], depth: usize) {
        let Some(binary) = words.first().and_then(Word::literal) else {
            return;
        };
        let Some(entry) = tables::entry_for(&name_forms(binary)) else {
            return;
        };
        if entry.reads_only_dashdash() {
            // Only where the options end matters: every argument after the first literal
            // `--` is an operand.
            if let Some(end) = words[1..].iter().position(|w| w.literal() == Some("--")) {
                self.not_options
                    .extend(words[end + 2..].iter().map(|w| w.index));
            }
            return;
        }
        let cx = Cx {
            binary: binary_label(binary),
            entry,
            depth,
        };
        self.args(
            &cx,
            entry.options,
            &entry.operands,
            entry.permute,
            &words[1..],
        );
    }

    /// A command a launcher runs: its binary must be literal and allowed, then it is scanned.
    fn nested(&mut self, launcher: &str, words: &[Word], depth: usize) {
        let Some(first) = words.first() else {
            return;
        };
        // A hit about the command `launcher` runs: its binary stands in `first`.
        let command_hit = |kind, why, slots, written: &str| Hit {
            kind,
            binary: launcher.to_owned(),
            site: Site::At(Place::Command),
            why,
            slots,
            written: written.to_owned(),
            span: first.span.clone(),
            exec_ok: false,
            path_ok: false,
        };
        match first.literal() {
            None => self.hits.push(command_hit(
                HitKind::CommandBinary,
                "the binary of the command it runs",
                first.slots.clone(),
                &first.text,
            )),
            Some(binary) if is_denied(binary, self.extra) => {
                self.hits
                    .push(command_hit(HitKind::Denied, "", Vec::new(), binary));
            }
            Some(binary) if depth >= MAX_DEPTH => {
                self.hits
                    .push(command_hit(HitKind::TooDeep, "", Vec::new(), binary));
            }
            Some(binary) => {
                self.command(words, depth + 1);
                self.hits.push(command_hit(
                    HitKind::Launch,
                    "the command it runs, outside ExecTool's allowlist",
                    Vec::new(),
                    binary,
                ));
            }
        }
    }

    fn push(
        &mut self,
        cx: &Cx,
        kind: HitKind,
        site: Site,
        why: &'static str,
        slots: Vec<(String, Range<usize>)>,
        words: &[Word],
    ) {
        let written = words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        self.hits.push(Hit {
            kind,
            binary: cx.binary.clone(),
            site,
            why,
            slots,
            written,
            span: None,
            exec_ok: false,
            path_ok: false,
        });
    }

    /// A value that may name another machine: a `:` before any `/` (`host:file`,
    /// `host::module`, `rsync://host/...`). Its site's slots are those before the first
    /// literal `/`; a `path` among them is harmless (it renders `./...` or `.`) unless a
    /// literal `:` follows (`<dir>:x` could be `.:x`, host `.`). A literal `host:x` is a hit
    /// with no slot: the author's choice in a template, refused by ExecTool.
    fn remote(
        &mut self,
        cx: &Cx,
        site: Site,
        why: &'static str,
        value: (&Word, &[Item]),
        shown: &[Word],
    ) {
        let (word, items) = value;
        let mut slots = Vec::new();
        let mut colon = false;
        for item in items {
            match *item {
                Item::Ch('/') => break,
                Item::Ch(':') => {
                    colon = true;
                    break;
                }
                Item::Ch(_) => {}
                Item::Slot(i) => slots.push(word.slots[i].clone()),
            }
        }
        if !colon && slots.is_empty() {
            return;
        }
        self.push(cx, HitKind::Code, site, why, slots, shown);
        if let Some(hit) = self.hits.last_mut() {
            hit.path_ok = !colon;
        }
    }

    fn push_code_operand(&mut self, cx: &Cx, why: &'static str, word: &Word) {
        self.push_program(cx, why, word);
        if let Some(hit) = self.hits.last_mut() {
            hit.site = Site::At(Place::Operand);
        }
    }

    fn push_program(&mut self, cx: &Cx, why: &'static str, word: &Word) {
        let exec_ok = match (word.literal(), cx.entry.exec_program_ok) {
            (Some(text), Some(ok)) => ok(text),
            _ => false,
        };
        self.push(
            cx,
            HitKind::Code,
            Site::At(Place::Program),
            why,
            word.slots.clone(),
            std::slice::from_ref(word),
        );
        if let Some(hit) = self.hits.last_mut() {
            hit.exec_ok = exec_ok;
        }
    }

    fn is_option(&self, cx: &Cx, word: &Word) -> bool {
        let prefix = word.lit_prefix();
        (prefix.starts_with('-') && word.text != "-")
            || (cx.entry.plus_code && prefix.starts_with('+'))
    }

    fn args(
        &mut self,
        cx: &Cx,
        opts: &[&[Opt]],
        operands: &Operands,
        permute: bool,
        words: &[Word],
    ) {
        let mut i = 0;
        let mut ended = false;
        let mut code_given = false;
        let mut ambiguous = false;
        let mut operands_seen = 0;
        let mut pending_program: Vec<usize> = Vec::new();
        let mut program_done = false;
        while i < words.len() {
            let word = &words[i];
            if !ended && cx.entry.dashdash && word.literal() == Some("--") {
                ended = true;
                ambiguous = false;
                i += 1;
                continue;
            }
            let old_bundle = i == 0
                && cx.entry.old_bundle
                && !word.lit_prefix().starts_with('-')
                && word.text != "-";
            if !ended && (old_bundle || self.is_option(cx, word)) {
                let step = if old_bundle {
                    self.old_bundle(cx, opts, words, i)
                } else {
                    self.option(cx, opts, words, i)
                };
                let consumed = step.consumed.max(1);
                if step.choice
                    && takes_code(opts)
                    && let Some(next) = words.get(i + consumed)
                    && !next.slots.is_empty()
                    && !self.is_option(cx, next)
                {
                    self.push(
                        cx,
                        HitKind::Code,
                        Site::At(Place::OptionValue),
                        "the value of an option another slot chooses",
                        next.slots.clone(),
                        std::slice::from_ref(next),
                    );
                }
                code_given |= step.code;
                ambiguous = (step.ambiguous && !cx.entry.complete) || step.choice;
                i += consumed;
                if step.code && cx.entry.stop_after_code {
                    return;
                }
                continue;
            }
            // An operand; `certain` is false when it may be the value of the option before.
            let certain = !std::mem::take(&mut ambiguous);
            if !ended
                && cx.entry.plus_code
                && word.lit_prefix().is_empty()
                && !word.slots.is_empty()
            {
                // The validator keeps a value from beginning with `-` here, not with `+`; a path value
                // begins with `.`, so it is harmless here.
                self.push(
                    cx,
                    HitKind::Code,
                    Site::At(Place::PlusCommand),
                    "an operand that may begin with `+`, which makes it a command the program runs at start",
                    word.slots.clone(),
                    std::slice::from_ref(word),
                );
                if let Some(hit) = self.hits.last_mut() {
                    hit.path_ok = true;
                }
            }
            if let Some(why) = cx.entry.remote_operands {
                self.remote(
                    cx,
                    Site::At(Place::Operand),
                    why,
                    (word, &word.items),
                    std::slice::from_ref(word),
                );
            }
            match *operands {
                Operands::Data => {
                    if ended {
                        self.not_options.push(word.index);
                    }
                }
                Operands::Program(why) => {
                    if !code_given && !program_done {
                        if permute {
                            pending_program.push(i);
                            program_done = certain;
                        } else {
                            self.push_program(cx, why, word);
                            if certain {
                                // What follows is the program's own arguments.
                                return;
                            }
                        }
                    }
                }
                Operands::AllCode(why) => self.push_code_operand(cx, why, word),
                Operands::CodeAfter { skip, why } => {
                    if operands_seen >= skip || !certain {
                        self.push_code_operand(cx, why, word);
                    }
                }
                Operands::Command { skip } => {
                    if !certain {
                        // Maybe the command, maybe a value: judge it as the command, and
                        // go on as if it were a value.
                        self.nested(&cx.binary, &words[i..], cx.depth);
                    } else if operands_seen >= skip {
                        self.nested(&cx.binary, &words[i..], cx.depth);
                        return;
                    }
                }
                Operands::Subcommands {
                    subs,
                    other,
                    why,
                    slot_is_data,
                } => {
                    let rest = &words[i + 1..];
                    let Some(name) = word.literal() else {
                        if slot_is_data {
                            if let Some(sub) = other {
                                self.args(cx, sub.options, &sub.operands, permute, rest);
                            }
                            return;
                        }
                        self.push(
                            cx,
                            HitKind::Code,
                            Site::At(Place::Subcommand),
                            why,
                            word.slots.clone(),
                            std::slice::from_ref(word),
                        );
                        // Whichever subcommand it is, its options are judged.
                        let every: Vec<&[Opt]> = subs
                            .iter()
                            .chain(other)
                            .flat_map(|sub| sub.options.iter().copied())
                            .collect();
                        self.args(cx, &every, &Operands::Data, permute, rest);
                        return;
                    };
                    match subs.iter().find(|sub| sub.names.contains(&name)).or(other) {
                        Some(sub) => self.args(cx, sub.options, &sub.operands, permute, rest),
                        None => self.push_program(cx, why, word),
                    }
                    return;
                }
            }
            operands_seen += 1;
            i += 1;
        }
        if !code_given {
            for idx in pending_program {
                self.push_program(cx, program_why(operands), &words[idx]);
            }
        }
    }
}

/// The binary as shown in messages: its basename as written (`/usr/bin/python3` → `python3`).
fn binary_label(binary: &str) -> String {
    super::binary_basename(binary).to_owned()
}

fn program_why(operands: &Operands) -> &'static str {
    match operands {
        Operands::Program(why) => why,
        _ => "the program",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::tables::{Arity, Role};

    const OPTS: &[Opt] = &[
        Opt {
            name: "--eval",
            arity: Arity::Next,
            role: Role::Code,
            why: "code",
        },
        Opt {
            name: "--env-file",
            arity: Arity::Next,
            role: Role::Load,
            why: "env",
        },
        Opt {
            name: "--encoding",
            arity: Arity::Next,
            role: Role::Plain,
            why: "",
        },
        Opt {
            name: "--title",
            arity: Arity::Next,
            role: Role::Plain,
            why: "",
        },
    ];

    #[test]
    fn abbreviations_lean_to_the_dangerous_option() {
        let find = |name: &str| lookup_word(&[OPTS], name, true).map(|o| o.name);
        assert_eq!(find("--eval"), Some("--eval"));
        assert_eq!(find("--ev"), Some("--eval"));
        // Ambiguous between `--eval`, `--env-file` and `--encoding`: taken as code.
        assert_eq!(find("--e"), Some("--eval"));
        assert_eq!(find("--enc"), Some("--encoding"));
        assert_eq!(find("--ti"), Some("--title"));
        assert_eq!(find("--"), None);
        assert_eq!(find("--x"), None);
        assert_eq!(lookup_word(&[OPTS], "--ev", false).map(|o| o.name), None);
    }

    #[test]
    fn words_keep_slot_positions() {
        let t = Template::parse("x -c<code>p").unwrap();
        let words = Word::from_template(&t);
        assert_eq!(words[1].lit_prefix(), "-c");
        assert_eq!(words[1].slots, [("code".to_string(), 4..10)]);
        assert_eq!(words[1].literal(), None);
        assert_eq!(words[0].literal(), Some("x"));
    }

    #[test]
    fn launchers_nest_only_so_deep() {
        let mut argv: Vec<String> = Vec::new();
        for _ in 0..(MAX_DEPTH + 4) {
            argv.extend(["nice".to_string()]);
        }
        argv.push("rm".into());
        let mut scanner = Scanner::new(&[]);
        scanner.command(&Word::from_argv(&argv), 0);
        assert!(scanner.hits.iter().any(|h| h.kind == HitKind::TooDeep));
        argv.drain(..(MAX_DEPTH + 4 - 3));
        let mut scanner = Scanner::new(&[]);
        scanner.command(&Word::from_argv(&argv), 0);
        assert!(scanner.hits.iter().any(|h| h.kind == HitKind::Denied));
        assert!(scanner.hits.iter().all(|h| h.kind != HitKind::TooDeep));
    }
}
