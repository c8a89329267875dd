//! `Toolbox`: registration (names, conflicts, the host deny list for every form), calls, and
//! the provider exports checked against the providers' published rules.

use nanotool_runtime::toolbox::{RegisterError, UnknownTool};
use nanotool_runtime::{
    CommandExecKernel, CommandSpec, CommandTool, KernelSettings, SlotKind, SlotSpec, Tool,
    ToolContext, ToolOutput, Toolbox,
};
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tempfile::TempDir;

fn bundled() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/tools")
}

fn toolbox_in(dir: &Path) -> Toolbox {
    let kernel = CommandExecKernel::new(KernelSettings {
        cwd: dir.to_path_buf(),
        ..KernelSettings::default()
    })
    .unwrap();
    Toolbox::new(kernel)
}

fn wc_tool(name: &str) -> CommandTool {
    CommandTool::new(
        CommandSpec::new(
            name,
            "Count the lines of a file",
            "wc -l <file>",
            vec![SlotSpec::new("file", SlotKind::Path, "The file")],
        )
        .unwrap(),
    )
}

/// A tool with every kind of slot and constraint, for the export rules.
fn rich_tool() -> CommandTool {
    CommandTool::new(
        CommandSpec::new(
            "rich",
            "Search with every kind of slot",
            "grep -rc --max-count=<max> <mode> <pattern> <path>",
            vec![
                SlotSpec::new("max", SlotKind::Integer, "Stop after this many")
                    .with_minimum(1.0)
                    .with_maximum(100.0)
                    .optional(),
                SlotSpec::new(
                    "mode",
                    SlotKind::Enum(vec!["-i".into(), "-w".into()]),
                    "Matching mode",
                )
                .with_default(json!("-w")),
                SlotSpec::new("pattern", SlotKind::String, "A word").with_pattern("^[a-z]+$"),
                SlotSpec::new("path", SlotKind::Path, "Where").with_default(json!(".")),
            ],
        )
        .unwrap(),
    )
}

/// A code tool that runs no command.
struct Echo(&'static str);

impl Tool for Echo {
    fn name(&self) -> &str {
        self.0
    }
    fn description(&self) -> &str {
        "Echo the arguments back"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    }
    fn call(&self, args: &Value, _ctx: &ToolContext<'_>) -> ToolOutput {
        ToolOutput {
            text: args.to_string(),
            is_error: false,
            code: None,
            exit_meaning: None,
            exec: None,
            output_at: None,
            argv: None,
        }
    }
}

fn full_toolbox(dir: &Path) -> Toolbox {
    let mut toolbox = toolbox_in(dir);
    toolbox.register(rich_tool()).unwrap();
    toolbox.register(Echo("echo")).unwrap();
    assert!(toolbox.load_descriptors(&bundled()).is_empty());
    toolbox
        .enable_exec(vec!["ls".into(), "cat".into()])
        .unwrap();
    toolbox
}

// ---------------------------------------------------------------------------------------
// Registration

#[test]
fn register_get_call_and_tools_in_registration_order() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("three.txt"), "a\nb\nc\n").unwrap();
    let mut toolbox = toolbox_in(dir.path());
    toolbox.register(wc_tool("count")).unwrap();
    toolbox.register(Echo("echo")).unwrap();
    toolbox.register_arc(Arc::new(wc_tool("count2"))).unwrap();
    let names: Vec<&str> = toolbox.tools().iter().map(|t| t.name()).collect();
    assert_eq!(names, ["count", "echo", "count2"]);
    assert_eq!(
        toolbox.get("echo").unwrap().description(),
        "Echo the arguments back"
    );
    assert!(toolbox.get("nope").is_none());

    let out = toolbox
        .call("count", &json!({"file": "three.txt"}), None)
        .unwrap();
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.starts_with("exit: 0"), "{}", out.text);
    assert!(out.text.contains("3 ./three.txt"), "{}", out.text);
    assert_eq!(out.exec.unwrap().exit_code, 0);

    let refused = toolbox
        .call("count", &json!({"file": "/etc/passwd"}), None)
        .unwrap();
    assert!(refused.is_error);
    assert_eq!(refused.code, Some(614));
}

#[test]
fn an_unknown_name_is_unknown_tool_with_the_closest_names() {
    let dir = TempDir::new().unwrap();
    let toolbox = full_toolbox(dir.path());
    let err: UnknownTool = toolbox.call("count_line", &json!({}), None).unwrap_err();
    assert_eq!(err.name, "count_line");
    assert_eq!(
        err.suggestions.first().map(String::as_str),
        Some("count_lines")
    );
    assert!(
        err.to_string()
            .starts_with("unknown tool `count_line`; did you mean `count_lines`"),
        "{err}"
    );
    let far = toolbox.call("zzzzzzzzzz", &json!({}), None).unwrap_err();
    assert!(far.suggestions.is_empty());
    assert_eq!(far.to_string(), "unknown tool `zzzzzzzzzz`");
}

#[test]
fn name_conflicts_are_refused_across_every_form() {
    let dir = TempDir::new().unwrap();
    let mut toolbox = toolbox_in(dir.path());
    toolbox.register(wc_tool("count_lines")).unwrap();
    assert!(matches!(
        toolbox.register(Echo("count_lines")),
        Err(RegisterError::NameConflict(name)) if name == "count_lines"
    ));
    // A descriptor with a registered tool's name is a 613 naming its file; the others load.
    let errors = toolbox.load_descriptors(&bundled());
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].to_string().contains("count_lines.tool.json"),
        "{}",
        errors[0]
    );
    assert!(toolbox.get("git_log").is_some());
    // A code tool after the descriptors cannot take a descriptor's name either.
    assert!(matches!(
        toolbox.register(Echo("git_log")),
        Err(RegisterError::NameConflict(_))
    ));
    // exec is a name like any other.
    toolbox.register(Echo("exec")).unwrap();
    assert!(matches!(
        toolbox.enable_exec(vec!["ls".into()]),
        Err(RegisterError::NameConflict(name)) if name == "exec"
    ));
}

#[test]
fn tool_names_are_validated() {
    let dir = TempDir::new().unwrap();
    let mut toolbox = toolbox_in(dir.path());
    for bad in ["", "has space", "dot.name", "é", &"x".repeat(65)] {
        let name: &'static str = Box::leak(bad.to_owned().into_boxed_str());
        assert!(
            matches!(
                toolbox.register(Echo(name)),
                Err(RegisterError::InvalidName(_))
            ),
            "{bad:?}"
        );
    }
    let ok: &'static str = Box::leak("A-z_09".repeat(10).into_boxed_str());
    toolbox.register(Echo(&ok[..60])).unwrap();
}

#[test]
fn the_host_deny_list_applies_to_code_tools_and_descriptors_at_registration() {
    let dir = TempDir::new().unwrap();
    let mut toolbox = toolbox_in(dir.path());
    toolbox.deny_binaries(["wc", "git"]);
    let err = toolbox.register(wc_tool("count")).unwrap_err();
    assert!(matches!(err, RegisterError::Denied { ref tool, .. } if tool == "count"));
    assert!(err.to_string().contains("wc"), "{err}");

    let errors = toolbox.load_descriptors(&bundled());
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 2, "{text:#?}");
    assert!(text[0].contains("count_lines.tool.json"), "{text:#?}");
    assert!(text[1].contains("git_log.tool.json"), "{text:#?}");
    assert!(toolbox.get("count_lines").is_none());
    assert!(toolbox.get("head_file").is_some());
}

#[test]
fn a_binary_denied_after_registration_is_refused_at_call_time() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("f"), "x\n").unwrap();
    let mut toolbox = toolbox_in(dir.path());
    toolbox.register(wc_tool("count")).unwrap();
    toolbox.deny_binaries(["wc"]);
    let out = toolbox.call("count", &json!({"file": "f"}), None).unwrap();
    assert!(out.is_error);
    assert_eq!(out.code, Some(614));
    assert!(out.exec.is_none(), "nothing ran");
    assert!(out.text.contains("wc"), "{}", out.text);
    // Wherever the template runs it: behind a wrapper too.
    let wrapped = CommandTool::new(
        CommandSpec::new(
            "count_slowly",
            "Count the lines of a file, niced",
            "nice wc -l <file>",
            vec![SlotSpec::new("file", SlotKind::Path, "The file")],
        )
        .unwrap(),
    );
    let mut toolbox = toolbox_in(dir.path());
    toolbox.register(wrapped).unwrap();
    toolbox.deny_binaries(["wc"]);
    let out = toolbox
        .call("count_slowly", &json!({"file": "f"}), None)
        .unwrap();
    assert!(out.is_error && out.exec.is_none(), "{}", out.text);
    assert_eq!(out.code, Some(614));
    assert!(out.text.contains("`wc`"), "{}", out.text);
}

#[test]
fn exec_is_only_there_when_enabled_and_its_allowlist_cannot_hold_denied_binaries() {
    let dir = TempDir::new().unwrap();
    let mut toolbox = toolbox_in(dir.path());
    assert!(toolbox.get("exec").is_none());
    for denied in ["rm", "bash", "/bin/sh", "curl"] {
        let err = toolbox
            .enable_exec(vec!["ls".into(), denied.into()])
            .unwrap_err();
        assert!(err.to_string().contains("deny list"), "{denied}: {err}");
    }
    toolbox.deny_binaries(["cat"]);
    assert!(toolbox.enable_exec(vec!["cat".into()]).is_err());
    for bad in ["", "ls -l", "ls;id", "-x"] {
        assert!(toolbox.enable_exec(vec![bad.into()]).is_err(), "{bad:?}");
    }
    assert!(
        toolbox.get("exec").is_none(),
        "a refused allowlist enables nothing"
    );
    toolbox.enable_exec(vec!["ls".into()]).unwrap();
    assert!(toolbox.get("exec").is_some());
}

#[test]
fn a_toolbox_is_send_and_sync_and_serves_calls_from_many_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Toolbox>();
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("f"), "1\n2\n").unwrap();
    let mut toolbox = toolbox_in(dir.path());
    toolbox.register(wc_tool("count")).unwrap();
    let toolbox = Arc::new(toolbox);
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let toolbox = Arc::clone(&toolbox);
            std::thread::spawn(move || toolbox.call("count", &json!({"file": "f"}), None).unwrap())
        })
        .collect();
    for handle in handles {
        assert!(handle.join().unwrap().text.contains("2 ./f"));
    }
}

// ---------------------------------------------------------------------------------------
// Exports, against the providers' published rules

/// Visits every subschema of a schema (the root, properties, anyOf branches, items).
fn each_schema<'v>(schema: &'v Value, out: &mut Vec<&'v Value>) {
    out.push(schema);
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for prop in props.values() {
            each_schema(prop, out);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            for branch in branches {
                each_schema(branch, out);
            }
        }
    }
    if let Some(items) = schema.get("items") {
        each_schema(items, out);
    }
}

/// The rules every provider shares (STYLE: "Schemas that every provider accepts").
fn assert_portable(name: &Value, schema: &Value) {
    let name = name.as_str().unwrap();
    assert!(
        (1..=64).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
        "name {name:?} matches ^[A-Za-z0-9_-]{{1,64}}$"
    );
    assert_eq!(schema["type"], "object", "{name}: object root");
    assert!(schema["properties"].is_object(), "{name}: properties");
    assert!(schema["required"].is_array(), "{name}: required");
    assert_eq!(schema["additionalProperties"], false, "{name}");
    let mut all = Vec::new();
    each_schema(schema, &mut all);
    for sub in all {
        assert!(!sub["type"].is_array(), "{name}: no type arrays: {sub}");
        assert!(sub.get("$schema").is_none(), "{name}: no $schema: {sub}");
        assert!(sub.get("title").is_none(), "{name}: no title: {sub}");
        if sub["type"] == "object" {
            assert_eq!(sub["additionalProperties"], false, "{name}: {sub}");
        }
    }
}

/// The keys of a JSON object, sorted: the order a map keeps depends on serde_json's features
/// (`preserve_order`, which a dependency may turn on), never on what the tools export.
fn sorted_keys(object: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = object
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

#[test]
fn mcp_entries_have_input_and_for_command_tools_output_schemas() {
    let dir = TempDir::new().unwrap();
    let toolbox = full_toolbox(dir.path());
    let entries = toolbox.mcp_tools();
    assert_eq!(entries.len(), toolbox.tools().len());
    for entry in &entries {
        let keys = sorted_keys(entry);
        assert_portable(&entry["name"], &entry["inputSchema"]);
        assert!(entry["description"].is_string());
        if entry["name"] == "echo" {
            assert_eq!(keys, ["annotations", "description", "inputSchema", "name"]);
            continue;
        }
        let out = &entry["outputSchema"];
        assert_eq!(out["type"], "object", "{entry}");
        assert_eq!(out["additionalProperties"], false);
        for (field, ty) in [
            ("exit_code", "integer"),
            ("output", "string"),
            ("truncated", "boolean"),
            ("timed_out", "boolean"),
        ] {
            assert_eq!(out["properties"][field]["type"], ty);
        }
        let mut required: Vec<&str> = out["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        required.sort();
        assert_eq!(
            required,
            ["confined", "exit_code", "output", "timed_out", "truncated"]
        );
    }
    let rich = entries.iter().find(|e| e["name"] == "rich").unwrap();
    assert_eq!(
        rich["inputSchema"],
        rich_tool().spec().json_schema_portable()
    );
}

/// `CommandSpec::json_schema` plus an explicit empty `required` (providers want the key).
trait Portable {
    fn json_schema_portable(&self) -> Value;
}

impl Portable for CommandSpec {
    fn json_schema_portable(&self) -> Value {
        let mut schema = self.json_schema();
        if schema.get("required").is_none() {
            schema["required"] = json!([]);
        }
        schema
    }
}

#[test]
fn openai_function_tools_plain_and_strict() {
    let dir = TempDir::new().unwrap();
    let toolbox = full_toolbox(dir.path());
    for tool in toolbox.openai_tools(false) {
        assert_eq!(tool["type"], "function");
        let f = &tool["function"];
        assert_eq!(sorted_keys(f), ["description", "name", "parameters"]);
        assert_portable(&f["name"], &f["parameters"]);
    }
    let plain = toolbox.openai_tools(false);
    let rich_plain = &plain
        .iter()
        .find(|t| t["function"]["name"] == "rich")
        .unwrap()["function"];
    assert_eq!(
        rich_plain["parameters"]["properties"]["max"]["maximum"],
        100
    );

    for tool in toolbox.openai_tools(true) {
        let f = &tool["function"];
        assert_eq!(f["strict"], true);
        let params = &f["parameters"];
        assert_portable(&f["name"], params);
        assert!(params.get("anyOf").is_none(), "root is not anyOf");
        // Every property is required; optional ones are nullable through anyOf.
        let props = sorted_keys(&params["properties"]);
        let required: Vec<&str> = params["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let mut sorted = required.clone();
        sorted.sort();
        assert_eq!(props, sorted, "{f}");
        let mut all = Vec::new();
        each_schema(params, &mut all);
        for sub in all {
            for refused in ["default", "minimum", "maximum", "pattern"] {
                assert!(
                    sub.get(refused).is_none(),
                    "strict takes no {refused}: {sub}"
                );
            }
        }
    }
    let strict = toolbox.openai_tools(true);
    let rich = &strict
        .iter()
        .find(|t| t["function"]["name"] == "rich")
        .unwrap()["function"];
    let props = &rich["parameters"]["properties"];
    let schema_of_rich = rich_tool().input_schema();
    let optional: Vec<&str> = ["max", "mode", "path"].to_vec();
    for name in optional {
        let branches = props[name]["anyOf"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: {props}"));
        assert_eq!(branches.len(), 2);
        assert_eq!(branches[1], json!({"type": "null"}));
        assert_eq!(
            branches[0]["type"],
            schema_of_rich["properties"][name]["type"]
        );
        assert!(props[name]["description"].is_string());
    }
    assert_eq!(props["mode"]["anyOf"][0]["enum"], json!(["-i", "-w"]));
    assert!(
        props["pattern"].get("anyOf").is_none(),
        "required stays plain"
    );
    let max = props["max"]["description"].as_str().unwrap();
    assert!(
        max.contains("minimum: 1") && max.contains("maximum: 100"),
        "{max}"
    );
    let mode = props["mode"]["description"].as_str().unwrap();
    assert!(mode.contains("default: \"-w\""), "{mode}");
    let pattern = props["pattern"]["description"].as_str().unwrap();
    assert!(pattern.contains("pattern: "), "{pattern}");
}

#[test]
fn openai_strict_null_is_treated_as_absent_by_the_runtime() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let mut toolbox = toolbox_in(dir.path());
    toolbox.register(rich_tool()).unwrap();
    // What a strict-mode model sends: every property, optional ones null.
    let out = toolbox
        .call(
            "rich",
            &json!({"max": null, "mode": null, "pattern": "hello", "path": null}),
            None,
        )
        .unwrap();
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("./a.txt:1"), "{}", out.text);
}

#[test]
fn anthropic_tools_plain_and_strict() {
    let dir = TempDir::new().unwrap();
    let toolbox = full_toolbox(dir.path());
    for tool in toolbox.anthropic_tools() {
        assert_eq!(sorted_keys(&tool), ["description", "input_schema", "name"]);
        assert_portable(&tool["name"], &tool["input_schema"]);
    }
    for tool in toolbox.anthropic_tools_strict() {
        assert_eq!(tool["strict"], true);
        assert_portable(&tool["name"], &tool["input_schema"]);
        let mut all = Vec::new();
        each_schema(&tool["input_schema"], &mut all);
        for sub in all {
            assert!(
                sub.get("minimum").is_none() && sub.get("maximum").is_none(),
                "{sub}"
            );
        }
    }
    let strict = toolbox.anthropic_tools_strict();
    let git = strict.iter().find(|t| t["name"] == "git_log").unwrap();
    let count = git["input_schema"]["properties"]["count"]["description"]
        .as_str()
        .unwrap();
    assert!(count.contains("minimum: 1; maximum: 200"), "{count}");
}

#[test]
fn exports_strip_schema_and_title_from_a_code_tool() {
    struct Titled;
    impl Tool for Titled {
        fn name(&self) -> &str {
            "titled"
        }
        fn description(&self) -> &str {
            "A tool whose schema came from a generator"
        }
        fn input_schema(&self) -> Value {
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": "Args",
                "type": "object",
                "properties": {"q": {"type": "string", "title": "Q", "description": "Query"}},
                "required": ["q"]
            })
        }
        fn call(&self, _: &Value, _: &ToolContext<'_>) -> ToolOutput {
            unreachable!("not called")
        }
    }
    let dir = TempDir::new().unwrap();
    let mut toolbox = toolbox_in(dir.path());
    toolbox.register(Titled).unwrap();
    let mcp = toolbox.mcp_tools();
    assert_portable(&mcp[0]["name"], &mcp[0]["inputSchema"]);
    let anthropic = toolbox.anthropic_tools();
    assert_portable(&anthropic[0]["name"], &anthropic[0]["input_schema"]);
    let openai = toolbox.openai_tools(true);
    let strict = &openai[0]["function"];
    assert_portable(&strict["name"], &strict["parameters"]);
}

#[test]
fn a_call_output_carries_the_argv_that_ran() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
    let toolbox = full_toolbox(dir.path());
    let out = toolbox
        .call("exec", &json!({"command": "cat a.txt"}), None)
        .unwrap();
    assert_eq!(out.argv, Some(vec!["cat".to_owned(), "a.txt".to_owned()]));
    // Refused before anything ran: no argv.
    let out = toolbox
        .call("exec", &json!({"command": "cat /etc/passwd"}), None)
        .unwrap();
    assert_eq!(out.code, Some(614));
    assert_eq!(out.argv, None);
}

#[test]
fn the_toolbox_and_a_plain_host_describe_a_command_tool_alike() {
    let dir = TempDir::new().unwrap();
    let toolbox = full_toolbox(dir.path());
    let entries = toolbox.mcp_tools();
    for (tool, entry) in toolbox.tools().iter().zip(&entries) {
        if tool.name() == "echo" {
            continue;
        }
        assert_eq!(
            &nanotool_runtime::export::mcp_definition(tool.as_ref(), true),
            entry
        );
    }
}

#[test]
fn a_name_longer_than_any_tool_name_gets_no_suggestion() {
    let dir = TempDir::new().unwrap();
    let toolbox = full_toolbox(dir.path());
    assert!(!toolbox.closest_names("eco").is_empty());
    let long = format!("echo{}", "o".repeat(80));
    assert!(toolbox.closest_names(&long).is_empty());
    let err = toolbox.call(&long, &json!({}), None).unwrap_err();
    assert!(err.suggestions.is_empty(), "{err}");
}
