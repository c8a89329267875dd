//! The policy (DESIGN §4) tested by table: the deny list, the code-entry table, and
//! ExecTool's layer 4.

use nanotool_runtime::policy::{
    DENIED_BINARIES, DENIED_EQUIVALENTS, PolicyError, SlotFreedom, check_exec_argv, check_template,
    is_denied,
};
use nanotool_runtime::template::Template;

fn all_free(_: &str) -> SlotFreedom {
    SlotFreedom::Free
}

fn check(src: &str, extra: &[String]) -> Result<(), PolicyError> {
    let t = Template::parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    check_template(&t, &all_free, extra)
}

fn denied_names() -> Vec<String> {
    DENIED_BINARIES
        .iter()
        .map(|d| d.replace('*', ".ext4"))
        .chain(DENIED_EQUIVALENTS.iter().map(|(n, _)| n.to_string()))
        .collect()
}

#[test]
fn every_denied_binary_is_refused_bare_and_as_a_path() {
    for name in denied_names() {
        for spelled in [
            name.clone(),
            format!("/bin/{name}"),
            format!("./{name}"),
            format!("../../usr/bin/{name}"),
            format!("bin//{name}"),
            name.to_ascii_uppercase(),
        ] {
            let err = check(&format!("{spelled} x"), &[]).expect_err(&spelled);
            assert_eq!(
                err,
                PolicyError::DeniedBinary {
                    binary: spelled.clone()
                },
                "{spelled}"
            );
            assert!(err.to_string().contains(&format!("`{spelled}`")), "{err}");
            assert!(is_denied(&spelled, &[]));
            let argv = vec![spelled.clone(), "x".to_string()];
            assert!(
                matches!(
                    check_exec_argv(&argv),
                    Err(PolicyError::DeniedBinary { .. })
                ),
                "{spelled}"
            );
        }
    }
}

#[test]
fn versioned_and_suffixed_spellings_are_refused() {
    for spelled in [
        "bash5",
        "bash-5.2",
        "ksh93",
        "zsh-5.9",
        "rm.exe",
        "mkfs",
        "mkfs.vfat",
        "nc6",
    ] {
        assert!(is_denied(spelled, &[]), "{spelled}");
    }
}

#[test]
fn plain_tools_are_not_denied() {
    for name in [
        "grep",
        "find",
        "sed",
        "git",
        "wc",
        "cat",
        "head",
        "ls",
        "python3",
        "base64",
        "ssh-keygen",
        "rsync",
        "envsubst",
        "shasum",
        "dda",
        "rmate",
        "sha256sum",
        "shellcheck",
        "mkdir",
    ] {
        assert!(!is_denied(name, &[]), "{name}");
        assert_eq!(check(&format!("{name} x"), &[]), Ok(()), "{name}");
    }
}

#[test]
fn host_extra_deny_is_matched_the_same_way() {
    let extra = vec!["git".to_string(), "python3".to_string()];
    for spelled in [
        "git",
        "/usr/bin/git",
        "./GIT",
        "python3",
        "python3.12",
        "/usr/bin/python3",
    ] {
        let err = check(&format!("{spelled} x"), &extra).unwrap_err();
        assert_eq!(
            err,
            PolicyError::DeniedBinary {
                binary: spelled.to_string()
            }
        );
        assert!(err.to_string().contains("host"), "{err}");
    }
    assert_eq!(check("grep x", &extra), Ok(()));
}
