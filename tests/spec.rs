//! `CommandSpec`: the JSON Schema it publishes, and every way an author can get a spec wrong.

use nanotool_runtime::template::TemplateErrorKind;
use nanotool_runtime::{CommandSpec, PolicyError, SlotKind, SlotSpec, SpecError};
use serde_json::json;

fn s(name: &str, kind: SlotKind) -> SlotSpec {
    SlotSpec::new(name, kind, format!("The {name}"))
}

#[allow(clippy::result_large_err)] // one spec per test
fn build(template: &str, slots: Vec<SlotSpec>) -> Result<CommandSpec, SpecError> {
    CommandSpec::new("t", "A tool", template, slots)
}

fn err(template: &str, slots: Vec<SlotSpec>) -> SpecError {
    match build(template, slots) {
        Ok(_) => panic!("`{template}` was accepted"),
        Err(e) => {
            assert_eq!(e.code(), 613);
            e
        }
    }
}

// ---------------------------------------------------------------------------------------
// JSON Schema

#[test]
fn schema_of_the_search_descriptor() {
    let spec = CommandSpec::new(
        "search_text",
        "Search text in workspace files",
        "grep -rn <pattern> <path>",
        vec![
            SlotSpec::new("pattern", SlotKind::String, "Text pattern to search"),
            SlotSpec::new("path", SlotKind::Path, "Directory or file to search")
                .with_default(json!(".")),
        ],
    )
    .unwrap();
    assert_eq!(
        spec.json_schema(),
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Text pattern to search"},
                "path": {
                    "type": "string",
                    "description": "Directory or file to search",
                    "default": "."
                }
            },
            "required": ["pattern"],
            "additionalProperties": false
        })
    );
}

#[test]
fn schema_with_every_constraint() {
    let spec = CommandSpec::new(
        "every",
        "Every kind of slot",
        "tool --count=<count> <ratio> <mode> <range>p <path>",
        vec![
            s("count", SlotKind::Integer)
                .with_minimum(1.0)
                .with_maximum(100.0)
                .optional(),
            s("ratio", SlotKind::Number)
                .with_minimum(0.5)
                .with_default(json!(1.5)),
            s("mode", SlotKind::Enum(vec!["-l".into(), "-1".into()])),
            s("range", SlotKind::String).with_pattern(r"^\d+(,\d+)?$"),
            s("path", SlotKind::Path),
        ],
    )
    .unwrap();
    assert_eq!(
        spec.json_schema(),
        json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "description": "The count", "minimum": 1, "maximum": 100},
                "ratio": {"type": "number", "description": "The ratio", "minimum": 0.5, "default": 1.5},
                "mode": {"type": "string", "description": "The mode", "enum": ["-l", "-1"]},
                "range": {"type": "string", "description": "The range", "pattern": r"^\d+(,\d+)?$"},
                "path": {"type": "string", "description": "The path"}
            },
            "required": ["mode", "range", "path"],
            "additionalProperties": false
        })
    );
}

#[test]
fn schema_publishes_unanchored_patterns_anchored() {
    // JSON Schema patterns search; the runtime matches the whole value. The schema says what
    // the runtime does.
    let spec = build(
        "sed -n <range>p <path>",
        vec![
            s("range", SlotKind::String).with_pattern(r"\d+|\d+,\d+"),
            s("path", SlotKind::Path),
        ],
    )
    .unwrap();
    assert_eq!(
        spec.json_schema()["properties"]["range"]["pattern"],
        json!(r"^(?:\d+|\d+,\d+)$")
    );
}

#[test]
fn schema_of_a_tool_without_slots() {
    let spec = build("pwd", vec![]).unwrap();
    assert_eq!(
        spec.json_schema(),
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

#[test]
fn schema_never_holds_provider_breaking_keys() {
    let spec = build(
        "tool <a> <b>",
        vec![
            s("a", SlotKind::String).optional(),
            s("b", SlotKind::Path).optional(),
        ],
    )
    .unwrap();
    let schema = spec.json_schema();
    let text = schema.to_string();
    for key in ["$schema", "title", "\"type\":["] {
        assert!(!text.contains(key), "{text}");
    }
    // No slot is required: `required` is there, empty.
    assert_eq!(schema["required"], json!([]), "{schema}");
}

// ---------------------------------------------------------------------------------------
// SpecError, by variant

#[test]
fn a_bad_template_is_a_template_error_with_its_span() {
    let e = err(
        "grep -rn <pattern> . ; rm -rf /",
        vec![s("pattern", SlotKind::String)],
    );
    let SpecError::Template(t) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(t.kind(), &TemplateErrorKind::Metacharacter(';'));
    assert_eq!(e.span(), Some(21..22));
    assert!(e.to_string().contains("invalid template at byte 21"), "{e}");
}

#[test]
fn a_denied_binary_is_a_policy_error() {
    let e = err("rm -rf <path>", vec![s("path", SlotKind::Path)]);
    assert!(
        matches!(&e, SpecError::Policy(PolicyError::DeniedBinary { binary, .. }) if binary == "rm"),
        "{e:?}"
    );
    let e = err("/bin/rm <path>", vec![s("path", SlotKind::Path)]);
    assert!(matches!(&e, SpecError::Policy(_)), "{e:?}");
}

#[test]
fn the_host_deny_list_applies_through_check_denied() {
    let spec = build("git log -n <n>", vec![s("n", SlotKind::Integer)]).unwrap();
    assert!(spec.check_denied(&[]).is_ok());
    assert!(spec.check_denied(&["cat".to_owned()]).is_ok());
    let e = spec.check_denied(&["git".to_owned()]).unwrap_err();
    assert!(matches!(e, SpecError::Policy(_)), "{e:?}");
}

#[test]
fn tool_names_follow_the_provider_rule() {
    for name in ["", "has space", "dot.ted", "ünïcode", &"x".repeat(65)] {
        let e = CommandSpec::new(name, "A tool", "pwd", vec![]).unwrap_err();
        assert!(
            matches!(&e, SpecError::InvalidName { name: n } if n == name),
            "{e:?}"
        );
        assert_eq!(e.span(), None);
    }
    for name in ["a", "search_text", "Search-Text-2", &"x".repeat(64)] {
        assert!(
            CommandSpec::new(name, "A tool", "pwd", vec![]).is_ok(),
            "{name}"
        );
    }
}

#[test]
fn descriptions_may_not_be_empty() {
    let e = CommandSpec::new("t", "  ", "pwd", vec![]).unwrap_err();
    assert!(matches!(e, SpecError::EmptyDescription { .. }), "{e:?}");
    let e = err("ls <path>", vec![SlotSpec::new("path", SlotKind::Path, "")]);
    assert!(
        matches!(&e, SpecError::EmptySlotDescription { slot, .. } if slot == "path"),
        "{e:?}"
    );
    assert_eq!(e.span(), Some(3..9));
}

#[test]
fn slots_and_specs_must_match_one_to_one() {
    let e = err(
        "grep <pattern> <path>",
        vec![s("pattern", SlotKind::String)],
    );
    assert!(
        matches!(&e, SpecError::SlotWithoutSpec { slot, span, braced: false } if slot == "path" && *span == (15..21)),
        "{e:?}"
    );
    let e = err(
        "grep <pattern>",
        vec![s("pattern", SlotKind::String), s("path", SlotKind::Path)],
    );
    assert!(
        matches!(&e, SpecError::SpecWithoutSlot { slot } if slot == "path"),
        "{e:?}"
    );
    assert_eq!(e.span(), None);
    let e = err(
        "grep <pattern>",
        vec![s("pattern", SlotKind::String), s("pattern", SlotKind::Path)],
    );
    assert!(
        matches!(&e, SpecError::DuplicateSpec { slot, .. } if slot == "pattern"),
        "{e:?}"
    );
    assert_eq!(e.span(), Some(5..14));
}

#[test]
fn enums_must_be_non_empty_skeleton() {
    let e = err("ls <mode>", vec![s("mode", SlotKind::Enum(vec![]))]);
    assert!(
        matches!(&e, SpecError::EmptyEnum { slot, .. } if slot == "mode"),
        "{e:?}"
    );
    for bad in [
        "x\u{202E}",
        "",
        "\r",
        "\0",
        "a\u{a0}b",
        "\u{1b}[2J",
        "a\u{200b}",
    ] {
        let e = err(
            "ls <mode>",
            vec![s("mode", SlotKind::Enum(vec!["-1".into(), bad.into()]))],
        );
        assert!(
            matches!(&e, SpecError::EnumValue { slot, value, .. } if slot == "mode" && value == bad),
            "{bad:?}: {e:?}"
        );
    }
    // Author text, one argv element each: options, a delimiter, a canned query.
    for good in [
        "-l",
        "--all",
        ";",
        " ",
        "a b",
        "$(id)",
        "SELECT name FROM t WHERE x = 'y';",
        "\t",
    ] {
        assert!(
            build(
                "ls <mode>",
                vec![s("mode", SlotKind::Enum(vec!["-1".into(), good.into()]))]
            )
            .is_ok(),
            "{good:?}"
        );
    }
}

#[test]
fn patterns_must_be_valid_regexes_on_string_slots() {
    let e = err(
        "sed -n <range>p",
        vec![s("range", SlotKind::String).with_pattern(r"^(\d+$")],
    );
    assert!(
        matches!(&e, SpecError::InvalidPattern { slot, pattern, .. } if slot == "range" && pattern == r"^(\d+$"),
        "{e:?}"
    );
    assert_eq!(e.span(), Some(7..14));
    // Balanced only once wrapped: still invalid as written.
    let e = err(
        "sed -n <range>p",
        vec![s("range", SlotKind::String).with_pattern(r"a)|(b")],
    );
    assert!(matches!(e, SpecError::InvalidPattern { .. }), "{e:?}");
    for kind in [
        SlotKind::Integer,
        SlotKind::Path,
        SlotKind::Enum(vec!["a".into()]),
    ] {
        let e = err("tool <x>", vec![s("x", kind).with_pattern(r"\d+")]);
        assert!(matches!(e, SpecError::PatternNotForKind { .. }), "{e:?}");
    }
}

#[test]
fn ranges_must_be_numeric_finite_and_ordered() {
    let e = err("tool <x>", vec![s("x", SlotKind::String).with_minimum(1.0)]);
    assert!(matches!(e, SpecError::RangeNotForKind { .. }), "{e:?}");
    let e = err(
        "tool <x>",
        vec![
            s("x", SlotKind::Integer)
                .with_minimum(5.0)
                .with_maximum(1.0),
        ],
    );
    assert!(
        matches!(&e, SpecError::InvalidRange { reason, .. } if reason.contains("above the maximum")),
        "{e:?}"
    );
    let e = err(
        "tool <x>",
        vec![
            s("x", SlotKind::Integer)
                .with_minimum(1.2)
                .with_maximum(1.8),
        ],
    );
    assert!(matches!(e, SpecError::InvalidRange { .. }), "{e:?}");
    let e = err(
        "tool <x>",
        vec![s("x", SlotKind::Number).with_maximum(f64::NAN)],
    );
    assert!(matches!(e, SpecError::InvalidRange { .. }), "{e:?}");
    assert!(
        build(
            "tool <x>",
            vec![s("x", SlotKind::Number).with_minimum(1.2).with_maximum(1.8)]
        )
        .is_ok()
    );
}

#[test]
fn defaults_must_validate() {
    let cases = [
        (
            s("x", SlotKind::Integer).with_default(json!("5")),
            "expected an integer",
        ),
        (
            s("x", SlotKind::Integer).with_default(json!(2.5)),
            "expected an integer",
        ),
        (
            s("x", SlotKind::Integer)
                .with_maximum(3.0)
                .with_default(json!(5)),
            "above the maximum",
        ),
        (
            s("x", SlotKind::Enum(vec!["a".into()])).with_default(json!("b")),
            "not one of the allowed values",
        ),
        (
            s("x", SlotKind::String)
                .with_pattern(r"\d+")
                .with_default(json!("1;e")),
            "does not match the pattern",
        ),
        (
            s("x", SlotKind::String).with_default(json!("a\rb")),
            "a carriage return",
        ),
        (
            s("x", SlotKind::String).with_default(json!("a\u{2028}b")),
            "U+2028",
        ),
        (
            s("x", SlotKind::String).with_default(json!(null)),
            "`null` means no default",
        ),
        (
            s("x", SlotKind::Path).with_default(json!("/etc")),
            "is absolute",
        ),
        (
            s("x", SlotKind::Path).with_default(json!("../up")),
            "leaves the working directory",
        ),
        (
            s("x", SlotKind::Path).with_default(json!("-x")),
            "begins with `-`",
        ),
        (
            s("x", SlotKind::Path).with_default(json!("")),
            "the path is empty",
        ),
        (
            s("x", SlotKind::String).with_default(json!("-rf")),
            "option injection",
        ),
        (
            s("x", SlotKind::Integer).with_default(json!(-1)),
            "option injection",
        ),
    ];
    // A default holds what a value may hold: spaces, quotes and `;` are one argv element.
    for default in ["a b", "\"quoted\" text", "a;b|c", "line one\nline two"] {
        assert!(
            build(
                "tool <x>",
                vec![s("x", SlotKind::String).with_default(json!(default))]
            )
            .is_ok()
        );
    }
    // A negative default is fine where the author set a negative minimum, or after an option
    // that takes it as its value.
    assert!(
        build(
            "tool <x>",
            vec![
                s("x", SlotKind::Integer)
                    .with_minimum(-10.0)
                    .with_default(json!(-1))
            ]
        )
        .is_ok()
    );
    assert!(
        build(
            "grep -e <x> .",
            vec![s("x", SlotKind::String).with_default(json!("-x"))]
        )
        .is_ok()
    );
    for (slot, why) in cases {
        let shown = format!("{slot:?}");
        let e = err("tool <x>", vec![slot]);
        assert!(
            matches!(&e, SpecError::InvalidDefault { slot, reason, .. } if slot == "x" && reason.contains(why)),
            "{shown}: {e:?}"
        );
        assert_eq!(e.span(), Some(5..8));
    }
    // Good defaults, including a dash the template itself starts.
    assert!(
        build(
            "tool <x>",
            vec![s("x", SlotKind::Path).with_default(json!("."))]
        )
        .is_ok()
    );
    assert!(
        build(
            "tool --n=<x>",
            vec![s("x", SlotKind::Integer).with_default(json!(-1))]
        )
        .is_ok()
    );
    assert!(
        build(
            "tool <x>",
            vec![s("x", SlotKind::Enum(vec!["-l".into()])).with_default(json!("-l"))]
        )
        .is_ok()
    );
}

#[test]
fn errors_say_what_to_write_instead() {
    let e = err(
        "grep <pattern>",
        vec![s("pattern", SlotKind::String), s("path", SlotKind::Path)],
    );
    assert_eq!(
        e.to_string(),
        "slot `path` has a spec but the template has no `<path>`: add the placeholder or remove the spec"
    );
    let e = CommandSpec::new("bad name", "A tool", "pwd", vec![]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid tool name `bad name`: use 1 to 64 ASCII letters, digits, `_` or `-` (e.g. `search_text`)"
    );
}

#[test]
fn getters_return_what_was_built() {
    let spec = CommandSpec::new(
        "grep",
        "Search",
        "grep -rn <pattern> {path}",
        vec![
            s("pattern", SlotKind::String),
            s("path", SlotKind::Path).with_default(json!(".")),
        ],
    )
    .unwrap();
    assert_eq!(spec.name(), "grep");
    assert_eq!(spec.description(), "Search");
    assert_eq!(spec.template().source(), "grep -rn <pattern> {path}");
    assert_eq!(spec.slots().len(), 2);
    let path = spec.slot("path").unwrap();
    assert_eq!(path.kind(), &SlotKind::Path);
    assert!(!path.is_required());
    assert_eq!(path.default(), Some(&json!(".")));
    assert!(spec.slot("pattern").unwrap().is_required());
    assert!(spec.slot("nope").is_none());
}

#[test]
fn freedom_follows_what_a_slot_can_carry() {
    use nanotool_runtime::policy::SlotFreedom::{Constrained, Free, Path};
    let cases = [
        (s("x", SlotKind::String), Free),
        (s("x", SlotKind::Path), Path),
        (s("x", SlotKind::String).with_pattern(r"^\d+$"), Constrained),
        (s("x", SlotKind::Integer), Constrained),
        (s("x", SlotKind::Number), Constrained),
        (s("x", SlotKind::Enum(vec!["a".into()])), Constrained),
    ];
    for (slot, freedom) in cases {
        assert_eq!(slot.freedom(), freedom, "{slot:?}");
    }
}

#[test]
fn caret_lines_point_at_the_slot_or_the_character() {
    let source = "sed -n <range>p <path>";
    let e = err(
        source,
        vec![
            s("range", SlotKind::String).with_pattern("("),
            s("path", SlotKind::Path),
        ],
    );
    assert_eq!(
        e.caret_line(source).unwrap(),
        "  sed -n <range>p <path>\n         ^^^^^^^"
    );
    let source = "grep a|b";
    let e = err(source, vec![]);
    assert_eq!(e.caret_line(source).unwrap(), "  grep a|b\n        ^");
    let e = err("ls", vec![s("a", SlotKind::String)]);
    assert_eq!(e.caret_line("ls"), None);
}

#[test]
fn the_policy_sees_each_slots_freedom() {
    // A free string where sed takes its script is code entry; a patterned one is not.
    let source = "sed <script> <file>";
    let e = err(
        source,
        vec![s("script", SlotKind::String), s("file", SlotKind::Path)],
    );
    assert!(
        matches!(&e, SpecError::Policy(PolicyError::CodeEntry { slot, .. }) if slot == "script"),
        "{e:?}"
    );
    assert_eq!(e.span(), Some(4..12));
    assert!(e.caret_line(source).unwrap().ends_with("    ^^^^^^^^"));
    assert!(
        build(
            source,
            vec![
                s("script", SlotKind::String).with_pattern(r"^\d+(,\d+)?p$"),
                s("file", SlotKind::Path)
            ]
        )
        .is_ok()
    );
    let e = err("python3 -c <code>", vec![s("code", SlotKind::Path)]);
    assert!(
        matches!(e, SpecError::Policy(PolicyError::CodeEntry { .. })),
        "{e:?}"
    );
    // Arguments after fixed code are ordinary slots.
    assert!(
        build(
            "python3 -m json.tool <file>",
            vec![s("file", SlotKind::Path)]
        )
        .is_ok()
    );
}
