//! ExecTool, layer by layer, against real binaries in a scratch workspace whose canary files
//! must survive every refused command.

use nanotool_runtime::{
    CommandExecKernel, CommandSpec, CommandTool, ExecTool, KernelSettings, SlotKind, SlotSpec,
    ToolOutput, Toolbox,
};
use serde_json::{Value, json};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

const CANARY: &str = "keep me\n";

struct Workspace {
    dir: TempDir,
    /// A sibling folder outside the workspace holding a secret.
    outside: TempDir,
    toolbox: Toolbox,
}

impl Workspace {
    fn new(allow: &[&str]) -> Self {
        let dir = TempDir::new().unwrap();
        let outside = TempDir::new().unwrap();
        fs::write(outside.path().join("secret"), "the secret\n").unwrap();
        fs::write(dir.path().join("canary"), CANARY).unwrap();
        fs::write(dir.path().join("x"), "b\na\n").unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("sub/inner.txt"), "inner\n").unwrap();
        symlink("/etc", dir.path().join("etc_link")).unwrap();
        symlink(outside.path(), dir.path().join("out_link")).unwrap();
        let kernel = CommandExecKernel::new(KernelSettings {
            cwd: dir.path().to_path_buf(),
            ..KernelSettings::default()
        })
        .unwrap();
        let mut toolbox = Toolbox::new(kernel);
        toolbox
            .enable_exec(allow.iter().map(|s| s.to_string()).collect())
            .unwrap();
        Workspace {
            dir,
            outside,
            toolbox,
        }
    }

    fn exec(&self, command: &str) -> ToolOutput {
        self.toolbox
            .call("exec", &json!({ "command": command }), None)
            .unwrap()
    }

    fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    fn outside_name(&self) -> String {
        self.outside
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }

    fn assert_canaries(&self) {
        assert_eq!(
            fs::read_to_string(self.dir.path().join("canary")).unwrap(),
            CANARY
        );
        assert_eq!(
            fs::read_to_string(self.dir.path().join("x")).unwrap(),
            "b\na\n"
        );
        assert!(self.dir.path().join("sub/inner.txt").exists());
        assert!(self.outside.path().join("secret").exists());
    }
}

const ALL: &[&str] = &[
    "ls", "cat", "find", "sed", "sort", "git", "python3", "grep", "wc", "head",
];

/// Asserts `command` is refused by `layer`, ran nothing, and left every canary alone.
fn assert_refused(ws: &Workspace, command: &str, layer: u8) -> String {
    let out = ws.exec(command);
    assert!(
        out.is_error,
        "{command:?} must be refused, got {}",
        out.text
    );
    assert_eq!(out.code, Some(614), "{command:?}");
    assert!(out.exec.is_none(), "{command:?} ran nothing");
    let prefix = format!("error 614: exec refused (layer {layer}, ");
    assert!(out.text.starts_with(&prefix), "{command:?}: {}", out.text);
    ws.assert_canaries();
    out.text
}

fn assert_runs(ws: &Workspace, command: &str, expect: &str) {
    let out = ws.exec(command);
    assert!(!out.is_error, "{command:?}: {}", out.text);
    let exec = out.exec.as_ref().expect("it ran");
    assert_eq!(exec.exit_code, 0, "{command:?}: {}", out.text);
    assert!(
        out.text.contains(expect),
        "{command:?}: {expect:?} in {}",
        out.text
    );
    ws.assert_canaries();
}

// ---------------------------------------------------------------------------------------
// Layer 3: operator scan (runs first, on the raw text)

#[test]
fn layer_3_refuses_operators_quotes_backslashes_and_invisible_characters() {
    let ws = Workspace::new(ALL);
    let cases = [
        "cat canary; rm canary",
        "cat canary | wc -l",
        "cat canary && ls",
        "cat canary || ls",
        "cat canary & ls",
        "cat $HOME",
        "cat ${HOME}",
        "cat `id`",
        "cat $(id)",
        "cat < canary",
        "ls > canary",
        "ls >> canary",
        "cat 'canary'",
        "cat \"canary\"",
        // A backslash before a space: a shell would join the words, and none runs here.
        "grep a\\ b canary",
        "cat canary\nrm canary",
        "cat\tcanary",
        "cat canary\r",
        "cat \u{0}canary",
        "cat \u{1b}[31mcanary",
        "cat\u{00A0}canary",
        "cat\u{2003}canary",
        "cat canary\u{202E}",
        "cat ca\u{200B}nary",
        "cat \u{FEFF}canary",
        "",
        "   ",
    ];
    for command in cases {
        assert_refused(&ws, command, 3);
    }
    let text = assert_refused(&ws, "cat canary | wc -l", 3);
    assert!(text.contains("`|` at byte 11"), "{text}");
    let text = assert_refused(&ws, "cat \"canary\"", 3);
    assert!(text.contains("quotes"), "{text}");
}

// ---------------------------------------------------------------------------------------
// Layer 1: binary allowlist

#[test]
fn layer_1_matches_the_exact_binary_token() {
    let ws = Workspace::new(&["ls", "cat"]);
    for command in [
        "python3 -c 1",
        "/bin/ls",
        "/usr/bin/cat canary",
        "./ls",
        "../ls",
        "LS",
        "ls2",
        "ca",
        "find . -delete",
    ] {
        assert_refused(&ws, command, 1);
    }
    let text = assert_refused(&ws, "python3 -c 1", 1);
    assert_eq!(
        text,
        "error 614: exec refused (layer 1, binary allowlist): `python3` is not allowlisted; \
         allowed: ls, cat"
    );
    let text = assert_refused(&ws, "/bin/ls", 1);
    assert!(text.contains("write `ls`"), "{text}");
    assert_runs(&ws, "ls", "canary");
}

#[test]
fn an_empty_allowlist_refuses_everything_and_a_path_form_can_be_allowlisted() {
    let ws = Workspace::new(&[]);
    let text = assert_refused(&ws, "ls", 1);
    assert!(text.contains("allowed: none"), "{text}");

    let ls = fs::canonicalize("/bin/ls").unwrap();
    let ls = ls.to_string_lossy();
    let ws = Workspace::new(&[&ls]);
    assert_runs(&ws, &format!("{ls} -1"), "canary");
    assert_refused(&ws, "ls", 1);

    let root = std::env::temp_dir();
    assert_eq!(ExecTool::default().check("ls", &root).unwrap_err().layer, 1);
}

// ---------------------------------------------------------------------------------------
// Layer 2: the deny list, even for an allowlisted binary

#[test]
fn layer_2_denied_binaries_cannot_be_allowlisted_and_are_checked_at_call_time() {
    for denied in [
        "rm", "sh", "bash", "env", "xargs", "curl", "/bin/rm", "sudo",
    ] {
        assert!(ExecTool::new(vec![denied.into()]).is_err(), "{denied}");
    }
    assert!(ExecTool::with_deny(vec!["cat".into()], vec!["cat".into()]).is_err());

    // A host that denies a binary after enabling exec: refused at the next call.
    let mut ws = Workspace::new(&["ls", "cat"]);
    assert_runs(&ws, "cat canary", "keep me");
    ws.toolbox.deny_binaries(["cat"]);
    let text = assert_refused(&ws, "cat canary", 2);
    assert!(text.contains("`cat` is on the deny list"), "{text}");
    assert_runs(&ws, "ls", "canary");
}

// ---------------------------------------------------------------------------------------
// Layer 4: argument rules (code entry, launchers and writers; confinement)

#[test]
fn layer_4_refuses_launchers_writers_and_code_entry() {
    let ws = Workspace::new(ALL);
    for command in [
        "find . -delete",
        "find . -name canary -delete",
        "find . -exec cat {} +",
        "find . -execdir cat {} +",
        "find . -ok cat {} +",
        "find . -fprint canary",
        "sed -i s/keep/lost/ canary",
        "sed -i.bak s/keep/lost/ canary",
        "sed --in-place s/keep/lost/ canary",
        "sed s/keep/lost/w/tmp/x canary",
        "sed 1e/bin/id canary",
        "sed -e 1p canary",
        "sort -o canary x",
        "sort --output=canary x",
        "git -c core.pager=id log",
        "git --upload-pack=id fetch",
        "git log --output=canary",
        "python3 -c 1",
        "python3 -m http.server",
    ] {
        assert_refused(&ws, command, 4);
    }
}

#[test]
fn layer_4_confines_operands_and_option_values_to_the_workspace() {
    let ws = Workspace::new(ALL);
    let outside = ws.outside_name();
    for command in [
        "cat /etc/shadow".to_owned(),
        "cat /etc/passwd".to_owned(),
        "cat /proc/self/environ".to_owned(),
        "head -c 10 /dev/urandom".to_owned(),
        format!("cat ../{outside}/secret"),
        format!("cat sub/../../{outside}/secret"),
        "cat ..".to_owned(),
        "ls ..".to_owned(),
        "cat etc_link/passwd".to_owned(),
        "cat out_link/secret".to_owned(),
        "ls out_link".to_owned(),
        "grep -f/etc/passwd canary".to_owned(),
        "grep --file=/etc/passwd canary".to_owned(),
        "grep -r x --include=a,/etc x".to_owned(),
        "wc --files0-from=/etc/passwd".to_owned(),
        "cat -- -/../../etc/passwd".to_owned(),
        "cat --opt=-/../x".to_owned(),
    ] {
        let text = assert_refused(&ws, &command, 4);
        assert!(
            text.contains("working directory"),
            "{command}: says what is allowed: {text}"
        );
    }
}

#[test]
fn plain_commands_run_through_the_kernel() {
    let ws = Workspace::new(ALL);
    assert_runs(&ws, "ls", "canary");
    assert_runs(&ws, "ls -la sub", "inner.txt");
    assert_runs(&ws, "cat canary", "keep me");
    assert_runs(&ws, "wc -l canary", "1 canary");
    assert_runs(&ws, "sed -n 1p canary", "keep me");
    assert_runs(&ws, "sort x", "a\nb");
    assert_runs(&ws, "grep -n keep canary", "1:keep me");
    assert_runs(&ws, "head -n 1 sub/inner.txt", "inner");
    assert_runs(&ws, "find . -name inner.txt", "./sub/inner.txt");
    // A missing file is the command's own error, not a refusal.
    let out = ws.exec("cat missing");
    assert!(out.exec.is_some());
    assert_ne!(out.exec.unwrap().exit_code, 0);
}

#[test]
fn check_returns_the_argv_split_on_spaces() {
    let ws = Workspace::new(ALL);
    let exec = ExecTool::new(vec!["grep".into()]).unwrap();
    assert_eq!(
        exec.check("grep  -n   keep canary", &ws.root()).unwrap(),
        ["grep", "-n", "keep", "canary"]
    );
}

// ---------------------------------------------------------------------------------------
// The call's own arguments

#[test]
fn exec_takes_exactly_one_string_argument_named_command() {
    let ws = Workspace::new(ALL);
    let call = |args: Value| ws.toolbox.call("exec", &args, None).unwrap();
    for (args, says) in [
        (json!({}), "missing"),
        (json!({"command": 1}), "must be a string"),
        (json!({"command": "ls", "cwd": "/"}), "unknown argument"),
        (json!("ls"), "must be an object"),
        (json!(null), "must be an object"),
    ] {
        let out = call(args.clone());
        assert!(out.is_error, "{args}");
        assert_eq!(out.code, Some(614));
        assert!(out.text.contains(says), "{args}: {}", out.text);
    }
    let tool = ws.toolbox.get("exec").unwrap();
    assert_eq!(
        tool.input_schema(),
        json!({
            "type": "object",
            "properties": {"command": {"type": "string", "description": tool.input_schema()["properties"]["command"]["description"]}},
            "required": ["command"],
            "additionalProperties": false
        })
    );
    assert!(
        tool.description()
            .contains("Allowed binaries: ls, cat, find")
    );
    let _: &Path = ws.dir.path();
}

// ---------------------------------------------------------------------------------------
// Audit fixes: `..` through a symlink, attached values, layer 3's backslash and parentheses

#[test]
fn layer_4_refuses_dot_dot_components_which_the_os_resolves_after_symlinks() {
    // `out_link -> outside`: the path rule normalises `out_link/..` to `.`, but the OS
    // resolves the link first, so the raw token would name the outside folder's parent.
    let ws = Workspace::new(ALL);
    let outside = ws.outside_name();
    for command in [
        format!("cat out_link/../{outside}/secret"),
        "ls out_link/..".to_owned(),
        "ls etc_link/..".to_owned(),
        "cat etc_link/../etc/hostname".to_owned(),
        format!("grep -r the out_link/../{outside}"),
        format!("grep --file=out_link/../{outside}/secret canary"),
        format!("grep -fout_link/../{outside}/secret canary"),
        format!("grep -e x -- out_link/../{outside}/secret"),
        "ls sub/..".to_owned(),
        "cat sub/../canary".to_owned(),
        "cat ./sub/../canary".to_owned(),
        "find sub/.. -name secret".to_owned(),
        "git log -- sub/..".to_owned(),
        "cat sub/inner.txt,sub/..".to_owned(),
    ] {
        let text = assert_refused(&ws, &command, 4);
        assert!(
            text.contains("`..`") && text.contains("without `..`"),
            "{command}: says how to write it: {text}"
        );
        assert!(!text.contains("the secret"), "{text}");
    }
    let text = assert_refused(&ws, "cat sub/../canary", 4);
    assert!(text.contains("`canary`"), "suggests the plain path: {text}");
    // `..` that is not a whole path component is ordinary text.
    let exec = ExecTool::new(vec!["git".into(), "ls".into()]).unwrap();
    for ok in [
        "git log HEAD~1..HEAD",
        "git diff main...HEAD",
        "git log ..HEAD",
        "git log HEAD..",
        "ls ...",
    ] {
        assert!(exec.check(ok, &ws.root()).is_ok(), "{ok}");
    }
}

#[test]
fn layer_4_confines_a_value_attached_after_option_letters() {
    // `-cf/x`: `c` is a flag, `f` takes the rest; the value starts at any letter.
    let ws = Workspace::new(&["tar", "grep"]);
    let exec = ExecTool::new(vec!["tar".into(), "grep".into()]).unwrap();
    let written = ws.outside.path().join("attached.tar");
    let write_outside = format!("tar -cf{} canary", written.display());
    for command in [
        write_outside.as_str(),
        "tar -xOf/etc/hostname",
        "tar -tvfout_link/secret",
        "grep -rf/etc/passwd canary",
        "grep -rnfetc_link/passwd canary",
        "tar -tf../x.tar",
        "tar -tfsub/../x.tar",
    ] {
        // Through the tool: refused at layer 4, nothing run, every canary in place.
        let text = assert_refused(&ws, command, 4);
        assert!(text.contains("working directory"), "{command}: {text}");
    }
    assert!(
        !written.exists(),
        "the refused tar wrote {}",
        written.display()
    );
    for ok in [
        "tar -tzf a.tar.gz",
        "grep -rnA2 keep .",
        "tar -cf sub/a.tar canary",
    ] {
        assert!(exec.check(ok, &ws.root()).is_ok(), "{ok}");
    }
}

#[test]
fn layer_3_allows_backslashes_and_parentheses_which_no_shell_reads() {
    let ws = Workspace::new(ALL);
    fs::write(ws.dir.path().join("a.txt"), "l1\nlx\n").unwrap();
    assert_runs(&ws, r"grep -P l\d a.txt", "l1");
    assert_runs(&ws, "find . ( -name a.txt -o -name inner.txt )", "./a.txt");
    assert_runs(
        &ws,
        "find . ( -name a.txt -o -name inner.txt )",
        "./sub/inner.txt",
    );
    let exec = ExecTool::new(vec!["grep".into()]).unwrap();
    assert_eq!(
        exec.check(r"grep -E (a|b)\.rs x", &ws.root())
            .unwrap_err()
            .layer,
        3,
        "`|` is still an operator"
    );
    let err = exec.check(r"grep a\ b x", &ws.root()).unwrap_err();
    assert_eq!(err.layer, 3);
    assert!(err.message.contains("cannot hold a space"), "{err}");
}

#[test]
fn layer_4_refuses_symlink_following_destroyers_and_remote_names() {
    let ws = Workspace::new(ALL);
    for command in [
        "find -L . -name secret",
        "find . -follow -name secret",
        "grep -R the .",
        "grep -rR the .",
        "grep --dereference-recursive the .",
        "grep --dereference the .",
    ] {
        let text = assert_refused(&ws, command, 4);
        assert!(text.contains("symbolic link"), "{command}: {text}");
        assert!(!text.contains("the secret"), "{command}: {text}");
    }
    // Only the starting points are followed, and layer 4 confines those.
    assert_runs(&ws, "find -H sub -name inner.txt", "sub/inner.txt");
    assert_refused(&ws, "find -H out_link -name secret", 4);
    assert_runs(&ws, "grep -r keep .", "canary");
    let exec = ExecTool::new(vec!["tar".into(), "rsync".into()]).unwrap();
    for (command, says) in [
        ("tar -cf a.tar --remove-files canary", "deletes"),
        ("tar --remove-f -cf a.tar canary", "deletes"),
        ("rsync -a --remove-source-files sub/ dst/", "deletes"),
        ("rsync -a --remove-sent-files sub/ dst/", "deletes"),
        ("rsync -a --delete sub/ dst/", "deletes"),
        ("rsync -a --del sub/ dst/", "deletes"),
        ("rsync -a --delete-after sub/ dst/", "deletes"),
        ("tar -cf host:a.tar canary", "remote"),
        ("tar --file=host:a.tar -c canary", "remote"),
        ("tar -cfhost:a.tar canary", "remote"),
        ("tar cf host:a.tar canary", "remote"),
        ("tar --rsh-command=x -cf a.tar canary", "remote shell"),
        ("rsync -a sub/ host:dst/", "remote"),
        ("rsync -a host::module/x sub/", "remote"),
        ("rsync -a rsync://host/module sub/", "remote"),
        ("rsync -a user@host:x sub/", "remote"),
    ] {
        let err = exec.check(command, &ws.root()).unwrap_err();
        assert_eq!(err.layer, 4, "{command}: {err}");
        assert!(err.message.contains(says), "{command}: {err}");
    }
    for ok in [
        "tar -cf ./a:b.tar canary",
        "tar -tf sub/a.tar",
        "rsync -a sub/ ./dst:x/",
        "rsync -a sub/ dst/",
    ] {
        assert!(exec.check(ok, &ws.root()).is_ok(), "{ok}");
    }
}

#[test]
fn a_template_path_never_reads_through_a_symlink_and_dot_dot() {
    // The template renders the normalised path, so the OS never sees `out_link/..`.
    let ws = Workspace::new(ALL);
    let outside = ws.outside_name();
    let spec = CommandSpec::new(
        "show",
        "Print a file",
        "cat <file>",
        vec![SlotSpec::new("file", SlotKind::Path, "The file")],
    )
    .unwrap();
    let mut toolbox = Toolbox::new(
        CommandExecKernel::new(KernelSettings {
            cwd: ws.dir.path().to_path_buf(),
            ..KernelSettings::default()
        })
        .unwrap(),
    );
    toolbox.register(CommandTool::new(spec.clone())).unwrap();
    for value in [
        format!("out_link/../{outside}/secret"),
        format!("sub/../out_link/../{outside}/secret"),
        "etc_link/../etc/hostname".to_owned(),
        "out_link/../secret".to_owned(),
    ] {
        let out = toolbox
            .call("show", &json!({ "file": value }), None)
            .unwrap();
        assert!(!out.text.contains("the secret"), "{value}: {}", out.text);
        if let Ok(argv) = spec.render(&json!({ "file": value }), &ws.root()) {
            assert!(
                argv.as_slice().iter().all(|a| !a.contains("..")),
                "{value}: {argv:?}"
            );
        }
    }
    ws.assert_canaries();
}

#[test]
fn git_pathspec_magic_cannot_reach_the_repository_root_above_the_workspace() {
    // The workspace is a subfolder of a git repository whose root holds an untracked secret:
    // `:(top)` and `:/` name paths from the repository's root, outside the working directory.
    let repo = TempDir::new().unwrap();
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(repo.path())
        .status()
        .unwrap();
    assert!(init.success());
    fs::write(repo.path().join(".env"), "KEY=hunter2\n").unwrap();
    let work = repo.path().join("work");
    fs::create_dir(&work).unwrap();
    fs::write(work.join("notes.txt"), "KEY=public\n").unwrap();
    let kernel = CommandExecKernel::new(KernelSettings {
        cwd: work.clone(),
        ..KernelSettings::default()
    })
    .unwrap();
    let mut toolbox = Toolbox::new(kernel);
    toolbox.enable_exec(vec!["git".into()]).unwrap();
    let exec = |command: &str| {
        toolbox
            .call("exec", &json!({ "command": command }), None)
            .unwrap()
    };
    for command in [
        "git grep --untracked --no-exclude-standard -e KEY -- :(top)",
        "git grep --untracked --no-exclude-standard -e KEY -- :(top,glob)*",
        "git grep --untracked --no-exclude-standard -e KEY -- :/",
        "git grep --untracked --no-exclude-standard -e KEY -- :/.env",
        "git ls-files --others -- :(top)",
        "git ls-files --others --pathspec-from-file=notes.txt",
    ] {
        let out = exec(command);
        assert!(
            out.is_error && out.exec.is_none(),
            "{command}: {}",
            out.text
        );
        assert_eq!(out.code, Some(614), "{command}: {}", out.text);
        assert!(!out.text.contains("hunter2"), "{command}: {}", out.text);
    }
    // Inside the workspace, git still works.
    let out = exec("git grep --untracked --no-exclude-standard -e KEY -- .");
    assert!(out.text.contains("KEY=public"), "{}", out.text);
    assert!(!out.text.contains("hunter2"), "{}", out.text);
}

// ---------------------------------------------------------------------------------------
// Layer 4: writes into `.git/`, deleting, reaching out, redirecting, renaming, `$HOME`

/// A workspace that is a git repository with one commit.
fn git_workspace(allow: &[&str]) -> Workspace {
    let ws = Workspace::new(allow);
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(ws.dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "a")
            .env("GIT_AUTHOR_EMAIL", "a@example.invalid")
            .env("GIT_COMMITTER_NAME", "a")
            .env("GIT_COMMITTER_EMAIL", "a@example.invalid")
            .status()
            .unwrap();
        assert!(ok.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "canary", "x"]);
    git(&["commit", "-q", "-m", "first"]);
    fs::write(ws.dir.path().join("untracked.txt"), "untracked\n").unwrap();
    ws
}

#[test]
fn layer_4_refuses_writes_into_git_internals_by_any_path_form() {
    let ws = git_workspace(&["git", "ls", "cat", "tar"]);
    symlink(".git", ws.dir.path().join("g")).unwrap();
    symlink(".git/hooks", ws.dir.path().join("h")).unwrap();
    let blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
    for command in [
        &format!("git update-index --add --cacheinfo 100755,{blob},.git/hooks/pre-commit")[..],
        &format!("git update-index --add --cacheinfo 100755 {blob} .git/hooks/pre-commit"),
        "git checkout-index -a --prefix=.git/hooks/",
        "git checkout-index -a --prefix=./.git/hooks/",
        "git checkout-index -a --prefix=g/hooks/",
        "git checkout-index -a --prefix=h/",
        "git checkout-index -a --prefix=sub/../.git/hooks/",
        "tar -xf a.tar .git/hooks/pre-commit",
        "ls .git/hooks",
        "cat g/config",
        "cat .GIT/config",
    ] {
        let text = assert_refused(&ws, command, 4);
        assert!(
            text.contains(".git") || text.contains(".."),
            "{command}: {text}"
        );
    }
    assert!(!ws.dir.path().join(".git/hooks/pre-commit").exists());
    // Names that merely begin with `.git` are files like any other.
    fs::write(ws.dir.path().join(".gitignore"), "*.log\n").unwrap();
    assert_runs(&ws, "cat .gitignore", "*.log");
    assert_runs(&ws, "git log --oneline", "first");
}

#[test]
fn layer_4_refuses_deleting_subcommands_and_options() {
    let ws = git_workspace(&["git", "zip"]);
    for command in [
        "git clean -fdx",
        "git clean -f",
        "git clean -n",
        "git gc --prune=now",
        "git prune",
        "git worktree prune",
        "zip -m a.zip x",
        "zip --move a.zip x",
    ] {
        assert_refused(&ws, command, 4);
    }
    assert!(ws.dir.path().join("untracked.txt").exists());
}

#[test]
fn layer_4_refuses_servers_and_connections() {
    let ws = git_workspace(&["git"]);
    for command in [
        "git daemon --detach --listen=127.0.0.1 --port=9418 --export-all",
        "git instaweb",
        "git credential-cache--daemon sock",
        "git fsmonitor--daemon start",
        "git ls-remote [127.0.0.1:2222]:x",
        "git ls-remote 127.0.0.1:x",
        "git ls-remote ssh://127.0.0.1/x",
        "git ls-remote git://127.0.0.1/x",
        "git ls-remote https://example.invalid/x",
        "git ls-remote ext::sh",
        "git fetch host:repo",
        "git clone ssh://example.invalid/x y",
        "git push example.invalid:x",
        "git remote add o ssh://example.invalid/x",
        "git archive --remote=host:x HEAD",
        "git send-email x",
        "git imap-send",
    ] {
        assert_refused(&ws, command, 4);
    }
    // Revisions with a colon are no remote: `HEAD:path` reads committed content.
    assert_runs(&ws, "git show HEAD:canary", "keep me");
    assert_runs(&ws, "git ls-remote .", "HEAD");
}

#[test]
fn layer_4_refuses_options_that_move_where_later_names_resolve() {
    let ws = git_workspace(&["git", "tar", "make"]);
    for command in [
        "git -C sub log",
        "git -Csub log",
        "git --git-dir=sub log",
        "git --work-tree=sub status",
        "tar -C sub -cf a.tar inner.txt",
        "tar --directory=sub -cf a.tar inner.txt",
        "tar --dir=sub -cf a.tar inner.txt",
        "tar -cf a.tar -C sub inner.txt",
        "make -C sub",
        "make --directory=sub",
    ] {
        assert_refused(&ws, command, 4);
    }
}

#[test]
fn layer_4_refuses_renames_that_can_produce_a_path_outside() {
    let ws = Workspace::new(&["tar"]);
    for command in [
        "tar --transform=s,x,y, -cf a.tar x",
        "tar --xform=s,x,y, -cf a.tar x",
        "tar --tra=s,x,y, -cf a.tar x",
        "tar -xf a.tar --transform s,^,sub/,",
    ] {
        assert_refused(&ws, command, 4);
    }
}

#[test]
fn layer_4_refuses_writes_to_home() {
    let ws = git_workspace(&["git"]);
    for command in [
        "git config --global user.name x",
        "git config --global --unset user.name",
        "git config --global --remove-section user",
        "git config --system --list",
        "git config --unset core.bare",
        "git config --remove-section core",
        "git config --rename-section core x",
        "git config --add core.x y",
        "git config --edit",
        "git config set core.x y",
        "git config unset core.bare",
        "git maintenance register",
        "git maintenance start",
    ] {
        assert_refused(&ws, command, 4);
    }
    // Reading configuration still works.
    assert_runs(&ws, "git config --get core.bare", "false");
    assert_runs(&ws, "git config --list", "core.bare=false");
    assert_runs(&ws, "git config get core.bare", "false");
}

// ---------------------------------------------------------------------------------------
// Classes found through the GTFOBins catalogue (tests/gtfobins.rs runs the catalogue itself)

fn check_with(binary: &str, command: &str, root: &Path) -> Result<Vec<String>, String> {
    ExecTool::new(vec![binary.to_owned()])
        .unwrap_or_else(|e| panic!("{binary}: {e}"))
        .check(command, root)
        .map_err(|e| {
            assert_eq!(e.layer, 4, "{command}: {e}");
            e.to_string()
        })
}

#[test]
fn layer_4_refuses_response_files_of_every_binary_that_reads_them() {
    let ws = Workspace::new(&[]);
    fs::write(ws.dir.path().join("args.txt"), "-v\n").unwrap();
    for (binary, command) in [
        ("gcc", "gcc @args.txt"),
        ("gcc-12", "gcc-12 @args.txt"),
        ("x86_64-linux-gnu-gcc", "x86_64-linux-gnu-gcc @args.txt"),
        ("clang", "clang -c a.c @args.txt"),
        ("as", "as @args.txt"),
        ("readelf", "readelf -a @args.txt"),
        (
            "arm-none-eabi-objdump",
            "arm-none-eabi-objdump -d @args.txt",
        ),
        ("llvm-objdump", "llvm-objdump -d @args.txt"),
        ("strings", "strings @args.txt"),
        ("rustc", "rustc @args.txt"),
        ("javac", "javac @args.txt"),
        ("7z", "7z a x.7z @args.txt"),
    ] {
        let err = check_with(binary, command, &ws.root()).unwrap_err();
        assert!(err.contains("response file"), "{command}: {err}");
    }
    // Elsewhere `@` is an ordinary character.
    assert!(check_with("git", "git show @", &ws.root()).is_ok());
    assert!(check_with("cat", "cat @args.txt", &ws.root()).is_ok());
}

#[test]
fn layer_4_refuses_every_program_that_runs_its_operand_as_a_command() {
    let ws = Workspace::new(&[]);
    for (binary, command) in [
        ("choom", "choom -n 0 ./x"),
        ("setarch", "setarch -3 ./x"),
        ("setarch", "setarch x86_64 ./x"),
        ("linux32", "linux32 ./x"),
        ("perf", "perf stat ./x"),
        ("perf", "perf record -o p.data ./x"),
        ("gcc", "gcc -wrapper ./x,-s a.c"),
        ("clang", "clang -Xclang -load -Xclang ./x.so a.c"),
        ("gcc", "gcc -B./bin a.c"),
        ("gcc", "gcc -specs=./x.specs a.c"),
        ("rustc", "rustc -C linker=./x a.rs"),
        ("rustc", "rustc -Clinker=./x a.rs"),
        ("rustdoc", "rustdoc --test --test-builder ./x a.rs"),
        ("apt-get", "apt-get update -o APT::Update::Pre-Invoke::=./x"),
        ("dpkg", "dpkg -i x_1.0_all.deb"),
        ("npm", "npm exec ./x"),
        ("npm", "npm run build"),
        ("npm", "npm install"),
    ] {
        check_with(binary, command, &ws.root()).unwrap_err();
    }
    // The ssh family and account tools: denied under their other names.
    for binary in [
        "ssh-agent",
        "ssh-copy-id",
        "ssh-keyscan",
        "agetty",
        "vipw",
        "vigr",
    ] {
        assert!(
            ExecTool::new(vec![binary.to_owned()]).is_err(),
            "{binary} can be allowlisted"
        );
    }
}

#[test]
fn layer_4_refuses_every_option_that_loads_a_library_or_plugin() {
    let ws = Workspace::new(&[]);
    for (binary, command) in [
        ("openssl", "openssl req -engine ./x.so"),
        ("openssl", "openssl engine ./x.so"),
        ("openssl", "openssl engine dynamic -pre SO_PATH:./x.so"),
        ("openssl", "openssl list -provider-path . -provider x"),
        ("ssh-keygen", "ssh-keygen -D ./x.so"),
        ("gcc", "gcc -fplugin=./x.so a.c"),
        ("clang", "clang -fpass-plugin=./x.so a.c"),
        ("ld", "ld -plugin ./x.so a.o"),
        ("nm", "nm --plugin ./x.so a.o"),
        ("ar", "ar --plugin ./x.so t a.a"),
        ("rustc", "rustc -Z codegen-backend=./x.so a.rs"),
    ] {
        check_with(binary, command, &ws.root()).unwrap_err();
    }
    // Their plain uses still pass.
    for (binary, command) in [
        ("gcc", "gcc -c a.c -o a.o"),
        ("openssl", "openssl version"),
        ("openssl", "openssl dgst -sha256 x"),
        ("ssh-keygen", "ssh-keygen -l -f key.pub"),
        ("npm", "npm ls"),
        ("perf", "perf report"),
        ("readelf", "readelf -h x"),
        ("rustc", "rustc --explain E0001"),
    ] {
        check_with(binary, command, &ws.root())
            .unwrap_or_else(|e| panic!("{command} is refused: {e}"));
    }
}

#[test]
fn a_dotdot_refusal_shows_the_path_without_it() {
    let ws = Workspace::new(&["cat"]);
    let text = assert_refused(&ws, "cat sub/./x/../a.txt", 4);
    assert!(text.contains("(here `sub/a.txt`)"), "{text}");
    let text = assert_refused(&ws, "cat sub/..", 4);
    assert!(text.contains("(here `.`)"), "{text}");
    let text = assert_refused(&ws, "cat ../a.txt", 4);
    assert!(!text.contains("(here"), "{text}");
}

/// A free-text argument that names a file obeys the rule a `path` slot obeys, word for word:
/// one path rule, whichever form holds the value.
#[test]
fn an_argument_is_refused_with_the_path_slot_reason() {
    let ws = Workspace::new(&["cat"]);
    let root = ws.root();
    let path_slot = SlotSpec::new("file", SlotKind::Path, "a file");
    for path in [
        "/etc/hostname".to_owned(),
        "etc_link/hostname".to_owned(),
        "out_link/secret".to_owned(),
        format!("{}/secret", ws.outside.path().display()),
    ] {
        let slot_reason = nanotool_runtime::slot::validate(&path_slot, &json!(path), &root)
            .unwrap_err()
            .reason;
        let exec = check_with("cat", &format!("cat {path}"), &root).unwrap_err();
        assert!(
            exec.contains(&slot_reason),
            "{path}: exec says `{exec}`, the path slot `{slot_reason}`"
        );
    }
}
