//! The two forms give the same answers.
//!
//! 1. The fixture table (`tests/fixtures/forms.rs`) through the descriptor-side path:
//!    `CommandSpec::new` refuses or accepts each row exactly as its ui twin does at compile
//!    time.
//! 2. Each built-in and its descriptor twin in `examples/tools/` give the same schema, the
//!    same argv and the same errors on one table of argument sets.

#[path = "fixtures/forms.rs"]
mod forms;

use forms::{FORMS, Verdict};
use nanotool::builtins::{Find, Grep, SedPrint};
use nanotool::{CommandSpec, CommandStruct, SlotKind, SlotSpec};
use serde_json::{Value, json};
use std::path::Path;

#[test]
fn descriptor_side_gives_each_fixture_its_ui_verdict() {
    let mut checked = 0;
    for form in FORMS {
        let result = CommandSpec::new(
            form.tool_name,
            form.description,
            form.template,
            form.slot_specs(),
        );
        match form.verdict {
            Verdict::Accepted => {
                if let Err(e) = result {
                    panic!(
                        "{}/{}: the code form accepts it, the runtime says {e}",
                        form.class, form.name
                    );
                }
            }
            Verdict::Refused => {
                if result.is_ok() {
                    panic!(
                        "{}/{}: the code form refuses it, the runtime accepts it",
                        form.class, form.name
                    );
                }
            }
            Verdict::CodeOnly(_) => continue,
        }
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} rows have a descriptor twin");
}

/// A descriptor twin, read as the loader would (`name`, `description`, `command`, `arguments`).
fn twin(file: &str) -> CommandSpec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/tools")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("descriptor twin");
    let doc: Value = serde_json::from_str(&text).expect("descriptor twin is JSON");
    let mut slots = Vec::new();
    for (name, arg) in doc["arguments"].as_object().expect("arguments") {
        let kind = match (arg["type"].as_str(), arg.get("enum")) {
            (_, Some(values)) => SlotKind::Enum(
                values
                    .as_array()
                    .expect("enum list")
                    .iter()
                    .map(|v| v.as_str().expect("enum value").to_owned())
                    .collect(),
            ),
            (Some("string"), None) => SlotKind::String,
            (Some("integer"), None) => SlotKind::Integer,
            (Some("number"), None) => SlotKind::Number,
            (Some("path"), None) => SlotKind::Path,
            (other, _) => panic!("{file}: unknown type {other:?}"),
        };
        let mut spec = SlotSpec::new(
            name,
            kind,
            arg["description"].as_str().expect("description"),
        );
        if arg.get("required") == Some(&Value::Bool(false)) {
            spec = spec.optional();
        }
        if let Some(default) = arg.get("default") {
            spec = spec.with_default(default.clone());
        }
        if let Some(pattern) = arg.get("pattern") {
            spec = spec.with_pattern(pattern.as_str().expect("pattern"));
        }
        slots.push(spec);
    }
    // JSON objects carry no order: take the slots in template order, as the struct does.
    let command = doc["command"].as_str().expect("command");
    let position = |name: &str| command.find(&format!("<{name}>")).unwrap_or(usize::MAX);
    slots.sort_by_key(|s| position(s.name()));
    CommandSpec::new(
        doc["name"].as_str().expect("name"),
        doc["description"].as_str().expect("description"),
        doc["command"].as_str().expect("command"),
        slots,
    )
    .unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The schema with the name-dependent parts left as they are: both forms must agree on
/// properties, required and additionalProperties exactly.
fn same_schema(code: &CommandSpec, descriptor: &CommandSpec) {
    assert_eq!(
        code.json_schema(),
        descriptor.json_schema(),
        "{} schema",
        code.name()
    );
    assert_eq!(code.template().source(), descriptor.template().source());
    assert_eq!(
        code.description(),
        descriptor.description(),
        "{} description",
        code.name()
    );
}

fn same_calls(code: &CommandSpec, descriptor: &CommandSpec, calls: &[Value]) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("src")).expect("src");
    std::fs::write(dir.path().join("src/a.txt"), "one\ntwo\n").expect("a.txt");
    let root = dir.path().canonicalize().expect("canonical");
    for args in calls {
        let a = code.render(args, &root);
        let b = descriptor.render(args, &root);
        match (&a, &b) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{} argv for {args}", code.name()),
            (Err(a), Err(b)) => assert_eq!(
                (a.slot(), a.to_string()),
                (b.slot(), b.to_string()),
                "{} error for {args}",
                code.name()
            ),
            _ => panic!(
                "{}: the forms disagree on {args}: {a:?} vs {b:?}",
                code.name()
            ),
        }
    }
}

#[test]
fn grep_and_its_twin_agree() {
    let code = Grep::command_spec().expect("grep");
    let descriptor = twin("search_text.tool.json");
    same_schema(code, &descriptor);
    same_calls(
        code,
        &descriptor,
        &[
            json!({"pattern": "two"}),
            json!({"pattern": "two", "path": "src"}),
            json!({"pattern": "-e"}),
            json!({"pattern": "x;id"}),
            json!({"pattern": "two", "path": "../etc"}),
            json!({"pattern": "two", "path": "/etc"}),
            json!({"pattern": 3}),
            json!({}),
            json!({"pattern": "two", "extra": 1}),
        ],
    );
}

#[test]
fn find_and_its_twin_agree() {
    let code = Find::command_spec().expect("find");
    let descriptor = twin("find_files.tool.json");
    same_schema(code, &descriptor);
    same_calls(
        code,
        &descriptor,
        &[
            json!({"pattern": "*.txt"}),
            json!({"pattern": "*.txt", "path": "src"}),
            json!({"pattern": "-delete"}),
            json!({"pattern": "*.txt", "path": "-delete"}),
            json!({"pattern": "a b"}),
            json!({"path": "src"}),
        ],
    );
}

#[test]
fn sed_print_and_its_twin_agree() {
    let code = SedPrint::command_spec().expect("sed_print");
    let descriptor = twin("print_lines.tool.json");
    same_schema(code, &descriptor);
    same_calls(
        code,
        &descriptor,
        &[
            json!({"range": "1", "path": "src/a.txt"}),
            json!({"range": "1,2", "path": "src/a.txt"}),
            json!({"range": "1e id", "path": "src/a.txt"}),
            json!({"range": "1;e", "path": "src/a.txt"}),
            json!({"range": "1", "path": "--expression=1e"}),
            json!({"range": "1"}),
            json!({"range": 1, "path": "src/a.txt"}),
        ],
    );
}

#[test]
fn the_twins_differ_only_in_name() {
    for (code, file) in [
        (Grep::NAME, "search_text.tool.json"),
        (Find::NAME, "find_files.tool.json"),
        (SedPrint::NAME, "print_lines.tool.json"),
    ] {
        assert_ne!(
            code,
            twin(file).name(),
            "{file} must load beside the built-in"
        );
    }
}
