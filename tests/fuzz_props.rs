//! The fuzz targets' properties (`fuzz/fuzz_targets/`), as proptests the normal suite runs:
//! descriptor parsing and ExecTool's tokenising never panic, a descriptor error is a 613 that
//! names its file, and what ExecTool accepts is argv of an allowlisted binary with no
//! metacharacter and no absolute path. Generators lean on the inputs that found bugs before
//! (non-ASCII right after a `-`, JSON with the format's own keys).

use nanotool_runtime::{DescriptorLoader, ExecTool};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn root() -> PathBuf {
    std::env::temp_dir()
}

fn exec_tool() -> &'static ExecTool {
    static TOOL: OnceLock<ExecTool> = OnceLock::new();
    TOOL.get_or_init(|| {
        let allow = [
            "ls", "cat", "grep", "find", "sed", "git", "sort", "python3", "wc", "tar",
        ];
        ExecTool::new(allow.iter().map(|s| s.to_string()).collect()).expect("a valid allowlist")
    })
}

/// What ExecTool may accept, whatever the input.
fn check_exec(command: &str) -> Result<(), TestCaseError> {
    if let Ok(argv) = exec_tool().check(command, &root()) {
        prop_assert!(
            exec_tool().allowlist().contains(&argv[0]),
            "{command:?} -> {argv:?}"
        );
        for arg in &argv {
            prop_assert!(!arg.is_empty(), "{command:?} -> {argv:?}");
            prop_assert!(
                !arg.chars()
                    .any(|c| c.is_whitespace() || c.is_control() || "'\"`;|&$<>".contains(c)),
                "{command:?} -> {argv:?}"
            );
            prop_assert!(!arg.starts_with('/'), "{command:?} -> {argv:?}");
        }
    }
    Ok(())
}

/// What a descriptor parse may return, whatever the bytes.
fn check_descriptor(bytes: &[u8]) -> Result<(), TestCaseError> {
    let file = Path::new("fuzzed.tool.json");
    match DescriptorLoader::new().parse(file, bytes) {
        Ok(spec) => {
            let schema = spec.json_schema();
            prop_assert_eq!(&schema["type"], "object");
            let _ = spec.render(&serde_json::json!({}), &root());
        }
        Err(error) => {
            prop_assert_eq!(error.code(), 613);
            prop_assert!(error.to_string().contains("fuzzed.tool.json"), "{}", error);
        }
    }
    Ok(())
}

/// Exec words: options, operands, paths, and the characters that broke slicing before.
fn exec_word() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("-".to_owned()),
        Just("--".to_owned()),
        "-[a-zA-Z]{1,3}",
        "--[a-z-]{1,12}(=[a-z./:]{0,8})?",
        "-[\u{80}-\u{7ff}\u{800}-\u{ffff}][a-z]{0,3}",
        "-[a-z][\u{80}-\u{ffff}]{1,2}",
        "[a-z./]{1,10}",
        "[a-z]{1,4}:[a-z./]{0,6}",
        "\\.\\./[a-z]{1,4}",
        "[a-z]+/\\.\\.(/[a-z]+)?",
        "[\u{0}-\u{ffff}]{1,4}",
    ]
}

fn exec_command() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            Just("ls"),
            Just("cat"),
            Just("grep"),
            Just("find"),
            Just("sed"),
            Just("git"),
            Just("sort"),
            Just("python3"),
            Just("tar"),
            Just("rm"),
        ],
        prop::collection::vec(exec_word(), 0..6),
    )
        .prop_map(|(binary, words)| {
            let mut command = binary.to_owned();
            for word in words {
                command.push(' ');
                command.push_str(&word);
            }
            command
        })
}

/// A JSON value built from the descriptor format's own keys and values, so that parsing gets
/// past the JSON layer into the format's checks.
fn descriptor_json() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("name"),
        Just("description"),
        Just("command"),
        Just("arguments"),
        Just("type"),
        Just("default"),
        Just("required"),
        Just("pattern"),
        Just("enum"),
        Just("minimum"),
        Just("maximum"),
        Just("$schema"),
        Just("x"),
    ];
    let leaf = prop_oneof![
        Just("\"string\"".to_owned()),
        Just("\"integer\"".to_owned()),
        Just("\"number\"".to_owned()),
        Just("\"enum\"".to_owned()),
        Just("\"path\"".to_owned()),
        Just("\"grep -rn <pattern> <path>\"".to_owned()),
        Just("\"sed -n {range}p <file>\"".to_owned()),
        Just("\"ls <x>\"".to_owned()),
        Just("\"t\"".to_owned()),
        Just("[\"-l\", \"-1\"]".to_owned()),
        Just("\"^\\\\d+$\"".to_owned()),
        Just("\".\"".to_owned()),
        Just("\"../x\"".to_owned()),
        Just("true".to_owned()),
        Just("null".to_owned()),
        Just("1".to_owned()),
        Just("-5".to_owned()),
        Just("2.5".to_owned()),
        "\"[\u{0}-\u{ffff}]{0,6}\"".prop_map(|s| s),
    ];
    leaf.prop_recursive(3, 24, 6, move |inner| {
        prop::collection::vec((key.clone(), inner), 0..6).prop_map(|pairs| {
            let body: Vec<String> = pairs
                .into_iter()
                .map(|(k, v)| format!("\"{k}\": {v}"))
                .collect();
            format!("{{{}}}", body.join(", "))
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn exec_check_never_panics_on_any_text(command in any::<String>()) {
        check_exec(&command)?;
    }

    #[test]
    fn exec_check_never_panics_on_command_like_text(command in exec_command()) {
        check_exec(&command)?;
    }

    #[test]
    fn descriptor_parse_never_panics_on_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check_descriptor(&bytes)?;
    }

    #[test]
    fn descriptor_parse_never_panics_on_format_like_json(text in descriptor_json()) {
        check_descriptor(text.as_bytes())?;
    }
}

/// The input the exec_check fuzz target found: a multi-byte character right after `-` was
/// sliced through its middle.
#[test]
fn exec_check_takes_a_multibyte_character_after_a_dash() {
    for command in [
        "git -n--am .pager=x log -\u{410}neline",
        "ls -\u{410}",
        "ls -\u{410}\u{411}/x",
        "grep -\u{1F600}x a",
    ] {
        check_exec(command).unwrap();
    }
}
