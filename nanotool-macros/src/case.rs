//! Case conversion for derived names: `SedPrint` → `sed_print` (tool names), `LongFormat` →
//! `long-format` (enum values).

/// `SedPrint` → `sed_print`, `HTTPGet` → `http_get`, `Grep2` → `grep2`.
pub fn snake_case(ident: &str) -> String {
    separated(ident, '_')
}

/// `LongFormat` → `long-format`.
pub fn kebab_case(ident: &str) -> String {
    separated(ident, '-')
}

fn separated(ident: &str, sep: char) -> String {
    let chars: Vec<char> = ident.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1);
            let boundary = match prev {
                None => false,
                Some('_') => false,
                Some(p) => {
                    p.is_lowercase()
                        || p.is_ascii_digit()
                        || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
                }
            };
            if boundary {
                out.push(sep);
            }
            out.extend(c.to_lowercase());
        } else if c == '_' {
            out.push(sep);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{kebab_case, snake_case};
    use nanotool_runtime::spec::is_tool_name;

    #[test]
    fn cases() {
        assert_eq!(snake_case("SedPrint"), "sed_print");
        assert_eq!(snake_case("Grep"), "grep");
        assert_eq!(snake_case("HTTPGet"), "http_get");
        assert_eq!(snake_case("Log2Json"), "log2_json");
        assert_eq!(kebab_case("LongFormat"), "long-format");
        assert_eq!(kebab_case("One"), "one");
        assert!(is_tool_name("sed_print"));
        assert!(!is_tool_name("sed print"));
        assert!(!is_tool_name(""));
        assert!(!is_tool_name(&"a".repeat(65)));
    }
}
