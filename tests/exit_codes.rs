//! Exit statuses that are not failures, in both forms: a tool declares them (the macro's
//! `exit_codes(...)`, a descriptor's `"exit_codes"`), a call that ends with one is not an
//! error and its text says what the status means; any other status, a timeout or a kill
//! stays a failure. The built-in `grep` declares its 1 ("no match") and skips `.git`.

use nanotool::builtins::Grep;
use nanotool::{CommandStruct, DescriptorLoader, WorkPath, command_tool};
use nanotool_runtime::{
    CODE_INVALID_DESCRIPTOR, CommandExecKernel, CommandTool, KernelSettings, Tool, ToolContext,
    ToolOutput,
};
use serde_json::{Value, json};
use std::path::Path;

/// Compares two files.
#[command_tool("diff -u <old> <new>", exit_codes(1 = "the files differ"))]
pub struct Differ {
    /// The file before
    pub old: WorkPath,
    /// The file after
    pub new: WorkPath,
}

fn descriptor() -> CommandTool {
    let text = json!({
        "name": "differ_file",
        "description": "Compares two files.",
        "command": "diff -u <old> <new>",
        "exit_codes": {"1": "the files differ"},
        "arguments": {
            "old": {"type": "path", "description": "The file before"},
            "new": {"type": "path", "description": "The file after"}
        }
    });
    let spec = DescriptorLoader::new()
        .parse(Path::new("differ.tool.json"), text.to_string().as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    CommandTool::new(spec)
}

fn call(tool: &dyn Tool, dir: &Path, args: Value) -> ToolOutput {
    let kernel = CommandExecKernel::new(KernelSettings {
        cwd: dir.to_path_buf(),
        ..KernelSettings::default()
    })
    .unwrap();
    tool.call(
        &args,
        &ToolContext {
            kernel: &kernel,
            cancel: None,
        },
    )
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    std::fs::write(dir.path().join("b.txt"), "two\n").unwrap();
    dir
}

#[test]
fn a_declared_status_is_no_failure_in_both_forms_and_others_still_are() {
    let dir = workspace();
    let code = Differ::tool();
    let descriptor = descriptor();
    for tool in [&code as &dyn Tool, &descriptor] {
        let name = tool.name();
        // 1: the files differ, which the tool declares.
        let out = call(tool, dir.path(), json!({"old": "a.txt", "new": "b.txt"}));
        assert!(!out.is_error, "{name}: {}", out.text);
        assert!(
            out.text.starts_with("exit: 1 (the files differ)\n"),
            "{name}: {}",
            out.text
        );
        assert!(out.text.contains("+two"), "{name}: {}", out.text);
        assert_eq!(out.exit_meaning.as_deref(), Some("the files differ"));
        // 0: the same file, no meaning to add.
        let out = call(tool, dir.path(), json!({"old": "a.txt", "new": "a.txt"}));
        assert!(!out.is_error, "{name}: {}", out.text);
        assert!(out.text.starts_with("exit: 0\n"), "{name}: {}", out.text);
        assert_eq!(out.exit_meaning, None);
        // 2: a missing file, which the tool does not declare: a failure.
        let out = call(tool, dir.path(), json!({"old": "a.txt", "new": "gone.txt"}));
        assert!(out.is_error, "{name}: {}", out.text);
        assert!(out.text.starts_with("exit: 2\n"), "{name}: {}", out.text);
        assert_eq!(out.exit_meaning, None);
    }
    assert_eq!(
        code.spec().unwrap().exit_codes(),
        descriptor.spec().exit_codes()
    );
}

#[test]
fn builtin_grep_finding_nothing_is_no_failure_and_skips_git() {
    let dir = workspace();
    std::fs::create_dir_all(dir.path().join(".git/hooks")).unwrap();
    std::fs::write(dir.path().join(".git/hooks/pre-commit.sample"), "one\n").unwrap();
    let grep = Grep::tool();
    let out = call(&grep, dir.path(), json!({"pattern": "one"}));
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("./a.txt:1:one"), "{}", out.text);
    assert!(!out.text.contains(".git"), "grep read .git: {}", out.text);
    let out = call(&grep, dir.path(), json!({"pattern": "three"}));
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(out.text, "exit: 1 (no match)\noutput: ");
    // A grep error (2: a file that does not exist) stays a failure.
    let out = call(&grep, dir.path(), json!({"pattern": "one", "path": "gone"}));
    assert!(out.is_error, "{}", out.text);
    assert!(out.text.starts_with("exit: 2\n"), "{}", out.text);
}

#[test]
fn each_bad_exit_codes_field_is_a_613_naming_the_file_and_the_status() {
    let cases: &[(Value, &str, &str)] = &[
        (
            json!({"0": "same"}),
            "exit_codes.0",
            "0 is a success already",
        ),
        (json!({"127": "missing"}), "exit_codes.127", "124 timed out"),
        (json!({"one": "x"}), "exit_codes.one", "not an exit status"),
        (json!({"+1": "x"}), "exit_codes.+1", "not an exit status"),
        (json!({"1": 5}), "exit_codes.1", "is a number"),
        (json!({"1": ""}), "exit_codes.1", "is empty"),
        (json!(["1"]), "exit_codes", "write an object"),
    ];
    for (field, pointer, expected) in cases {
        let text = json!({
            "name": "differ_file",
            "description": "Compares two files.",
            "command": "diff -u a.txt b.txt",
            "exit_codes": field,
        });
        let err = DescriptorLoader::new()
            .parse(Path::new("differ.tool.json"), text.to_string().as_bytes())
            .expect_err(&field.to_string());
        assert_eq!(err.code(), CODE_INVALID_DESCRIPTOR);
        assert_eq!(err.pointer.as_deref(), Some(*pointer), "{err}");
        let message = err.to_string();
        assert!(
            message.contains("differ.tool.json") && message.contains(expected),
            "{field}: {message}"
        );
    }
}
