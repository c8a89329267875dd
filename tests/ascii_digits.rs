//! A slot pattern's `\d` means the ASCII digits `0-9`, in the code form (the `sed_print`
//! built-in, `#[slot(pattern = ...)]`) and in descriptors alike: `١` (ARABIC-INDIC DIGIT ONE)
//! is no line number for `sed`.

use nanotool::{CommandExecKernel, KernelSettings, Toolbox};
use nanotool_runtime::slot::compile_pattern;
use serde_json::json;

#[test]
fn backslash_d_is_ascii_in_compiled_patterns() {
    let re = compile_pattern(r"^\d+(,\d+)?$").unwrap();
    assert!(re.is_match("12,30"));
    for bad in ["١", "12,٣", "１２", "۵"] {
        assert!(!re.is_match(bad), "{bad}");
    }
    // `\D`, classes, and an escaped backslash before a `d` keep their meaning.
    let re = compile_pattern(r"\D[\d,]x\\d").unwrap();
    assert!(re.is_match(r"a1x\d"));
    assert!(re.is_match(r"١,x\d"));
    assert!(!re.is_match(r"a١x\d"));
    assert!(!compile_pattern(r"[^\d]").unwrap().is_match("1"));
    assert!(compile_pattern(r"[^\d]").unwrap().is_match("١"));
}

#[test]
fn sed_print_refuses_non_ascii_digits_in_both_forms() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "a\nb\n").unwrap();
    let tools = tempfile::tempdir().unwrap();
    std::fs::write(
        tools.path().join("lines.tool.json"),
        json!({
            "name": "lines",
            "description": "Print lines",
            "command": "sed -n <range>p <path>",
            "arguments": {
                "range": {"type": "string", "description": "N or N,M", "pattern": "^\\d+(,\\d+)?$"},
                "path": {"type": "path", "description": "a file"}
            }
        })
        .to_string(),
    )
    .unwrap();
    let mut toolbox = Toolbox::new(
        CommandExecKernel::new(KernelSettings {
            cwd: dir.path().to_path_buf(),
            ..KernelSettings::default()
        })
        .unwrap(),
    );
    for tool in nanotool::builtins::all() {
        toolbox.register_arc(tool).unwrap();
    }
    assert!(toolbox.load_descriptors(tools.path()).is_empty());
    for name in ["sed_print", "lines"] {
        let ok = toolbox
            .call(name, &json!({"range": "1", "path": "f.txt"}), None)
            .unwrap();
        assert!(!ok.is_error, "{name}: {}", ok.text);
        for range in ["١", "1,٢"] {
            let out = toolbox
                .call(name, &json!({"range": range, "path": "f.txt"}), None)
                .unwrap();
            assert_eq!(out.code, Some(614), "{name} {range}: {}", out.text);
        }
    }
}
