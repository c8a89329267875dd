//! Tools written with `#[command_tool]`, run for real through the kernel in a temp directory:
//! the built-ins (`grep`, `find`, `sed_print`) and a user-style tool with an enum, an optional
//! integer and defaults. Typed calls and JSON calls take the same path.

use nanotool::builtins::{self, Find, Grep, SedPrint};
use nanotool::{
    CODE_INVALID_ARGUMENTS, CommandExecKernel, CommandStruct, KernelSettings, SlotEnum, Tool,
    ToolContext, WorkPath, command_tool,
};
use serde_json::json;

fn workspace() -> (tempfile::TempDir, CommandExecKernel) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("src")).expect("src");
    std::fs::write(
        dir.path().join("src/notes.txt"),
        "alpha\nneedle here\ngamma\n",
    )
    .expect("notes");
    std::fs::write(dir.path().join("top.md"), "needle on top\n").expect("top");
    let kernel = CommandExecKernel::new(KernelSettings {
        cwd: dir.path().to_path_buf(),
        ..KernelSettings::default()
    })
    .expect("kernel");
    (dir, kernel)
}

fn call(
    tool: &dyn Tool,
    kernel: &CommandExecKernel,
    args: serde_json::Value,
) -> nanotool::ToolOutput {
    tool.call(
        &args,
        &ToolContext {
            kernel,
            cancel: None,
        },
    )
}

#[test]
fn builtins_are_grep_find_sed_print() {
    let tools = builtins::all();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["grep", "find", "sed_print"]);
    for tool in &tools {
        let schema = tool.input_schema();
        assert_eq!(schema["type"], "object", "{}", tool.name());
        assert_eq!(schema["additionalProperties"], false, "{}", tool.name());
        assert!(!tool.description().is_empty());
        assert!(tool.spec().is_some(), "{} is a command tool", tool.name());
    }
    let grep = Grep::tool().input_schema();
    assert_eq!(grep["required"], json!(["pattern"]));
    assert_eq!(grep["properties"]["path"]["default"], ".");
    let sed = SedPrint::tool().input_schema();
    assert_eq!(sed["properties"]["range"]["pattern"], r"^\d+(,\d+)?$");
}

#[test]
fn grep_finds_lines_typed_and_from_json() {
    let (_dir, kernel) = workspace();
    let typed = Grep {
        pattern: "needle".into(),
        path: WorkPath::from("src"),
    }
    .run(&kernel)
    .expect("valid call");
    assert_eq!(typed.exit_code, 0, "{}", typed.output);
    assert!(
        typed.output.contains("./src/notes.txt:2:needle here"),
        "{}",
        typed.output
    );

    let out = call(&Grep::tool(), &kernel, json!({"pattern": "needle"}));
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text.contains("./src/notes.txt:2:needle here"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("./top.md:1:needle on top"),
        "{}",
        out.text
    );
}

#[test]
fn grep_without_match_ran_and_reports_its_exit_1() {
    // grep declares its 1 as no failure (`exit_codes(1 = "no match")`): it ran, no 614, not
    // an error, and the text says what the status means.
    let (_dir, kernel) = workspace();
    let out = call(&Grep::tool(), &kernel, json!({"pattern": "absent-word"}));
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(out.code, None, "{}", out.text);
    assert!(out.text.starts_with("exit: 1 (no match)\n"), "{}", out.text);
    assert_eq!(out.exec.expect("ran").exit_code, 1);
}

#[test]
fn injections_are_refused_with_614() {
    let (_dir, kernel) = workspace();
    for (tool, args) in [
        (
            Grep::tool().name().to_owned(),
            json!({"pattern": "x", "path": "../.."}),
        ),
        ("grep".into(), json!({"pattern": "-f/etc/passwd"})),
        ("grep".into(), json!({"pattern": "--include=x"})),
        ("find".into(), json!({"pattern": "x", "path": "-delete"})),
        ("find".into(), json!({"pattern": "x", "path": "/etc"})),
        (
            "sed_print".into(),
            json!({"range": "1e id", "path": "top.md"}),
        ),
        (
            "sed_print".into(),
            json!({"range": "1", "path": "--expression=1e"}),
        ),
        (
            "sed_print".into(),
            json!({"range": "1", "path": "/etc/passwd"}),
        ),
    ] {
        let tools = builtins::all();
        let tool = tools.iter().find(|t| t.name() == tool).expect("built-in");
        let out = call(tool.as_ref(), &kernel, args.clone());
        assert!(out.is_error, "{} {args} ran: {}", tool.name(), out.text);
        assert_eq!(out.code, Some(CODE_INVALID_ARGUMENTS), "{args}");
        assert!(out.exec.is_none(), "{args}: nothing may run");
    }
    // Shell characters are inert in one argv element, and `-name` takes its value whatever
    // it begins with: these run, and nothing is run or deleted through them.
    let tools = builtins::all();
    for (tool, args) in [
        ("grep", json!({"pattern": "x;id"})),
        ("find", json!({"pattern": "-delete"})),
    ] {
        let tool = tools.iter().find(|t| t.name() == tool).expect("built-in");
        let out = call(tool.as_ref(), &kernel, args.clone());
        assert_ne!(
            out.code,
            Some(CODE_INVALID_ARGUMENTS),
            "{args}: {}",
            out.text
        );
        assert!(out.exec.is_some(), "{args}");
    }
    assert!(
        _dir.path().join("top.md").exists(),
        "find -name -delete deleted a file"
    );
    let typed = SedPrint {
        range: "1;e id".into(),
        path: WorkPath::from("top.md"),
    }
    .run(&kernel);
    let err = typed.expect_err("a typed call is validated like a JSON call");
    assert_eq!(err.slot(), "range");
    assert_eq!(err.code(), CODE_INVALID_ARGUMENTS);
}

#[test]
fn find_lists_matching_files() {
    let (_dir, kernel) = workspace();
    let out = call(&Find::tool(), &kernel, json!({"pattern": "*.txt"}));
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("./src/notes.txt"), "{}", out.text);
    assert!(!out.text.contains("top.md"), "{}", out.text);
}

#[test]
fn sed_print_prints_a_range() {
    let (_dir, kernel) = workspace();
    let result = SedPrint {
        range: "2,3".into(),
        path: WorkPath::from("src/notes.txt"),
    }
    .run(&kernel)
    .expect("valid call");
    assert_eq!(result.exit_code, 0);
    assert_eq!(result.output, "needle here\ngamma\n");
}

#[test]
fn from_args_validates_then_types_with_defaults() {
    let (dir, _kernel) = workspace();
    let root = dir.path().canonicalize().unwrap();
    let grep = Grep::from_args(&json!({"pattern": "x"}), &root).expect("valid");
    assert_eq!(
        grep,
        Grep {
            pattern: "x".into(),
            path: WorkPath::from(".")
        }
    );
    // `null` is absent, as for a JSON call: the default applies.
    let grep = Grep::from_args(&json!({"pattern": "x", "path": null}), &root).expect("valid");
    assert_eq!(grep.path, WorkPath::from("."));
    let err = Grep::from_args(&json!({"pattern": "x", "path": "/etc"}), &root).unwrap_err();
    assert_eq!(err.slot(), "path");
    let err = SedPrint::from_args(&json!({"range": "x", "path": "top.md"}), &root).unwrap_err();
    assert_eq!(err.slot(), "range");
}

/// How `ls` lists.
#[derive(SlotEnum, Debug, Clone, Copy, PartialEq)]
enum Listing {
    /// One name per line.
    #[slot(value = "-1")]
    OnePerLine,
    /// Everything, dotfiles included.
    #[slot(value = "-A")]
    All,
}

/// Count matching lines, stopping early if asked.
#[command_tool("grep -c --max-count=<limit> <pattern> <file>", name = "count-matches")]
#[derive(Debug, PartialEq)]
struct CountMatches {
    /// Text to count
    pattern: String,
    /// File to read
    #[slot(default = "top.md")]
    file: WorkPath,
    /// Stop after this many matches
    #[slot(minimum = 1, maximum = 100)]
    limit: Option<u32>,
}

/// List a directory.
#[command_tool("ls <mode> <dir>")]
struct ListDir {
    /// Listing format
    #[slot(default = Listing::OnePerLine)]
    mode: Listing,
    /// Directory to list
    #[slot(default = ".")]
    dir: WorkPath,
}

#[test]
fn user_tools_with_enum_option_and_defaults() {
    let (dir, kernel) = workspace();
    let root = dir.path().canonicalize().unwrap();
    assert_eq!(CountMatches::tool().name(), "count-matches");
    assert_eq!(ListDir::tool().name(), "list_dir");

    let absent = CountMatches {
        pattern: "needle".into(),
        file: "src/notes.txt".into(),
        limit: None,
    };
    assert_eq!(
        absent.argv(&root).unwrap().as_slice(),
        ["grep", "-c", "needle", "./src/notes.txt"]
    );
    let given = CountMatches {
        limit: Some(5),
        ..absent
    };
    assert_eq!(
        given.argv(&root).unwrap().as_slice(),
        ["grep", "-c", "--max-count=5", "needle", "./src/notes.txt"]
    );
    let out = call(
        &CountMatches::tool(),
        &kernel,
        json!({"pattern": "needle", "limit": 0}),
    );
    assert_eq!(
        out.code,
        Some(CODE_INVALID_ARGUMENTS),
        "minimum holds: {}",
        out.text
    );

    let typed = CountMatches::from_args(&json!({"pattern": "needle", "limit": 2}), &root).unwrap();
    assert_eq!(typed.limit, Some(2));
    assert_eq!(typed.file, WorkPath::from("top.md"));

    let out = call(&ListDir::tool(), &kernel, json!({}));
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text.contains("src") && out.text.contains("top.md"),
        "{}",
        out.text
    );
    let schema = ListDir::tool().input_schema();
    assert_eq!(schema["properties"]["mode"]["enum"], json!(["-1", "-A"]));
    assert_eq!(schema["properties"]["mode"]["default"], "-1");
    let out = call(&ListDir::tool(), &kernel, json!({"mode": "-R"}));
    assert_eq!(out.code, Some(CODE_INVALID_ARGUMENTS), "{}", out.text);
    let listing = ListDir::from_args(&json!({"mode": "-A"}), &root).unwrap();
    assert_eq!(listing.mode, Listing::All);
}

/// A flag the model picks from author-written values.
#[derive(SlotEnum)]
pub enum PyFlag {
    /// Unbuffered.
    #[slot(value = "-u")]
    Unbuffered,
    /// Code from the next argument.
    #[slot(value = "-c")]
    Code,
}

/// Compiles (the macro cannot see an enum's values), but `-c` would make `arg` python's code.
#[command_tool("python3 <flag> <arg>")]
pub struct PyWithFlag {
    /// How python3 runs
    pub flag: PyFlag,
    /// An argument
    pub arg: String,
}

/// Compiles, but its default names a file outside the working directory.
#[command_tool("wc -l <file>")]
pub struct CountOutside {
    /// The file
    #[slot(default = "/etc/passwd")]
    pub file: WorkPath,
}

#[test]
fn a_code_tool_the_runtime_refuses_is_refused_at_registration_and_never_runs() {
    let (dir, kernel) = workspace();
    let mut toolbox = nanotool::Toolbox::new(kernel);
    for (tool, what) in [
        (PyWithFlag::tool(), "`flag` is `-u`"),
        (CountOutside::tool(), "default"),
    ] {
        let name = tool.name().to_owned();
        let err = toolbox.register(tool).expect_err(&name);
        let text = err.to_string();
        assert!(
            text.contains("613") && text.contains(what),
            "{name}: {text}"
        );
        assert!(toolbox.get(&name).is_none(), "{name} was registered");
    }
    assert!(PyWithFlag::command_spec().is_err());
    // Called directly, it refuses to run anything.
    let kernel = CommandExecKernel::new(KernelSettings {
        cwd: dir.path().to_path_buf(),
        ..KernelSettings::default()
    })
    .unwrap();
    let out = call(
        &PyWithFlag::tool(),
        &kernel,
        json!({"flag": "-c", "arg": "open('pwned','w')"}),
    );
    assert!(out.is_error && out.exec.is_none(), "{}", out.text);
    assert!(!dir.path().join("pwned").exists());
}

/// Bounds wider than the field type's own range.
#[command_tool("grep -rn --max-count=<n> needle .")]
pub struct WideBounds {
    /// At most this many matches
    #[slot(minimum = -5, maximum = 1000)]
    pub n: u8,
}

#[test]
fn author_bounds_narrow_the_field_type_never_widen_it() {
    let (dir, kernel) = workspace();
    let schema = WideBounds::tool().input_schema();
    assert_eq!(schema["properties"]["n"]["minimum"], json!(0), "{schema}");
    assert_eq!(schema["properties"]["n"]["maximum"], json!(255), "{schema}");
    for n in [-1, 500] {
        let out = call(&WideBounds::tool(), &kernel, json!({ "n": n }));
        assert_eq!(out.code, Some(CODE_INVALID_ARGUMENTS), "{n}: {}", out.text);
        let root = dir.path().canonicalize().unwrap();
        assert!(WideBounds::from_args(&json!({ "n": n }), &root).is_err());
    }
    let out = call(&WideBounds::tool(), &kernel, json!({"n": 1}));
    assert_eq!(out.code, None, "{}", out.text);
}
