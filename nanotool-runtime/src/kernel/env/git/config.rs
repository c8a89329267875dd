//! A git configuration file read as git's `config.c` reads it: its variables, each a name
//! (`section[.subsection].key`) and a value, and the parts of a name.

/// A variable's section, subsection and key.
type VarParts<'a> = (&'a [u8], Option<&'a [u8]>, &'a [u8]);

/// A variable's name and value (`None`: a bare `key`, which means true).
type Var = (Vec<u8>, Option<Vec<u8>>);

/// `section`, the subsection and `key` of a variable as git names it (`section.sub.key`:
/// the section up to the first dot, the key after the last).
pub(super) fn split_var(var: &[u8]) -> Option<VarParts<'_>> {
    let first = var.iter().position(|&c| c == b'.')?;
    let last = var.iter().rposition(|&c| c == b'.')?;
    let section = &var[..first];
    let key = &var[last + 1..];
    let sub = (last > first).then(|| &var[first + 1..last]);
    Some((section, sub, key))
}

/// git's `isspace` (its own table: space, tab, newline, carriage return).
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

/// A configuration file read a character at a time, as git's `get_next_char` does: `\r\n`
/// is `\n`, the end of the file is a last `\n`.
struct Chars<'a> {
    bytes: &'a [u8],
    pos: usize,
    eof: bool,
    line: usize,
}

impl Chars<'_> {
    fn next(&mut self) -> u8 {
        let Some(&c) = self.bytes.get(self.pos) else {
            self.eof = true;
            return b'\n';
        };
        self.pos += 1;
        if c == b'\r' && self.bytes.get(self.pos) == Some(&b'\n') {
            self.pos += 1;
            self.line += 1;
            return b'\n';
        }
        if c == b'\n' {
            self.line += 1;
        }
        c
    }
}

/// The variables of a configuration file, as git's `git_parse_source` reads them: the name
/// (`section[.subsection].key`, section and key lower case) and the value (`None` for a bare
/// `key`, which means true). A line git would refuse is an error naming it.
pub(super) fn parse_config(bytes: &[u8]) -> Result<Vec<Var>, String> {
    if bytes.contains(&0) {
        return Err("contains a NUL byte".into());
    }
    const BOM: &[u8] = b"\xef\xbb\xbf";
    let bytes = match bytes.strip_prefix(BOM) {
        Some(rest) => rest,
        None if bytes.first() == Some(&0xef) => {
            return Err("begins with part of a byte order mark".into());
        }
        None => bytes,
    };
    let mut chars = Chars {
        bytes,
        pos: 0,
        eof: false,
        line: 1,
    };
    let mut out = Vec::new();
    let mut var: Vec<u8> = Vec::new();
    let mut base_len = 0;
    let mut comment = false;
    loop {
        let line = chars.line;
        let bad = || Err(format!("has a line git does not read (line {line})"));
        let c = chars.next();
        if c == b'\n' {
            if chars.eof {
                return Ok(out);
            }
            comment = false;
            continue;
        }
        if comment || is_space(c) {
            continue;
        }
        if c == b'#' || c == b';' {
            comment = true;
            continue;
        }
        if c == b'[' {
            var.clear();
            if section_header(&mut chars, &mut var).is_none() || var.is_empty() {
                return bad();
            }
            var.push(b'.');
            base_len = var.len();
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return bad();
        }
        var.truncate(base_len);
        var.push(c.to_ascii_lowercase());
        let mut c;
        loop {
            c = chars.next();
            if chars.eof || !is_key_char(c) {
                break;
            }
            var.push(c.to_ascii_lowercase());
        }
        while c == b' ' || c == b'\t' {
            c = chars.next();
        }
        let value = if c == b'\n' {
            None
        } else if c == b'=' {
            match value_of(&mut chars) {
                Some(v) => Some(v),
                None => return bad(),
            }
        } else {
            return bad();
        };
        out.push((var.clone(), value));
    }
}

/// `section]`, `section.sub]` or `section "sub"]` after the `[` (git's `get_base_var`).
fn section_header(chars: &mut Chars<'_>, var: &mut Vec<u8>) -> Option<()> {
    loop {
        let c = chars.next();
        if chars.eof {
            return None;
        }
        if c == b']' {
            return Some(());
        }
        if is_space(c) {
            return quoted_subsection(chars, var, c);
        }
        if !is_key_char(c) && c != b'.' {
            return None;
        }
        var.push(c.to_ascii_lowercase());
    }
}

/// ` "sub"]`: the subsection keeps its case, `\x` is `x` (git's `get_extended_base_var`).
fn quoted_subsection(chars: &mut Chars<'_>, var: &mut Vec<u8>, mut c: u8) -> Option<()> {
    loop {
        if c == b'\n' {
            return None;
        }
        c = chars.next();
        if !is_space(c) {
            break;
        }
    }
    if c != b'"' {
        return None;
    }
    var.push(b'.');
    loop {
        let mut c = chars.next();
        if c == b'\n' {
            return None;
        }
        if c == b'"' {
            break;
        }
        if c == b'\\' {
            c = chars.next();
            if c == b'\n' {
                return None;
            }
        }
        var.push(c);
    }
    (chars.next() == b']').then_some(())
}

/// A value after `=` (git's `parse_value`): quotes removed, `\t \b \n \\ \"` unescaped, a
/// backslash at the end of a line continues it, a comment outside quotes dropped, trailing
/// space outside quotes trimmed. `None` where git refuses the value.
fn value_of(chars: &mut Chars<'_>) -> Option<Vec<u8>> {
    let mut value = Vec::new();
    let mut quote = false;
    let mut comment = false;
    let mut trim_len = 0;
    loop {
        let mut c = chars.next();
        if c == b'\n' {
            if quote {
                return None;
            }
            if trim_len > 0 {
                value.truncate(trim_len);
            }
            return Some(value);
        }
        if comment {
            continue;
        }
        if is_space(c) && !quote {
            if trim_len == 0 {
                trim_len = value.len();
            }
            if !value.is_empty() {
                value.push(c);
            }
            continue;
        }
        if !quote && (c == b';' || c == b'#') {
            comment = true;
            continue;
        }
        trim_len = 0;
        if c == b'\\' {
            c = chars.next();
            c = match c {
                b'\n' => continue,
                b't' => b'\t',
                b'b' => 8,
                b'n' => b'\n',
                b'\\' | b'"' => c,
                _ => return None,
            };
            value.push(c);
            continue;
        }
        if c == b'"' {
            quote = !quote;
            continue;
        }
        value.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(text: &str) -> Vec<String> {
        parse_config(text.as_bytes())
            .unwrap()
            .into_iter()
            .map(|(k, v)| {
                format!(
                    "{}={}",
                    String::from_utf8_lossy(&k),
                    v.map(|v| String::from_utf8_lossy(&v).into_owned())
                        .unwrap_or_else(|| "<none>".into())
                )
            })
            .collect()
    }

    #[test]
    fn the_reader_parses_as_git_does() {
        assert_eq!(
            vars("[Core]\n\tBare = false\n[diff \"Ev\\\"il\"] command = x ; c\n"),
            ["core.bare=false", "diff.Ev\"il.command=x"]
        );
        // A comment ends at its line's end, a backslash or not.
        assert_eq!(
            vars("# c \\\n[diff \"e\"]\n\tcommand = a \\\n b\n"),
            ["diff.e.command=a  b"]
        );
        assert_eq!(vars("[remote.Origin]\nurl\n"), ["remote.origin.url=<none>"]);
        assert_eq!(vars("[a]x=\"q ; \" # c\n"), ["a.x=q ; "]);
        assert_eq!(vars("\u{feff}[a]\r\nx = 1\r\n"), ["a.x=1"]);
        for bad in [
            "[diff\"e\"]\n",
            "[a]\nx = \\q\n",
            "[a]\nx = \"open\n",
            "[a \"b\"\n",
            "[a]\n=x\n",
            "[a]\nx\0 = 1\n",
        ] {
            assert!(parse_config(bad.as_bytes()).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn variables_split_into_section_subsection_and_key() {
        assert_eq!(
            split_var(b"diff.a.b.command"),
            Some((&b"diff"[..], Some(&b"a.b"[..]), &b"command"[..]))
        );
        assert_eq!(
            split_var(b"core.bare"),
            Some((&b"core"[..], None, &b"bare"[..]))
        );
        assert_eq!(split_var(b"nodot"), None);
    }
}
