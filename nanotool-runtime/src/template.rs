//! The template grammar: the one parser that both the `#[command_tool]` macro (at
//! compile time) and the descriptor loader (at load time) call.
//!
//! A template is tokens separated by ASCII spaces; each token becomes exactly one argv
//! element. A token may mix literal text and slot placeholders (`<name>`, or `{name}` in the
//! older style): `sed -n <range>p <path>`, `--max-count=<n>`. `{{` and `}}` write a literal
//! brace, as in Rust's `format!` (`git rev-parse @{{u}}`, `find . -exec wc -l {{}} +`). The
//! first token is the binary and is always literal. Literal text never holds a shell
//! metacharacter, a control character or an invisible (Unicode whitespace or format)
//! character; glob characters are plain text, since no shell ever sees the argv.
//!
//! What does *not* live here: which binaries are allowed (see [`crate::policy`]), what a slot
//! accepts (see [`crate::slot`]), and whether every slot has a spec (see [`crate::spec`]).
//!
//! ```
//! use nanotool_runtime::template::Template;
//!
//! let t = Template::parse("sed -n <range>p <path>").unwrap();
//! assert_eq!(t.binary(), "sed");
//! assert_eq!(t.slot_names().collect::<Vec<_>>(), ["range", "path"]);
//!
//! let t = Template::parse("git rev-parse --abbrev-ref @{{u}}").unwrap();
//! assert_eq!(t.tokens()[3].as_literal(), Some("@{u}"));
//! assert_eq!(t.slot_names().count(), 0);
//!
//! let err = Template::parse("grep -rn <pattern> . ; rm -rf /").unwrap_err();
//! assert_eq!(err.offset(), 21);
//! assert!(err.to_string().contains("`;`"));
//! ```

use std::fmt;
use std::ops::Range;
use unicode_width::UnicodeWidthStr;

mod parse;

use parse::Parser;

/// Characters that a shell would treat specially and that literal template text may never
/// hold (`<` and `>` are placeholder delimiters and are reported as unbalanced instead).
pub const LITERAL_METACHARACTERS: &[char] = &['\'', '"', '`', ';', '|', '&', '$', '\\'];

/// A parsed template: the binary and its argument tokens, with the byte spans they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    source: String,
    tokens: Vec<Token>,
}

/// One whitespace-separated token of a template: exactly one argv element once rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    parts: Vec<Part>,
    span: Range<usize>,
}

/// A piece of a [`Token`]: literal text written by the author, or a slot the model fills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text, fixed by the template (part of the skeleton).
    Literal(String),
    /// A slot placeholder.
    Slot(SlotRef),
}

/// A placeholder inside a token: `<name>` or `{name}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotRef {
    name: String,
    span: Range<usize>,
    braced: bool,
}

impl SlotRef {
    /// The slot's name (`[a-z_][a-z0-9_]*`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The byte range of the whole placeholder, delimiters included, in the template source.
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// Whether the placeholder was written `{name}` (the older style) rather than `<name>`:
    /// an error about a slot nobody described can then say that `{{name}}` writes the braces
    /// as literal text (`git rev-parse @{{u}}`).
    pub fn is_braced(&self) -> bool {
        self.braced
    }
}

impl Token {
    /// The parts of this token, in order.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// The byte range of this token in the template source.
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// The token's text if it holds no slot at all.
    pub fn as_literal(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [Part::Literal(text)] => Some(text),
            _ => None,
        }
    }

    /// The literal text the token starts with, before any slot (`""` when it starts with a
    /// slot). The option-injection rule keys on this: a rendered token may begin with `-`
    /// only if this prefix does.
    pub fn literal_prefix(&self) -> &str {
        match self.parts.first() {
            Some(Part::Literal(text)) => text,
            _ => "",
        }
    }

    /// The slots of this token, in order.
    pub fn slots(&self) -> impl Iterator<Item = &SlotRef> {
        self.parts.iter().filter_map(|part| match part {
            Part::Slot(slot) => Some(slot),
            Part::Literal(_) => None,
        })
    }

    /// Renders the token with `value` giving each slot's rendered text; `None` when a slot
    /// has no value (an absent optional slot drops its whole token).
    pub fn render<'v>(&self, mut value: impl FnMut(&str) -> Option<&'v str>) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Slot(slot) => out.push_str(value(&slot.name)?),
            }
        }
        Some(out)
    }
}

impl Template {
    /// Parses a template, or says exactly which character is wrong and why.
    pub fn parse(source: &str) -> Result<Template, TemplateError> {
        Parser::new(source).run()
    }

    /// The template as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// All tokens, the binary first.
    pub fn tokens(&self) -> &[Token] {
        &self.tokens
    }

    /// The binary as written (a bare name or a path; see [`crate::policy::binary_basename`]).
    pub fn binary(&self) -> &str {
        self.tokens[0]
            .as_literal()
            .expect("the parser guarantees a literal binary")
    }

    /// The argument tokens (every token after the binary).
    pub fn args(&self) -> &[Token] {
        &self.tokens[1..]
    }

    /// Every slot name, in template order (each appears once: repeats are refused).
    pub fn slot_names(&self) -> impl Iterator<Item = &str> {
        self.slots().map(SlotRef::name)
    }

    /// Every slot placeholder, in template order.
    pub fn slots(&self) -> impl Iterator<Item = &SlotRef> {
        self.tokens.iter().flat_map(Token::slots)
    }

    /// Renders the argv: one element per token, tokens whose slots lack a value dropped.
    /// `value` gives a slot's *already validated* rendered text; validation lives in
    /// [`crate::spec::CommandSpec::render`].
    pub fn render<'v>(&self, mut value: impl FnMut(&str) -> Option<&'v str>) -> Vec<String> {
        self.tokens
            .iter()
            .filter_map(|token| token.render(&mut value))
            .collect()
    }
}

/// How a slot stands in a template made by [`Template::substitute`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fill<'a> {
    /// It stays a slot.
    Slot,
    /// It is replaced by this literal text (an enum value: the author's text).
    Text(&'a str),
    /// It is left out, and its whole token with it.
    Drop,
}

impl Template {
    /// The command this template becomes when some slots take fixed text (an enum value) or
    /// are left out: what the policy checks for each such combination, and what the option
    /// reading of [`crate::spec::CommandSpec::render`] uses for one call. The text stands as
    /// literal text, whatever it holds (one argv element: a space or a brace in it is just a
    /// character). The result's [`Template::source`] is for messages only (`<name>` for each
    /// slot, literal text as it reads), and `index` maps each kept token to the index of the
    /// token it came from.
    pub(crate) fn substitute<'v>(&self, fill: &dyn Fn(&str) -> Fill<'v>) -> (Template, Vec<usize>) {
        let mut source = String::new();
        let mut tokens = Vec::new();
        let mut index = Vec::new();
        'tokens: for (at, token) in self.tokens.iter().enumerate() {
            let mut parts: Vec<Part> = Vec::new();
            let mut text = String::new();
            let start = source.len() + usize::from(!source.is_empty());
            for part in &token.parts {
                match part {
                    Part::Literal(lit) => {
                        text.push_str(lit);
                        match parts.last_mut() {
                            Some(Part::Literal(prev)) => prev.push_str(lit),
                            _ => parts.push(Part::Literal(lit.clone())),
                        }
                    }
                    Part::Slot(slot) => match fill(&slot.name) {
                        Fill::Drop => continue 'tokens,
                        Fill::Text(value) => {
                            text.push_str(value);
                            match parts.last_mut() {
                                Some(Part::Literal(prev)) => prev.push_str(value),
                                _ => parts.push(Part::Literal(value.to_owned())),
                            }
                        }
                        Fill::Slot => {
                            let from = start + text.len();
                            text.push('<');
                            text.push_str(&slot.name);
                            text.push('>');
                            parts.push(Part::Slot(SlotRef {
                                name: slot.name.clone(),
                                span: from..start + text.len(),
                                braced: false,
                            }));
                        }
                    },
                }
            }
            parts.retain(|p| !matches!(p, Part::Literal(t) if t.is_empty()));
            if parts.is_empty() {
                continue;
            }
            if !source.is_empty() {
                source.push(' ');
            }
            source.push_str(&text);
            tokens.push(Token {
                parts,
                span: start..source.len(),
            });
            index.push(at);
        }
        (Template { source, tokens }, index)
    }
}

/// What is wrong with a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateErrorKind {
    /// The template has no token at all.
    Empty,
    /// A shell metacharacter in literal text.
    Metacharacter(char),
    /// A control character (newline, tab, NUL, ...) anywhere.
    ControlCharacter(char),
    /// A Unicode whitespace (other than the ASCII space) or format character (zero-width,
    /// bidi override, ...) anywhere: it would make the template read differently than it runs.
    InvisibleCharacter(char),
    /// A `<` or `{` with no matching closer in the same token.
    UnclosedPlaceholder(char),
    /// A `>` or `}` with no opener.
    UnopenedPlaceholder(char),
    /// `<>` or `{}`.
    EmptyPlaceholder,
    /// A placeholder whose name is not `[a-z_][a-z0-9_]*`.
    InvalidSlotName(String),
    /// A placeholder closed with the other style's delimiter (`<name}`).
    MismatchedDelimiter {
        /// The opening delimiter.
        open: char,
        /// The closing delimiter found.
        close: char,
    },
    /// The first token holds a slot: the binary must be fixed.
    SlotAsBinary,
    /// The same slot appears twice.
    RepeatedSlot(String),
}

/// A template parse error: what is wrong, at which byte offset, with a caret line to show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    kind: TemplateErrorKind,
    offset: usize,
    len: usize,
    source: String,
}

impl TemplateError {
    /// What is wrong.
    pub fn kind(&self) -> &TemplateErrorKind {
        &self.kind
    }

    /// The byte offset of the offending character(s) in the template.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The byte range of the offending character(s) in the template.
    pub fn span(&self) -> Range<usize> {
        self.offset..self.offset + self.len
    }

    /// The message alone, without position or caret line.
    pub fn message(&self) -> String {
        match &self.kind {
            TemplateErrorKind::Empty => {
                "the template is empty: write the binary first, e.g. `grep -rn <pattern> <path>`"
                    .into()
            }
            TemplateErrorKind::Metacharacter(c) => format!(
                "`{c}` is a shell metacharacter and may not appear in a template: each token is one \
                 argv element and no shell runs, so quoting, chaining and expansion cannot work; \
                 remove it (a value that needs it belongs in a slot)"
            ),
            TemplateErrorKind::ControlCharacter(c) => format!(
                "control character {} may not appear in a template: separate tokens with plain spaces",
                escape(*c)
            ),
            TemplateErrorKind::InvisibleCharacter(c) => format!(
                "invisible character {} may not appear in a template: it would make the template \
                 read differently than it runs; use plain ASCII spaces between tokens",
                escape(*c)
            ),
            TemplateErrorKind::UnclosedPlaceholder('{') => {
                "`{` opens a placeholder that is never closed in this token: write `{{` for a \
                 literal `{` (as in Rust's `format!`), or `<name>` for a slot"
                    .into()
            }
            TemplateErrorKind::UnopenedPlaceholder('}') => {
                "`}` closes a placeholder that was never opened: write `}}` for a literal `}` \
                 (as in Rust's `format!`), or `<name>` for a slot"
                    .into()
            }
            TemplateErrorKind::UnclosedPlaceholder(c) => format!(
                "`{c}` opens a placeholder that is never closed in this token: write `{}name{}` \
                 for a slot (`<` and `>` are placeholder delimiters and cannot be literal text)",
                c,
                closer(*c)
            ),
            TemplateErrorKind::UnopenedPlaceholder(c) => format!(
                "`{c}` closes a placeholder that was never opened (`<` and `>` are placeholder \
                 delimiters and cannot be literal text): write `{}name{c}` or remove it",
                opener(*c)
            ),
            TemplateErrorKind::EmptyPlaceholder if self.source[self.offset..].starts_with('{') => {
                "empty placeholder: write `{{}}` for a literal `{}` (find's `-exec ... {} +`, \
                 as in Rust's `format!`), or the slot's name inside, e.g. `<path>`"
                    .into()
            }
            TemplateErrorKind::EmptyPlaceholder => {
                "empty placeholder: write the slot's name inside, e.g. `<path>`".into()
            }
            TemplateErrorKind::InvalidSlotName(name) => format!(
                "`{name}` is not a valid slot name: use lowercase ASCII letters, digits and `_`, \
                 not starting with a digit (e.g. `max_count`)"
            ),
            TemplateErrorKind::MismatchedDelimiter { open, close } => format!(
                "placeholder opened with `{open}` but closed with `{close}`: write `{open}name{}`",
                closer(*open)
            ),
            TemplateErrorKind::SlotAsBinary => {
                "the binary (first token) must be literal text, not a slot: the binary is what the \
                 tool is, so the model may never choose it"
                    .into()
            }
            TemplateErrorKind::RepeatedSlot(name) => format!(
                "slot `{name}` appears twice: each slot fills one place; give the second a name of its own"
            ),
        }
    }

    /// Two lines: the template (control and invisible characters escaped) and a caret under
    /// the offending character(s) ([`caret_line`]).
    pub fn caret_line(&self) -> String {
        caret_line(&self.source, self.offset..self.offset + self.len.max(1))
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid template at byte {}: {}\n{}",
            self.offset,
            self.message(),
            self.caret_line()
        )
    }
}

impl std::error::Error for TemplateError {}

fn opener(close: char) -> char {
    if close == '}' { '{' } else { '<' }
}

fn closer(open: char) -> char {
    if open == '{' { '}' } else { '>' }
}

/// Escapes a character as `U+XXXX` (with its usual name where it has a short one).
/// Two lines that point at `span` (a byte range) of a template: the template, indented, and a
/// caret under the span. Control and invisible characters are shown escaped (`U+202E`), and
/// columns count display width (a CJK character takes two), so the caret stands under the
/// character on a terminal. Every form's error uses it: the grammar's, the policy's, a
/// descriptor's and the macro's.
///
/// ```
/// use nanotool_runtime::template::caret_line;
///
/// assert_eq!(caret_line("grep -rn <x;y>", 11..12), "  grep -rn <x;y>\n             ^");
/// assert_eq!(caret_line("echo 日本 <x|y>", 14..15), "  echo 日本 <x|y>\n              ^");
/// ```
pub fn caret_line(source: &str, span: Range<usize>) -> String {
    let end = span.end.max(span.start + 1);
    let mut shown = String::new();
    let mut shown_width = 0;
    let mut caret_col = None;
    let mut caret_width = 0;
    for (i, c) in source.char_indices() {
        let piece = if is_visible(c) {
            c.to_string()
        } else {
            escape(c)
        };
        let width = UnicodeWidthStr::width(piece.as_str());
        if i >= span.start && i < end {
            caret_col.get_or_insert(shown_width);
            caret_width += width;
        }
        shown.push_str(&piece);
        shown_width += width;
    }
    let col = caret_col.unwrap_or(shown_width);
    format!(
        "  {shown}\n  {}{}",
        " ".repeat(col),
        "^".repeat(caret_width.max(1))
    )
}

fn escape(c: char) -> String {
    match c {
        '\n' => "`\\n` (newline)".into(),
        '\t' => "`\\t` (tab)".into(),
        '\r' => "`\\r` (carriage return)".into(),
        '\0' => "`\\0` (NUL)".into(),
        _ => format!("U+{:04X}", c as u32),
    }
}

/// Unicode format characters (category Cf) and other invisibles that must never hide in a
/// template or a value: zero-width spaces and joiners, bidi controls, the BOM, soft hyphen,
/// word joiner, invisible operators, tag characters, and the like.
pub fn is_format_char(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB | 0x0600..=0x0605 | 0x06DD | 0x070F | 0x0890 | 0x0891
        | 0x08E2 | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0000..=0xE0FFF)
}

/// Whether a character is shown as itself (not escaped) in a caret line.
fn is_visible(c: char) -> bool {
    !(c.is_control() || is_format_char(c) || (c.is_whitespace() && c != ' '))
}

/// Whether `name` is a valid slot name: `[a-z_][a-z0-9_]*`.
pub fn is_slot_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z' | b'_'))
        && bytes.all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(src: &str) -> TemplateErrorKind {
        Template::parse(src).unwrap_err().kind
    }

    #[test]
    fn mixed_tokens_keep_their_literal_parts() {
        let t = Template::parse("sed -n <range>p   {path}").unwrap();
        assert_eq!(t.tokens().len(), 4);
        assert_eq!(
            t.tokens()[2].parts(),
            &[
                Part::Slot(SlotRef {
                    name: "range".into(),
                    span: 7..14,
                    braced: false,
                }),
                Part::Literal("p".into())
            ]
        );
        let argv = t.render(|name| Some(if name == "range" { "1,5" } else { "./a" }));
        assert_eq!(argv, ["sed", "-n", "1,5p", "./a"]);
    }

    #[test]
    fn absent_slot_drops_its_whole_token() {
        let t = Template::parse("grep --max-count=<n> -rn <pattern> .").unwrap();
        let argv = t.render(|name| (name == "pattern").then_some("x"));
        assert_eq!(argv, ["grep", "-rn", "x", "."]);
    }

    #[test]
    fn errors_point_at_the_offending_character() {
        let e = Template::parse("grep a|b").unwrap_err();
        assert_eq!(
            (e.offset(), e.kind()),
            (6, &TemplateErrorKind::Metacharacter('|'))
        );
        assert_eq!(e.caret_line(), "  grep a|b\n        ^");
        let e = Template::parse("grep\u{202E} x").unwrap_err();
        assert_eq!(e.offset(), 4);
        assert!(e.caret_line().contains("U+202E"), "{}", e.caret_line());
    }

    #[test]
    fn bad_templates_are_refused() {
        assert_eq!(kind(""), TemplateErrorKind::Empty);
        assert_eq!(kind("   "), TemplateErrorKind::Empty);
        assert_eq!(kind("<bin> x"), TemplateErrorKind::SlotAsBinary);
        assert_eq!(kind("git<x> log"), TemplateErrorKind::SlotAsBinary);
        assert_eq!(
            kind("ls <a> <a>"),
            TemplateErrorKind::RepeatedSlot("a".into())
        );
        assert_eq!(
            kind("ls <a> {a}"),
            TemplateErrorKind::RepeatedSlot("a".into())
        );
        assert_eq!(kind("ls <>"), TemplateErrorKind::EmptyPlaceholder);
        assert_eq!(kind("ls {}"), TemplateErrorKind::EmptyPlaceholder);
        assert_eq!(kind("ls <a"), TemplateErrorKind::UnclosedPlaceholder('<'));
        assert_eq!(
            kind("ls <a b>"),
            TemplateErrorKind::UnclosedPlaceholder('<')
        );
        assert_eq!(kind("ls a>"), TemplateErrorKind::UnopenedPlaceholder('>'));
        assert_eq!(kind("ls }"), TemplateErrorKind::UnopenedPlaceholder('}'));
        assert_eq!(
            kind("ls <a}"),
            TemplateErrorKind::MismatchedDelimiter {
                open: '<',
                close: '}'
            }
        );
        assert_eq!(
            kind("ls <A>"),
            TemplateErrorKind::InvalidSlotName("A".into())
        );
        assert_eq!(
            kind("ls <1a>"),
            TemplateErrorKind::InvalidSlotName("1a".into())
        );
        assert_eq!(
            kind("ls <a<b>"),
            TemplateErrorKind::InvalidSlotName("a<b".into())
        );
        for c in LITERAL_METACHARACTERS {
            assert_eq!(
                kind(&format!("ls a{c}b")),
                TemplateErrorKind::Metacharacter(*c)
            );
        }
        assert_eq!(kind("ls\ta"), TemplateErrorKind::ControlCharacter('\t'));
        assert_eq!(kind("ls <a\n>"), TemplateErrorKind::ControlCharacter('\n'));
        assert_eq!(
            kind("ls\u{a0}a"),
            TemplateErrorKind::InvisibleCharacter('\u{a0}')
        );
        assert_eq!(
            kind("ls a\u{200b}"),
            TemplateErrorKind::InvisibleCharacter('\u{200b}')
        );
    }

    #[test]
    fn doubled_braces_are_literal_braces() {
        let t = Template::parse("find <dir> -exec wc -l {{}} + @{{u}} {{{{ }}}} {{<x>}}").unwrap();
        let lits: Vec<Option<&str>> = t.tokens().iter().map(Token::as_literal).collect();
        assert_eq!(
            lits,
            [
                Some("find"),
                None,
                Some("-exec"),
                Some("wc"),
                Some("-l"),
                Some("{}"),
                Some("+"),
                Some("@{u}"),
                Some("{{"),
                Some("}}"),
                None
            ]
        );
        assert_eq!(t.slot_names().collect::<Vec<_>>(), ["dir", "x"]);
        let argv = t.render(|_| Some("v"));
        assert_eq!(argv[10], "{v}");
        // `{{{x}}}` is a brace, the slot, a brace (as in `format!`).
        let t = Template::parse("echo {{{x}}}").unwrap();
        assert_eq!(t.render(|_| Some("v"))[1], "{v}");
        // A lone brace points at the escape.
        for src in ["git rev-parse @{u", "find . -exec wc -l {} +", "echo a}b"] {
            let e = Template::parse(src).unwrap_err();
            assert!(
                e.message().contains("{{") || e.message().contains("}}"),
                "{src}: {e}"
            );
        }
        assert!(
            !Template::parse("ls <>")
                .unwrap_err()
                .message()
                .contains("{{")
        );
    }

    #[test]
    fn globs_and_paths_are_plain_text() {
        let t = Template::parse("/usr/bin/find . -name *.rs[ch]?").unwrap();
        assert_eq!(t.binary(), "/usr/bin/find");
        assert_eq!(t.tokens()[3].as_literal(), Some("*.rs[ch]?"));
        assert_eq!(t.slot_names().count(), 0);
    }

    #[test]
    fn every_error_message_renders() {
        for src in [
            "",
            "<a>",
            "ls <a> <a>",
            "ls <>",
            "ls <a",
            "ls a>",
            "ls <a}",
            "ls <A>",
            "ls ;",
            "ls\n",
        ] {
            let e = Template::parse(src).unwrap_err();
            let text = e.to_string();
            assert!(text.contains("invalid template at byte"), "{text}");
            assert!(text.contains('^'), "{text}");
        }
    }
}
