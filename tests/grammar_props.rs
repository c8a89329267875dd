//! The template grammar through `CommandSpec::new`: a table of good and bad templates, and
//! properties: nothing panics, and an accepted template renders exactly one argv element per
//! token (minus dropped tokens) with every literal part unchanged.

use nanotool_runtime::template::{LITERAL_METACHARACTERS, TemplateErrorKind};
use nanotool_runtime::{CommandSpec, SlotKind, SlotSpec, SpecError, Template};
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::path::PathBuf;

#[derive(Debug)]
enum Expect {
    Ok,
    Template(TemplateErrorKind),
    SlotWithoutSpec(&'static str),
    SpecWithoutSlot(&'static str),
}

fn kind_of(name: &str) -> SlotKind {
    match name {
        "path" | "file" => SlotKind::Path,
        "n" | "count" | "start" | "end" => SlotKind::Integer,
        "mode" => SlotKind::Enum(vec!["-l".into(), "-1".into()]),
        _ => SlotKind::String,
    }
}

fn specs(names: &[&str]) -> Vec<SlotSpec> {
    names
        .iter()
        .map(|n| {
            let spec = SlotSpec::new(*n, kind_of(n), format!("The {n}"));
            if *n == "range" {
                spec.with_pattern(r"^\d+(,\d+)?$")
            } else {
                spec
            }
        })
        .collect()
}

fn check(template: &str, names: &[&str], expect: &Expect) {
    let got = CommandSpec::new("t", "A tool", template, specs(names));
    match (expect, &got) {
        (Expect::Ok, Ok(_)) => {}
        (Expect::Template(kind), Err(SpecError::Template(e))) if e.kind() == kind => {
            assert!(e.span().end <= template.len(), "{template:?}");
        }
        (Expect::SlotWithoutSpec(n), Err(SpecError::SlotWithoutSpec { slot, span, .. }))
            if slot == n =>
        {
            assert_eq!(
                &template[span.clone()].len(),
                &(n.len() + 2),
                "{template:?}"
            );
        }
        (Expect::SpecWithoutSlot(n), Err(SpecError::SpecWithoutSlot { slot })) if slot == n => {}
        _ => panic!("{template:?}: expected {expect:?}, got {got:?}"),
    }
}

#[test]
fn plain_tools_just_work() {
    let good: &[(&str, &[&str])] = &[
        ("wc -l <file>", &["file"]),
        ("git log -n <count>", &["count"]),
        ("python3 -m json.tool <file>", &["file"]),
        ("sed -n <start>,<end>p <file>", &["start", "end", "file"]),
        ("sed -n <range>p <path>", &["range", "path"]),
        ("grep -rn <pattern> <path>", &["pattern", "path"]),
        (
            "grep --max-count=<n> -rn <pattern> <path>",
            &["n", "pattern", "path"],
        ),
        ("find <path> -name <pattern>", &["path", "pattern"]),
        ("ls <mode> {path}", &["mode", "path"]),
        ("/usr/bin/find . -name *.rs[ch]?", &[]),
        ("tool a<x>b <y>:<z>", &["x", "y", "z"]),
        ("   ls    -1   ", &[]),
    ];
    for (template, names) in good {
        check(template, names, &Expect::Ok);
    }
}

#[test]
fn bad_templates_are_refused_with_the_right_error() {
    use TemplateErrorKind as K;
    let mut bad: Vec<(String, Vec<&str>, Expect)> = Vec::new();
    for c in LITERAL_METACHARACTERS {
        bad.push((
            format!("ls a{c}b"),
            vec![],
            Expect::Template(K::Metacharacter(*c)),
        ));
        bad.push((
            format!("ls <x>{c}"),
            vec!["x"],
            Expect::Template(K::Metacharacter(*c)),
        ));
    }
    let more: Vec<(&str, Vec<&str>, Expect)> = vec![
        ("", vec![], Expect::Template(K::Empty)),
        (
            "ls <",
            vec![],
            Expect::Template(K::UnclosedPlaceholder('<')),
        ),
        (
            "ls {",
            vec![],
            Expect::Template(K::UnclosedPlaceholder('{')),
        ),
        (
            "ls >",
            vec![],
            Expect::Template(K::UnopenedPlaceholder('>')),
        ),
        (
            "ls }",
            vec![],
            Expect::Template(K::UnopenedPlaceholder('}')),
        ),
        (
            "ls <a",
            vec!["a"],
            Expect::Template(K::UnclosedPlaceholder('<')),
        ),
        (
            "ls a>",
            vec![],
            Expect::Template(K::UnopenedPlaceholder('>')),
        ),
        (
            "ls <a b>",
            vec!["a"],
            Expect::Template(K::UnclosedPlaceholder('<')),
        ),
        ("ls <>", vec![], Expect::Template(K::EmptyPlaceholder)),
        ("ls {}", vec![], Expect::Template(K::EmptyPlaceholder)),
        (
            "ls <a}",
            vec!["a"],
            Expect::Template(K::MismatchedDelimiter {
                open: '<',
                close: '}',
            }),
        ),
        (
            "ls <A>",
            vec![],
            Expect::Template(K::InvalidSlotName("A".into())),
        ),
        ("<bin> x", vec!["bin"], Expect::Template(K::SlotAsBinary)),
        ("git<x> log", vec!["x"], Expect::Template(K::SlotAsBinary)),
        (
            "ls <a> <a>",
            vec!["a"],
            Expect::Template(K::RepeatedSlot("a".into())),
        ),
        (
            "ls <a> {a}",
            vec!["a"],
            Expect::Template(K::RepeatedSlot("a".into())),
        ),
        (
            "ls\t<a>",
            vec!["a"],
            Expect::Template(K::ControlCharacter('\t')),
        ),
        (
            "ls <a>\n",
            vec!["a"],
            Expect::Template(K::ControlCharacter('\n')),
        ),
        (
            "ls\u{a0}<a>",
            vec!["a"],
            Expect::Template(K::InvisibleCharacter('\u{a0}')),
        ),
        (
            "ls <a>\u{202e}",
            vec!["a"],
            Expect::Template(K::InvisibleCharacter('\u{202e}')),
        ),
        ("ls <a>", vec![], Expect::SlotWithoutSpec("a")),
        (
            "grep <pattern> <path>",
            vec!["pattern"],
            Expect::SlotWithoutSpec("path"),
        ),
        ("ls", vec!["a"], Expect::SpecWithoutSlot("a")),
        ("ls <a>", vec!["a", "b"], Expect::SpecWithoutSlot("b")),
    ];
    bad.extend(more.into_iter().map(|(t, n, e)| (t.to_owned(), n, e)));
    for (template, names, expect) in &bad {
        check(template, names, expect);
    }
}

// ---------------------------------------------------------------------------------------
// Properties

/// One part of a generated token.
#[derive(Debug, Clone)]
enum GenPart {
    Literal(String),
    /// A literal brace, written `{{` or `}}` in the template.
    Brace(char),
    /// A slot: `braces` picks `{name}` over `<name>`; `value` is `None` when left out.
    Slot {
        path: bool,
        braces: bool,
        value: Option<String>,
    },
}

fn gen_part() -> impl Strategy<Value = GenPart> {
    prop_oneof![
        "[a-z0-9=.,:/_+*?-]{1,6}".prop_map(GenPart::Literal),
        prop::sample::select(vec!['{', '}']).prop_map(GenPart::Brace),
        (
            any::<bool>(),
            // Any printable text that does not begin with `-`: spaces, quotes and `;|&$<>`
            // included, since no shell ever sees a value.
            prop::option::weighted(
                0.8,
                "([a-zA-Z0-9_.,:=+/* ;|&$'\"<>{}\t][a-zA-Z0-9_.,:=+/* ;|&$'\"<>{}\t\n-]{0,7})?"
            )
        )
            .prop_map(|(braces, value)| GenPart::Slot {
                path: false,
                braces,
                value
            }),
    ]
}

fn gen_path_slot() -> impl Strategy<Value = GenPart> {
    (
        any::<bool>(),
        prop::option::weighted(0.8, "[a-z]{1,5}(/[a-z][a-z.]{0,4}){0,2}"),
    )
        .prop_map(|(braces, value)| GenPart::Slot {
            path: true,
            braces,
            value,
        })
}

/// A token: literal text and string slots mixed, or a path slot alone or as the attached
/// value of an option (a path glued to other text is confined as a whole, so a generated
/// `.<path>` would rightly be refused as `../x`).
fn gen_token() -> impl Strategy<Value = Vec<GenPart>> {
    prop_oneof![
        3 => prop::collection::vec(gen_part(), 1..4),
        1 => gen_path_slot().prop_map(|p| vec![p]),
        1 => ("--[a-z]{1,5}=", gen_path_slot())
            .prop_map(|(option, p)| vec![GenPart::Literal(option), p]),
    ]
}

fn gen_template() -> impl Strategy<Value = (String, Vec<Vec<GenPart>>, Vec<usize>)> {
    (
        prop::sample::select(vec!["ls", "wc", "cat", "head", "/usr/bin/stat"]),
        prop::collection::vec(gen_token(), 0..6),
        prop::collection::vec(1usize..4, 7),
    )
        .prop_map(|(binary, tokens, gaps)| (binary.to_owned(), tokens, gaps))
}

fn root() -> PathBuf {
    std::env::temp_dir().canonicalize().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn parsing_never_panics(source in "[a-z<>{} ;|&$'\"`\\\\\t\n\u{202E}\u{a0}_-]{0,30}") {
        match Template::parse(&source) {
            Ok(t) => {
                let names: Vec<String> = t.slot_names().map(str::to_owned).collect();
                let slots = names
                    .iter()
                    .map(|n| SlotSpec::new(n.clone(), SlotKind::String, "x").optional())
                    .collect();
                if let Ok(spec) = CommandSpec::new("t", "A tool", &source, slots) {
                    let args: Map<String, Value> =
                        names.iter().map(|n| (n.clone(), json!("v"))).collect();
                    let argv = spec.render(&Value::Object(args), &root()).unwrap();
                    prop_assert_eq!(argv.len(), t.tokens().len());
                }
            }
            Err(e) => {
                prop_assert!(e.span().end <= source.len());
                prop_assert!(e.to_string().contains('^'));
            }
        }
    }

    #[test]
    fn any_string_never_panics(source in any::<String>(), value in any::<String>()) {
        let _ = Template::parse(&source);
        let spec = CommandSpec::new(
            "t",
            "A tool",
            "grep -rn <pattern> <path>",
            vec![
                SlotSpec::new("pattern", SlotKind::String, "p"),
                SlotSpec::new("path", SlotKind::Path, "p"),
            ],
        )
        .unwrap();
        let _ = spec.render(&json!({"pattern": value, "path": value}), &root());
    }

    #[test]
    fn accepted_templates_render_one_element_per_token((binary, tokens, gaps) in gen_template()) {
        // Build the source and the slot specs, numbering the slots.
        let mut source = binary.clone();
        let mut specs = Vec::new();
        let mut args = Map::new();
        let mut expected = vec![binary];
        let mut n = 0;
        for (i, token) in tokens.iter().enumerate() {
            source.push_str(&" ".repeat(gaps[i]));
            let mut text = String::new();
            let mut dropped = false;
            for part in token {
                match part {
                    GenPart::Literal(lit) => {
                        source.push_str(lit);
                        text.push_str(lit);
                    }
                    GenPart::Brace(c) => {
                        source.push(*c);
                        source.push(*c);
                        text.push(*c);
                    }
                    GenPart::Slot { path, braces, value } => {
                        let name = format!("s{n}");
                        n += 1;
                        if *braces {
                            source.push_str(&format!("{{{name}}}"));
                        } else {
                            source.push_str(&format!("<{name}>"));
                        }
                        let kind = if *path { SlotKind::Path } else { SlotKind::String };
                        specs.push(SlotSpec::new(name.clone(), kind, "A slot").optional());
                        match value {
                            Some(v) => {
                                args.insert(name, json!(v));
                                if *path {
                                    text.push_str("./");
                                }
                                text.push_str(v);
                            }
                            None => dropped = true,
                        }
                    }
                }
            }
            if !dropped {
                expected.push(text);
            }
        }
        let template = Template::parse(&source).unwrap();
        prop_assert_eq!(template.tokens().len(), tokens.len() + 1);
        let spec = CommandSpec::new("t", "A tool", &source, specs)
            .map_err(|e| TestCaseError::fail(format!("{source:?}: {e}")))?;
        let argv = spec
            .render(&Value::Object(args), &root())
            .map_err(|e| TestCaseError::fail(format!("{source:?}: {e}")))?;
        let dropped = tokens
            .iter()
            .filter(|t| t.iter().any(|p| matches!(p, GenPart::Slot { value: None, .. })))
            .count();
        prop_assert_eq!(argv.len(), template.tokens().len() - dropped);
        prop_assert_eq!(argv.len(), expected.len());
        prop_assert_eq!(argv.as_slice(), expected.as_slice());
    }

    #[test]
    fn accepted_argv_never_carries_an_injected_option(
        (shape, values) in (
            prop::collection::vec((0u8..4, any::<bool>()), 1..5),
            prop::collection::vec("[-a-z./ \u{202E}\u{a0};]{0,6}", 5),
        ),
    ) {
        // Tokens made of slots only (kinds: 0 string, 1 path, 2 integer, 3 string again), some
        // of two slots glued together; values from a nasty alphabet.
        let mut source = "ls".to_owned();
        let mut specs = Vec::new();
        let mut args = Map::new();
        let mut kinds = Vec::new();
        for (i, (kind, glued)) in shape.iter().enumerate() {
            let name = format!("s{i}");
            source.push_str(if *glued && i > 0 { "" } else { " " });
            source.push_str(&format!("<{name}>"));
            let (k, v) = match kind {
                1 => (SlotKind::Path, json!(values[i])),
                2 => (SlotKind::Integer, json!(values[i].len() as i64 - 3)),
                _ => (SlotKind::String, json!(values[i])),
            };
            kinds.push(k.clone());
            specs.push(SlotSpec::new(name.clone(), k, "A slot"));
            args.insert(name, v);
        }
        let spec = CommandSpec::new("t", "A tool", &source, specs).unwrap();
        let template = Template::parse(&source).unwrap();
        if let Ok(argv) = spec.render(&Value::Object(args), &root()) {
            prop_assert_eq!(argv.len(), template.tokens().len());
            for (element, token) in argv[1..].iter().zip(template.args()) {
                prop_assert!(!element.starts_with('-'), "{:?} -> {:?}", source, argv);
                // Spaces and `;` are inert in one argv element; other whitespace and
                // invisible characters never get through.
                prop_assert!(
                    !element.chars().any(|c| (c.is_whitespace() && c != ' ') || c == '\u{202E}'),
                    "{:?}", argv
                );
                let first = token.slots().next().unwrap();
                let index: usize = first.name()[1..].parse().unwrap();
                if kinds[index] == SlotKind::Path && token.slots().count() == 1 {
                    prop_assert!(element == "." || element.starts_with("./"), "{:?}", element);
                    prop_assert!(!element.split('/').any(|c| c == ".."), "{:?}", element);
                }
            }
        }
    }
}
