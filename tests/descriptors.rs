//! The descriptor loader (`*.tool.json`, error 613): the loader matrix, file-level faults,
//! field-level errors with their JSON paths, the published JSON Schema and its agreement with
//! the loader, and the sameness of a descriptor tool and a hand-built `CommandSpec`.

use nanotool_runtime::descriptor::{DescriptorError, DescriptorLoader, MAX_DESCRIPTOR_BYTES};
use nanotool_runtime::{CommandSpec, SlotKind, SlotSpec, Tool};
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

const COUNT_LINES: &str = r#"{
  "name": "count_lines",
  "description": "Count the lines of a file",
  "command": "wc -l <file>",
  "arguments": { "file": { "type": "path", "description": "The file" } }
}"#;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures(kind: &str) -> PathBuf {
    root().join("tests/fixtures/descriptors").join(kind)
}

fn tool_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".tool.json"))
        .collect();
    files.sort();
    files
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

fn descriptor(name: &str) -> String {
    COUNT_LINES.replace("count_lines", name)
}

fn load(dir: &Path) -> (Vec<String>, Vec<DescriptorError>) {
    let load = DescriptorLoader::new().load_dir(dir);
    let names = load.tools.iter().map(|t| t.name().to_owned()).collect();
    (names, load.errors)
}

fn only_error(dir: &Path) -> DescriptorError {
    let (names, mut errors) = load(dir);
    assert!(names.is_empty(), "nothing should load, got {names:?}");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    errors.remove(0)
}

fn assert_names_file(err: &DescriptorError, file: &str) {
    let text = err.to_string();
    assert!(text.starts_with("error 613: "), "{text}");
    assert!(text.contains(file), "the error names {file}: {text}");
    assert_eq!(err.code(), 613);
}

// ---------------------------------------------------------------------------------------
// The loader matrix

#[test]
fn a_valid_descriptor_loads_as_a_command_tool() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "count_lines.tool.json", COUNT_LINES);
    let load = DescriptorLoader::new().load_dir(dir.path());
    assert!(load.errors.is_empty(), "{:#?}", load.errors);
    assert_eq!(load.tools.len(), 1);
    let tool = &load.tools[0];
    assert_eq!(tool.name(), "count_lines");
    assert_eq!(tool.description(), "Count the lines of a file");
    assert_eq!(tool.spec().template().source(), "wc -l <file>");
}

#[test]
fn invalid_json_is_613_with_line_and_column() {
    let dir = TempDir::new().unwrap();
    write(
        dir.path(),
        "broken.tool.json",
        "{\n  \"name\": \"t\",\n  \"description\": \"A tool\"\n  \"command\": \"wc -l x\"\n}\n",
    );
    let err = only_error(dir.path());
    assert_names_file(&err, "broken.tool.json");
    assert_eq!(err.position, Some((4, 3)));
    let text = err.to_string();
    assert!(
        text.contains("broken.tool.json:4:3: invalid JSON"),
        "{text}"
    );
    assert!(text.contains("comma"), "says what to check: {text}");
}

#[test]
fn a_metacharacter_in_the_template_is_613_with_a_caret() {
    let dir = TempDir::new().unwrap();
    write(
        dir.path(),
        "chain.tool.json",
        &COUNT_LINES.replace("wc -l <file>", "wc -l <file> ; rm -rf /"),
    );
    let err = only_error(dir.path());
    assert_names_file(&err, "chain.tool.json");
    assert_eq!(err.pointer.as_deref(), Some("command"));
    let text = err.to_string();
    assert!(text.contains("`;`"), "{text}");
    assert!(
        text.contains("  wc -l <file> ; rm -rf /\n               ^"),
        "caret under the `;`: {text}"
    );
}

#[test]
fn a_name_taken_by_a_registered_tool_is_613_naming_the_file() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "mine.tool.json", &descriptor("grep"));
    let load = DescriptorLoader::new()
        .reserve(["grep", "find"])
        .load_dir(dir.path());
    assert!(load.tools.is_empty());
    let err = &load.errors[0];
    assert_names_file(err, "mine.tool.json");
    assert_eq!(err.pointer.as_deref(), Some("name"));
    assert!(err.message.contains("already taken"), "{err}");
    assert!(
        err.message.contains("grep_2"),
        "suggests a free name: {err}"
    );
}

#[test]
fn two_files_with_one_name_conflict_and_the_first_in_name_order_wins() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "b.tool.json", &descriptor("same"));
    write(dir.path(), "a.tool.json", &descriptor("same"));
    let load = DescriptorLoader::new().load_dir(dir.path());
    assert_eq!(load.tools.len(), 1);
    assert_eq!(load.errors.len(), 1);
    assert_names_file(&load.errors[0], "b.tool.json");
    assert!(
        load.errors[0].message.contains("`a.tool.json`"),
        "{}",
        load.errors[0]
    );
}

#[test]
fn a_folder_with_some_bad_files_loads_the_rest_in_name_order() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "c_good.tool.json", &descriptor("c_tool"));
    write(dir.path(), "b_bad.tool.json", "{ not json");
    write(dir.path(), "a_good.tool.json", &descriptor("a_tool"));
    write(
        dir.path(),
        "d_bad.tool.json",
        &COUNT_LINES.replace("wc -l", "rm -f"),
    );
    write(dir.path(), "e_good.tool.json", &descriptor("e_tool"));
    let (names, errors) = load(dir.path());
    assert_eq!(names, ["a_tool", "c_tool", "e_tool"]);
    assert_eq!(errors.len(), 2);
    assert_names_file(&errors[0], "b_bad.tool.json");
    assert_names_file(&errors[1], "d_bad.tool.json");
}

#[test]
fn only_files_ending_in_tool_json_are_read() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "real.tool.json", &descriptor("real"));
    for ignored in [
        "x.tool.json.bak",
        "x.json",
        "x.tool.yaml",
        "x.tool.jsonc",
        "tool.json",
        "x.TOOL.JSON",
        "README.md",
    ] {
        write(dir.path(), ignored, "{ garbage that would be a 613");
    }
    let (names, errors) = load(dir.path());
    assert_eq!(names, ["real"]);
    assert!(errors.is_empty(), "{errors:#?}");
}

// ---------------------------------------------------------------------------------------
// File-level faults: errors, never crashes, never a hang

#[test]
fn a_symlinked_descriptor_is_refused_even_when_its_target_is_valid() {
    let dir = TempDir::new().unwrap();
    let elsewhere = TempDir::new().unwrap();
    let target = write(elsewhere.path(), "real.tool.json", COUNT_LINES);
    symlink(&target, dir.path().join("linked.tool.json")).unwrap();
    let err = only_error(dir.path());
    assert_names_file(&err, "linked.tool.json");
    assert!(err.message.contains("symbolic link"), "{err}");
    assert!(err.message.contains("copy the file"), "{err}");

    // The single-file entry point refuses it too.
    let err = DescriptorLoader::new()
        .load_file(&dir.path().join("linked.tool.json"))
        .unwrap_err();
    assert!(err.message.contains("symbolic link"), "{err}");
}

#[test]
fn unreadable_files_are_613_a_dangling_link_and_a_fifo() {
    // Tests run as root here, so `chmod 000` would not stop a read: the faults used are a
    // dangling symbolic link and a FIFO (which would block a plain `read` forever).
    let dir = TempDir::new().unwrap();
    symlink(
        dir.path().join("nowhere"),
        dir.path().join("dangling.tool.json"),
    )
    .unwrap();
    let fifo = dir.path().join("fifo.tool.json");
    let c_path = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
    write(dir.path(), "ok.tool.json", &descriptor("ok"));

    let (names, errors) = load(dir.path());
    assert_eq!(names, ["ok"]);
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert_names_file(&errors[0], "dangling.tool.json");
    assert!(errors[0].message.contains("symbolic link"));
    assert_names_file(&errors[1], "fifo.tool.json");
    assert!(
        errors[1].message.contains("not a regular file"),
        "{}",
        errors[1]
    );

    let err = DescriptorLoader::new().load_file(&fifo).unwrap_err();
    assert!(err.message.contains("not a regular file"), "{err}");
    let err = DescriptorLoader::new()
        .load_file(&dir.path().join("missing.tool.json"))
        .unwrap_err();
    assert!(err.message.contains("cannot read"), "{err}");
}

#[test]
fn a_directory_named_tool_json_is_613() {
    let dir = TempDir::new().unwrap();
    fs::create_dir(dir.path().join("folder.tool.json")).unwrap();
    let err = only_error(dir.path());
    assert_names_file(&err, "folder.tool.json");
    assert!(err.message.contains("is a folder"), "{err}");
}

#[test]
fn a_file_over_one_mib_is_refused_and_one_at_the_limit_loads() {
    let dir = TempDir::new().unwrap();
    let padded = |total: u64| {
        let mut text = descriptor("big");
        text.push_str(&" ".repeat(total as usize - text.len()));
        text
    };
    write(
        dir.path(),
        "at_limit.tool.json",
        &padded(MAX_DESCRIPTOR_BYTES),
    );
    let (names, errors) = load(dir.path());
    assert_eq!(names, ["big"]);
    assert!(errors.is_empty());

    fs::remove_file(dir.path().join("at_limit.tool.json")).unwrap();
    write(
        dir.path(),
        "huge.tool.json",
        &padded(MAX_DESCRIPTOR_BYTES + 1),
    );
    let err = only_error(dir.path());
    assert_names_file(&err, "huge.tool.json");
    assert!(err.message.contains("1048577 bytes"), "{err}");
    assert!(err.message.contains("1 MiB"), "{err}");
}

#[test]
fn non_utf8_content_is_613() {
    let dir = TempDir::new().unwrap();
    let mut bytes = descriptor("latin").into_bytes();
    let at = bytes.iter().position(|&b| b == b'C').unwrap();
    bytes[at] = 0xE9; // Latin-1 `é`, not UTF-8
    fs::write(dir.path().join("latin1.tool.json"), bytes).unwrap();
    let err = only_error(dir.path());
    assert_names_file(&err, "latin1.tool.json");
    assert!(err.message.contains("not valid UTF-8"), "{err}");
    assert!(err.message.contains(&format!("offset {at}")), "{err}");
}

#[test]
fn a_non_utf8_file_name_is_613_and_others_load() {
    let dir = TempDir::new().unwrap();
    let name = OsStr::from_bytes(b"caf\xe9.tool.json");
    fs::write(dir.path().join(name), descriptor("cafe")).unwrap();
    write(dir.path(), "ok.tool.json", &descriptor("ok"));
    let (names, errors) = load(dir.path());
    assert_eq!(names, ["ok"]);
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].message.contains("file name is not valid UTF-8"),
        "{}",
        errors[0]
    );
    assert!(errors[0].to_string().contains("caf"), "{}", errors[0]);
}

#[test]
fn a_missing_folder_is_an_empty_load_and_a_file_is_an_error() {
    let dir = TempDir::new().unwrap();
    let (names, errors) = load(&dir.path().join("tools"));
    assert!(names.is_empty() && errors.is_empty());

    let file = write(dir.path(), "tools", "not a folder");
    let (names, errors) = load(&file);
    assert!(names.is_empty());
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].message.contains("is a file, not a folder"),
        "{}",
        errors[0]
    );
}

#[test]
fn a_symlinked_folder_is_followed() {
    let real = TempDir::new().unwrap();
    write(real.path(), "ok.tool.json", &descriptor("ok"));
    let dir = TempDir::new().unwrap();
    symlink(real.path(), dir.path().join("tools")).unwrap();
    let (names, errors) = load(&dir.path().join("tools"));
    assert_eq!(names, ["ok"]);
    assert!(errors.is_empty());
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let dir = TempDir::new().unwrap();
    write(
        dir.path(),
        "bom.tool.json",
        &format!("\u{FEFF}{}", descriptor("bom")),
    );
    let (names, errors) = load(dir.path());
    assert_eq!(names, ["bom"], "{errors:#?}");
}

// ---------------------------------------------------------------------------------------
// Field-level errors: the JSON path, and what to write instead

fn parse_err(text: &str) -> DescriptorError {
    DescriptorLoader::new()
        .parse(Path::new("x.tool.json"), text.as_bytes())
        .unwrap_err()
}

#[test]
fn field_errors_name_their_json_path_and_the_fix() {
    let cases: &[(&str, &str, &str)] = &[
        ("unknown_top_field", "argumnts", "did you mean `arguments`?"),
        (
            "unknown_arg_field",
            "arguments.file.descripton",
            "did you mean `description`?",
        ),
        (
            "required_and_default",
            "arguments.n.required",
            "contradiction",
        ),
        (
            "missing_description",
            "description",
            "missing; write \"description\"",
        ),
        (
            "missing_arg_description",
            "arguments.file.description",
            "missing",
        ),
        ("blank_description", "description", "is empty"),
        ("missing_command", "command", "missing"),
        (
            "missing_type",
            "arguments.file.type",
            "missing; write \"type\"",
        ),
        ("unknown_type", "arguments.file.type", "unknown type `file`"),
        ("bad_name", "name", "not a valid tool name"),
        ("name_too_long", "name", "1 to 64"),
        (
            "enum_without_values",
            "arguments.mode.enum",
            "lists its values",
        ),
        ("empty_enum", "arguments.mode.enum", "is empty"),
        ("enum_on_integer", "arguments.n.enum", "takes no `enum`"),
        (
            "enum_not_strings",
            "arguments.mode.enum[0]",
            "enum values are strings",
        ),
        ("enum_duplicate", "arguments.mode.enum[1]", "listed twice"),
        (
            "pattern_on_integer",
            "arguments.n.pattern",
            "only a `string` argument",
        ),
        (
            "minimum_on_string",
            "arguments.p.minimum",
            "only an `integer` or `number`",
        ),
        (
            "default_wrong_type",
            "arguments.n.default",
            "invalid default",
        ),
        (
            "required_not_boolean",
            "arguments.file.required",
            "write true or false",
        ),
        ("not_an_object", "", "not a JSON object"),
        ("arguments_not_object", "arguments", "write an object"),
        ("argument_not_object", "arguments.file", "write an object"),
        (
            "bad_argument_name",
            "arguments.File",
            "not a valid argument name",
        ),
        ("name_not_string", "name", "write a string"),
        ("network_word", "network", "\"local\""),
        ("memory_unit", "memory", "unknown unit"),
    ];
    for (fixture, pointer, says) in cases {
        let path = fixtures("bad/structural").join(format!("{fixture}.tool.json"));
        let err = DescriptorLoader::new().load_file(&path).unwrap_err();
        assert_eq!(
            err.pointer.as_deref().unwrap_or(""),
            *pointer,
            "{fixture}: {err}"
        );
        assert!(err.message.contains(says), "{fixture}: `{says}` in {err}");
        assert!(
            err.to_string().contains(&format!("{fixture}.tool.json")),
            "{err}"
        );
    }
    // Every structural fixture is in the table.
    assert_eq!(tool_files(&fixtures("bad/structural")).len(), cases.len());
}

#[test]
fn semantic_errors_come_from_the_runtime_and_point_where_they_apply() {
    let cases: &[(&str, &str, &str)] = &[
        ("metachar_template", "command", "`;`"),
        ("denied_binary", "command", "rm"),
        ("denied_binary_path", "command", "rm"),
        ("code_entry", "command", "code"),
        ("script_operand", "command", "prog"),
        ("slot_without_argument", "arguments", "pattern"),
        ("argument_without_slot", "arguments.file", "no `<file>`"),
        (
            "invalid_pattern",
            "arguments.p.pattern",
            "not a valid regex",
        ),
        ("enum_value_invisible", "arguments.mode.enum", "U+202E"),
        ("enum_default_not_listed", "arguments.mode.default", "-a"),
        ("unclosed_placeholder", "command", "never closed"),
        ("slot_as_binary", "command", "binary"),
        (
            "minimum_above_maximum",
            "arguments.n.minimum",
            "above the maximum",
        ),
        ("invalid_json", "", "invalid JSON"),
        ("trailing_comma", "", "invalid JSON"),
        ("duplicate_key", "", "the key `command` is given twice"),
    ];
    for (fixture, pointer, says) in cases {
        let path = fixtures("bad/semantic").join(format!("{fixture}.tool.json"));
        let err = DescriptorLoader::new().load_file(&path).unwrap_err();
        assert_eq!(
            err.pointer.as_deref().unwrap_or(""),
            *pointer,
            "{fixture}: {err}"
        );
        assert!(
            err.to_string().contains(says),
            "{fixture}: `{says}` in {err}"
        );
        assert_eq!(err.code(), 613);
    }
    assert_eq!(tool_files(&fixtures("bad/semantic")).len(), cases.len());
}

#[test]
fn several_problems_in_one_file_are_one_error_listing_each() {
    let err = parse_err(
        r#"{"name": "t", "descripton": "x", "command": "wc -l <file>",
            "arguments": {"file": {"type": "strng", "description": "A file"}}}"#,
    );
    assert_eq!(err.pointer.as_deref(), Some("descripton"));
    assert!(
        err.message.starts_with("unknown field `descripton`"),
        "{err}"
    );
    assert!(
        err.message.contains("\n  also: description: missing"),
        "{err}"
    );
    assert!(
        err.message.contains(
            "\n  also: arguments.file.type: unknown type `strng`; did you mean `string`?"
        ),
        "{err}"
    );
}

#[test]
fn the_display_reads_file_path_then_json_path() {
    let err = parse_err(
        r#"{"name": "t", "description": "x", "command": "wc -l <file>",
            "arguments": {"file": {"type": "file", "description": "A file"}}}"#,
    );
    assert_eq!(
        err.to_string(),
        "error 613: x.tool.json: arguments.file.type: unknown type `file`; write one of \
         `string`, `integer`, `number`, `enum`, `path`"
    );
}

#[test]
fn the_host_deny_list_applies_at_load_time() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "count_lines.tool.json", COUNT_LINES);
    let load = DescriptorLoader::new()
        .deny_binaries(["wc"])
        .load_dir(dir.path());
    assert!(load.tools.is_empty());
    assert_names_file(&load.errors[0], "count_lines.tool.json");
    assert!(
        load.errors[0].to_string().contains("wc"),
        "{}",
        load.errors[0]
    );
    assert_eq!(load.errors[0].pointer.as_deref(), Some("command"));
}

// ---------------------------------------------------------------------------------------
// One implementation: a descriptor is the same CommandSpec as the code form

#[test]
fn a_descriptor_builds_the_same_spec_as_the_code_form() {
    let path = root().join("examples/tools/git_log.tool.json");
    let tool = DescriptorLoader::new().load_file(&path).unwrap();
    let by_hand = CommandSpec::new(
        "git_log",
        tool.description(),
        "git log --oneline -n <count>",
        vec![
            SlotSpec::new("count", SlotKind::Integer, "How many commits to show")
                .with_minimum(1.0)
                .with_maximum(200.0)
                .with_default(json!(10)),
        ],
    )
    .unwrap();
    assert_eq!(tool.input_schema(), by_hand.json_schema());
    assert_eq!(tool.spec().slots(), by_hand.slots());
    let root = std::env::temp_dir().canonicalize().unwrap();
    for args in [
        json!({}),
        json!({"count": 3}),
        json!({"count": 0}),
        json!({"count": "3"}),
    ] {
        assert_eq!(
            tool.spec().render(&args, &root),
            by_hand.render(&args, &root),
            "{args}"
        );
    }
}

#[test]
fn an_enum_may_be_written_as_type_enum_or_as_type_string() {
    let as_enum = parse_ok(
        r#"{"name": "t", "description": "x", "command": "ls <mode>",
            "arguments": {"mode": {"type": "enum", "enum": ["-l", "-1"], "description": "M"}}}"#,
    );
    let as_string = parse_ok(
        r#"{"name": "t", "description": "x", "command": "ls <mode>",
            "arguments": {"mode": {"type": "string", "enum": ["-l", "-1"], "description": "M"}}}"#,
    );
    assert_eq!(as_enum.slots(), as_string.slots());
    assert_eq!(
        as_enum.slots()[0].kind(),
        &SlotKind::Enum(vec!["-l".into(), "-1".into()])
    );
}

#[test]
fn required_false_and_default_make_an_argument_optional() {
    let spec = parse_ok(
        r#"{"name": "t", "description": "x", "command": "grep -c <p> --max-count=<n> <file>",
            "arguments": {
              "p": {"type": "string", "description": "P", "required": true},
              "n": {"type": "integer", "description": "N", "required": false},
              "file": {"type": "path", "description": "F", "default": "."}}}"#,
    );
    let required: Vec<bool> = ["p", "n", "file"]
        .iter()
        .map(|n| spec.slot(n).unwrap().is_required())
        .collect();
    assert_eq!(required, [true, false, false]);
    assert_eq!(spec.slot("file").unwrap().default(), Some(&json!(".")));
}

fn parse_ok(text: &str) -> CommandSpec {
    DescriptorLoader::new()
        .parse(Path::new("x.tool.json"), text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"))
}

// ---------------------------------------------------------------------------------------
// The bundled descriptors and the published JSON Schema

fn schema() -> Value {
    serde_json::from_str(&fs::read_to_string(root().join("schemas/tool.schema.json")).unwrap())
        .unwrap()
}

fn validator() -> jsonschema::Validator {
    jsonschema::draft202012::new(&schema()).expect("the schema compiles")
}

fn json_of(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

#[test]
fn the_schema_is_a_valid_2020_12_schema_with_an_id_and_closed_objects() {
    let schema = schema();
    assert!(jsonschema::meta::is_valid(&schema));
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert!(
        schema["$id"]
            .as_str()
            .unwrap()
            .ends_with("/schemas/tool.schema.json")
    );
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["$defs"]["argument"]["additionalProperties"], false);
    assert_eq!(
        schema["properties"]["name"]["pattern"],
        "^[A-Za-z0-9_-]{1,64}$"
    );
    assert_eq!(
        schema["$defs"]["argument"]["properties"]["type"]["enum"],
        json!(["string", "integer", "number", "enum", "path"])
    );
}

#[test]
fn every_bundled_descriptor_loads_and_validates_against_the_schema() {
    let dir = root().join("examples/tools");
    let validator = validator();
    let files = tool_files(&dir);
    for required in [
        "count_lines",
        "git_log",
        "list_dir",
        "head_file",
        "json_pretty",
    ] {
        assert!(
            files
                .iter()
                .any(|f| f.ends_with(format!("{required}.tool.json"))),
            "{required} is bundled"
        );
    }
    for file in &files {
        let errors: Vec<String> = validator
            .iter_errors(&json_of(file))
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", file.display());
    }
    let (names, errors) = load(&dir);
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(names.len(), files.len());
}

#[test]
fn the_schema_and_the_loader_agree_on_good_and_structurally_bad_files() {
    let validator = validator();
    for file in tool_files(&fixtures("good")) {
        assert!(validator.is_valid(&json_of(&file)), "{}", file.display());
        DescriptorLoader::new()
            .load_file(&file)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    for file in tool_files(&fixtures("bad/structural")) {
        assert!(
            !validator.is_valid(&json_of(&file)),
            "the schema refuses {}",
            file.display()
        );
        assert!(
            DescriptorLoader::new().load_file(&file).is_err(),
            "the loader refuses {}",
            file.display()
        );
    }
}

#[test]
fn what_only_the_runtime_can_check_the_loader_still_refuses() {
    // Templates, policy and slot matching are beyond a JSON Schema: the schema lets these
    // through (where they parse as JSON at all) and the loader refuses each.
    let validator = validator();
    for file in tool_files(&fixtures("bad/semantic")) {
        if let Ok(value) = serde_json::from_slice::<Value>(&fs::read(&file).unwrap()) {
            assert!(validator.is_valid(&value), "{}", file.display());
        }
        assert!(DescriptorLoader::new().load_file(&file).is_err());
    }
}

/// A bundled descriptor is an example of what a descriptor can add: one that runs the same
/// command as a built-in (`search_text` beside `grep`) shows a user two tools for one job,
/// and tells the model the same thing twice. The built-ins' descriptor twins, which prove the
/// two forms agree, live in `tests/fixtures/twins/`.
#[test]
fn no_bundled_descriptor_duplicates_a_built_in() {
    let mut loader = DescriptorLoader::new();
    for file in tool_files(&root().join("examples/tools")) {
        let tool = loader.load_file(&file).unwrap_or_else(|e| panic!("{e}"));
        let spec = tool.spec();
        for builtin in nanotool::builtins::all() {
            let template = builtin.spec().map(|s| s.template().source().to_owned());
            assert_ne!(
                template.as_deref(),
                Some(spec.template().source()),
                "{} runs the same command as the built-in `{}`",
                file.display(),
                builtin.name()
            );
            assert_ne!(
                builtin.description(),
                spec.description(),
                "{} describes itself as the built-in `{}` does",
                file.display(),
                builtin.name()
            );
        }
    }
}
