//! The two forms give the same answers.
//!
//! 1. The fixture table (`tests/fixtures/forms.rs`) through the descriptor side — both
//!    `CommandSpec::new` and the descriptor loader on the row written as a `*.tool.json` —
//!    refuses (613) or accepts each row exactly as its ui twin does at compile time.
//! 2. Each built-in and its descriptor twin in `tests/fixtures/twins/` (loaded by the descriptor
//!    loader) give the same schema, the same argv and the same errors on one table of
//!    argument sets.

#[path = "fixtures/forms.rs"]
mod forms;

use forms::{FORMS, SETTING_FORMS, Verdict};
use nanotool::DescriptorLoader;
use nanotool::builtins::{Find, Grep, SedPrint};
use nanotool::{CODE_INVALID_DESCRIPTOR, CommandSpec, CommandStruct, PolicyError, SpecError};
use nanotool_runtime::template::TemplateErrorKind;
use serde_json::{Value, json};
use std::path::Path;

#[test]
fn descriptor_side_gives_each_fixture_its_ui_verdict() {
    let mut checked = 0;
    for form in FORMS {
        if let Verdict::CodeOnly(_) = form.verdict {
            continue;
        }
        let spec = CommandSpec::new(
            form.tool_name,
            form.description,
            form.template,
            form.slot_specs(),
        );
        let file = format!("{}.tool.json", form.name);
        let json = serde_json::to_vec(&form.descriptor()).expect("descriptor JSON");
        let loaded = DescriptorLoader::new().parse(Path::new(&file), &json);
        let case = format!("{}/{}", form.class, form.name);
        match form.verdict {
            Verdict::Accepted => {
                if let Err(e) = &spec {
                    panic!("{case}: the code form accepts it, CommandSpec::new says {e}");
                }
                if let Err(e) = &loaded {
                    panic!("{case}: the code form accepts it, the loader says {e}");
                }
                assert_eq!(
                    unordered(spec.unwrap().json_schema()),
                    unordered(loaded.unwrap().json_schema()),
                    "{case}: both descriptor-side paths give one schema"
                );
            }
            Verdict::Refused => {
                let Err(error) = &spec else {
                    panic!("{case}: the code form refuses it, CommandSpec::new accepts it");
                };
                assert!(
                    refused_for_its_class(form.class, error),
                    "{case}: refused, but not for what its class `{}` attacks: {error:?}",
                    form.class
                );
                let err = loaded.expect_err(&format!(
                    "{case}: the code form refuses it, the loader accepts it"
                ));
                assert_eq!(err.code(), CODE_INVALID_DESCRIPTOR, "{case}");
                assert!(err.to_string().contains(&file), "{case}: {err}");
            }
            Verdict::CodeOnly(_) => unreachable!(),
        }
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} rows have a descriptor twin");
}

#[test]
fn descriptor_side_gives_each_setting_row_its_ui_verdict() {
    let mut refused = 0;
    for form in SETTING_FORMS {
        let spec = CommandSpec::new(form.name, "Runs the tests.", form.template, vec![])
            .expect("the template is fine")
            .with_settings(form.run_settings())
            .and_then(|spec| spec.with_exit_codes(form.exit_codes()));
        let file = format!("{}.tool.json", form.name);
        let json = serde_json::to_vec(&form.descriptor()).expect("descriptor JSON");
        let loaded = DescriptorLoader::new().parse(Path::new(&file), &json);
        match form.verdict {
            Verdict::Accepted => {
                let spec = spec.unwrap_or_else(|e| panic!("{}: {e}", form.name));
                let loaded = loaded.unwrap_or_else(|e| panic!("{}: {e}", form.name));
                assert_eq!(spec.settings(), loaded.settings(), "{}", form.name);
                assert_eq!(spec.exit_codes(), loaded.exit_codes(), "{}", form.name);
                assert_eq!(
                    loaded.exit_codes(),
                    &form.exit_codes(),
                    "{}: the descriptor's exit statuses are the row's",
                    form.name
                );
                assert_eq!(
                    loaded.settings(),
                    &form.run_settings(),
                    "{}: the descriptor's settings are the row's",
                    form.name
                );
            }
            Verdict::Refused => {
                let error = spec.expect_err(form.name);
                assert!(
                    refused_for_its_class(form.class, &error),
                    "{}: {error:?}",
                    form.name
                );
                let err = loaded.expect_err(form.name);
                assert_eq!(err.code(), CODE_INVALID_DESCRIPTOR);
                assert!(err.to_string().contains(&file), "{err}");
                assert_eq!(err.pointer.as_deref(), Some(form.field), "{err}");
                refused += 1;
            }
            Verdict::CodeOnly(_) => {}
        }
    }
    assert!(refused >= 8, "only {refused} refused setting rows");
}

/// Whether `error` is the refusal the row's attack class calls for: a row refused for some
/// other reason would prove nothing about its class.
fn refused_for_its_class(class: &str, error: &SpecError) -> bool {
    let policy = |error: &SpecError, pick: fn(&PolicyError) -> bool| match error {
        SpecError::Policy(e) => pick(e),
        SpecError::PolicyVariant { error, .. } => pick(error),
        _ => false,
    };
    match class {
        "metachar" | "bad_template" => matches!(error, SpecError::Template(_)),
        "denied_binary" => policy(error, |e| {
            matches!(
                e,
                PolicyError::DeniedBinary { .. } | PolicyError::DeniedCommand { .. }
            )
        }),
        "code_entry" => policy(error, |e| matches!(e, PolicyError::CodeEntry { .. })),
        "name" => matches!(error, SpecError::InvalidName { .. }),
        "docs" => matches!(
            error,
            SpecError::EmptyDescription { .. } | SpecError::EmptySlotDescription { .. }
        ),
        "slot_mismatch" => match error {
            SpecError::SlotWithoutSpec { .. }
            | SpecError::SpecWithoutSlot { .. }
            | SpecError::DuplicateSpec { .. } => true,
            // A slot where the binary goes is a slot the grammar refuses outright.
            SpecError::Template(e) => e.kind() == &TemplateErrorKind::SlotAsBinary,
            _ => false,
        },
        // A setting that does not fit the slot's kind.
        "bad_type" => matches!(
            error,
            SpecError::PatternNotForKind { .. }
                | SpecError::RangeNotForKind { .. }
                | SpecError::InvalidDefault { .. }
        ),
        // A setting whose own value is wrong.
        "bad_attribute" => matches!(
            error,
            SpecError::InvalidPattern { .. }
                | SpecError::InvalidRange { .. }
                | SpecError::EnumValue { .. }
        ),
        // A run setting out of range, or a variable a tool may not set.
        "bad_setting" => matches!(error, SpecError::Settings(_) | SpecError::ExitCode(_)),
        _ => panic!("class `{class}` has no pinned refusal: add it here"),
    }
}

/// A descriptor twin, loaded by the descriptor loader.
fn twin(file: &str) -> CommandSpec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/twins")
        .join(file);
    let tool = DescriptorLoader::new()
        .load_file(&path)
        .unwrap_or_else(|e| panic!("{e}"));
    tool.spec().clone()
}

/// Slot order is not part of a tool's meaning: the struct lists its fields in source order,
/// a JSON object has no order (the loader reads its arguments in key order). `required` is a
/// set in JSON Schema, so compare it as one.
fn unordered(mut schema: Value) -> Value {
    if let Some(required) = schema["required"].as_array_mut() {
        required.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    }
    schema
}

/// The words of a message, sorted: the one place slot order shows in an error is the list of
/// arguments a tool takes (`this tool takes only `a`, `b``).
fn words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = text
        .split_whitespace()
        .map(|w| w.trim_end_matches([',', ';']).to_owned())
        .collect();
    words.sort();
    words
}

fn same_schema(code: &CommandSpec, descriptor: &CommandSpec) {
    assert_eq!(
        unordered(code.json_schema()),
        unordered(descriptor.json_schema()),
        "{} schema",
        code.name()
    );
    assert_eq!(code.template().source(), descriptor.template().source());
    assert_eq!(
        code.exit_codes(),
        descriptor.exit_codes(),
        "{} exit statuses",
        code.name()
    );
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
                (a.slot(), a.code(), words(&a.to_string())),
                (b.slot(), b.code(), words(&b.to_string())),
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
