//! The parser: control and invisible characters are refused first, then the source is split
//! on ASCII spaces into tokens and each token into literal text and `<slot>` / `{slot}`
//! placeholders, refusing shell metacharacters and malformed placeholders with the byte
//! offset at fault.

use super::{
    LITERAL_METACHARACTERS, Part, SlotRef, Template, TemplateError, TemplateErrorKind, Token,
    closer, is_format_char, is_slot_name,
};

pub(super) struct Parser<'a> {
    source: &'a str,
}

impl<'a> Parser<'a> {
    pub(super) fn new(source: &'a str) -> Self {
        Parser { source }
    }

    fn error(&self, kind: TemplateErrorKind, offset: usize, len: usize) -> TemplateError {
        TemplateError {
            kind,
            offset,
            len,
            source: self.source.to_owned(),
        }
    }

    pub(super) fn run(self) -> Result<Template, TemplateError> {
        // Characters that are wrong wherever they stand come first, so that a newline inside
        // what looks like a placeholder is reported as the newline it is.
        for (i, c) in self.source.char_indices() {
            if c.is_control() {
                return Err(self.error(TemplateErrorKind::ControlCharacter(c), i, c.len_utf8()));
            }
            if c != ' ' && (c.is_whitespace() || is_format_char(c)) {
                return Err(self.error(TemplateErrorKind::InvisibleCharacter(c), i, c.len_utf8()));
            }
        }

        let mut tokens = Vec::new();
        let bytes = self.source.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b' ' {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && bytes[i] != b' ' {
                i += 1;
            }
            tokens.push(self.token(start, i)?);
        }

        let Some(first) = tokens.first() else {
            return Err(self.error(TemplateErrorKind::Empty, 0, 0));
        };
        if let Some(slot) = first.slots().next() {
            return Err(self.error(
                TemplateErrorKind::SlotAsBinary,
                slot.span.start,
                slot.span.len(),
            ));
        }

        let mut seen: Vec<&str> = Vec::new();
        for slot in tokens.iter().flat_map(Token::slots) {
            if seen.contains(&slot.name.as_str()) {
                return Err(self.error(
                    TemplateErrorKind::RepeatedSlot(slot.name.clone()),
                    slot.span.start,
                    slot.span.len(),
                ));
            }
            seen.push(&slot.name);
        }

        Ok(Template {
            source: self.source.to_owned(),
            tokens,
        })
    }

    /// Parses the token `source[start..end]` (which holds no space).
    fn token(&self, start: usize, end: usize) -> Result<Token, TemplateError> {
        let text = &self.source[start..end];
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((rel, c)) = chars.next() {
            let at = start + rel;
            match c {
                // `{{` and `}}` write a literal brace, as in Rust's `format!`.
                '{' | '}' if chars.peek().is_some_and(|&(_, next)| next == c) => {
                    chars.next();
                    literal.push(c);
                }
                '<' | '{' => {
                    let close = closer(c);
                    let mut name_end = None;
                    for (r, d) in chars.by_ref() {
                        if d == '>' || d == '}' {
                            if d != close {
                                return Err(self.error(
                                    TemplateErrorKind::MismatchedDelimiter { open: c, close: d },
                                    at,
                                    start + r + 1 - at,
                                ));
                            }
                            name_end = Some(start + r);
                            break;
                        }
                    }
                    let Some(name_end) = name_end else {
                        return Err(self.error(TemplateErrorKind::UnclosedPlaceholder(c), at, 1));
                    };
                    let name = &self.source[at + 1..name_end];
                    let span = at..name_end + 1;
                    if name.is_empty() {
                        return Err(self.error(
                            TemplateErrorKind::EmptyPlaceholder,
                            at,
                            span.len(),
                        ));
                    }
                    if !is_slot_name(name) {
                        return Err(self.error(
                            TemplateErrorKind::InvalidSlotName(name.to_owned()),
                            at,
                            span.len(),
                        ));
                    }
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    parts.push(Part::Slot(SlotRef {
                        name: name.to_owned(),
                        span,
                        braced: c == '{',
                    }));
                }
                '>' | '}' => {
                    return Err(self.error(TemplateErrorKind::UnopenedPlaceholder(c), at, 1));
                }
                c if LITERAL_METACHARACTERS.contains(&c) => {
                    return Err(self.error(TemplateErrorKind::Metacharacter(c), at, 1));
                }
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(Token {
            parts,
            span: start..end,
        })
    }
}
