//! A corpus of the tools a team would give a coding or ops agent — search, git, build and
//! test, scripts, archives, system info, network — written as `*.tool.json` descriptors, and
//! the calls a model would send them. Every tool must load and every call must run, through
//! the descriptor loader, the one validator and a real kernel, with the right output. Beside
//! them, the dangerous variants: each must stay refused (613 when the tool is built, 614 when
//! it is called), with the reason a person can act on.
//!
//! A row whose binary is not installed here is skipped and named; the test asserts that the
//! corpus still ran at least [`MIN_CALLS`] calls.

use nanotool_runtime::{
    CODE_INVALID_ARGUMENTS, CODE_INVALID_DESCRIPTOR, CommandExecKernel, CommandSpec, CommandTool,
    DescriptorLoader, KernelSettings, Tool, ToolContext,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The fewest calls that must have run (binaries missing on this machine skip theirs).
const MIN_CALLS: usize = 90;

/// A tool: name, command template, arguments (as a descriptor writes them).
type ToolRow = (&'static str, &'static str, Value);

fn tools() -> Vec<ToolRow> {
    let s = |d: &str| json!({"type": "string", "description": d});
    let p = |d: &str| json!({"type": "path", "description": d});
    let p_dot = json!({"type": "path", "description": "Where", "default": "."});
    let n = |min: i64, max: i64, d: &str| json!({"type": "integer", "description": d, "minimum": min, "maximum": max});
    vec![
        // --- search ----------------------------------------------------------------------
        (
            "grep_text",
            "grep -rn <pattern> <path>",
            json!({"pattern": s("Regex"), "path": p_dot.clone()}),
        ),
        (
            "grep_fixed",
            "grep -rn -F -e <text> <path>",
            json!({"text": s("Text"), "path": p_dot.clone()}),
        ),
        (
            "grep_fixed_dashdash",
            "grep -n -F -- <text> <file>",
            json!({"text": s("Text"), "file": p("File")}),
        ),
        (
            "grep_context",
            "grep -rn -C <n> -e <pattern> <path>",
            json!({"n": n(0, 10, "Context lines"), "pattern": s("Regex"), "path": p_dot.clone()}),
        ),
        (
            "grep_count",
            "grep -c <pattern> <file>",
            json!({"pattern": s("Regex"), "file": p("File")}),
        ),
        (
            "grep_files",
            "grep -rl <pattern> <path>",
            json!({"pattern": s("Regex"), "path": p_dot.clone()}),
        ),
        (
            "grep_icase",
            "grep -rni <pattern> <path>",
            json!({"pattern": s("Regex"), "path": p_dot.clone()}),
        ),
        (
            "grep_extended",
            "grep -rnE <pattern> <path>",
            json!({"pattern": s("ERE"), "path": p_dot.clone()}),
        ),
        (
            "grep_max",
            "grep --max-count=<max> -rn <pattern> <path>",
            json!({"max": {"type": "integer", "description": "Cap", "minimum": 1, "required": false}, "pattern": s("Regex"), "path": p_dot.clone()}),
        ),
        (
            "git_grep",
            "git grep -n -e <pattern>",
            json!({"pattern": s("Regex")}),
        ),
        (
            "find_name",
            "find <dir> -name <glob> -type f",
            json!({"dir": p("Dir"), "glob": s("Glob")}),
        ),
        (
            "find_lines",
            "find <dir> -name <glob> -exec wc -l {{}} +",
            json!({"dir": p("Dir"), "glob": s("Glob")}),
        ),
        ("list_dir", "ls -1 <dir>", json!({"dir": p_dot.clone()})),
        (
            "list_mode",
            "ls <mode> <dir>",
            json!({"mode": {"type": "string", "enum": ["-1", "-a", "-1 -a"], "description": "Mode"}, "dir": p_dot.clone()}),
        ),
        ("count_lines", "wc -l <file>", json!({"file": p("File")})),
        (
            "head_file",
            "head -n <n> <file>",
            json!({"n": n(1, 1000, "Lines"), "file": p("File")}),
        ),
        (
            "tail_file",
            "tail -n <n> <file>",
            json!({"n": n(1, 1000, "Lines"), "file": p("File")}),
        ),
        (
            "print_lines",
            "sed -n <range>p <file>",
            json!({"range": {"type": "string", "description": "Range", "pattern": "^[0-9]+(,[0-9]+)?$"}, "file": p("File")}),
        ),
        (
            "cut_field",
            "cut -d <delim> -f <field> <file>",
            json!({"delim": {"type": "string", "enum": [";", ",", " ", "\t"], "description": "Delimiter"}, "field": n(1, 50, "Field"), "file": p("File")}),
        ),
        ("sort_unique", "sort -u <file>", json!({"file": p("File")})),
        (
            "jq_query",
            "jq -r <filter> <file>",
            json!({"filter": s("A jq filter"), "file": p("File")}),
        ),
        (
            "diff_files",
            "diff -u <a> <b>",
            json!({"a": p("Old"), "b": p("New")}),
        ),
        ("file_size", "stat -c %s <file>", json!({"file": p("File")})),
        ("cat_file", "cat -- <file>", json!({"file": p("File")})),
        ("number_lines", "nl -ba <file>", json!({"file": p("File")})),
        // --- git -------------------------------------------------------------------------
        (
            "git_log",
            "git log --oneline -n <count>",
            json!({"count": n(1, 200, "How many")}),
        ),
        (
            "git_log_search",
            "git log --oneline -S <text>",
            json!({"text": s("Text added or removed")}),
        ),
        (
            "git_log_grep",
            "git log --oneline --grep <pattern>",
            json!({"pattern": s("Message regex")}),
        ),
        (
            "git_log_author",
            "git log --format=%s --author=<author>",
            json!({"author": s("Author")}),
        ),
        (
            "git_log_path",
            "git log --oneline -- <path>",
            json!({"path": p("Path")}),
        ),
        (
            "git_show",
            "git show --stat --format=%s <rev>",
            json!({"rev": {"type": "string", "description": "Revision", "pattern": "^[A-Za-z0-9_./~^-]+$"}}),
        ),
        (
            "git_diff_stat",
            "git diff --stat <from> <to>",
            json!({"from": s("From"), "to": s("To")}),
        ),
        ("git_status", "git status --short", json!({})),
        ("git_branch", "git branch --show-current", json!({})),
        (
            "git_upstream",
            "git rev-parse --abbrev-ref --symbolic-full-name @{{u}}",
            json!({}),
        ),
        (
            "git_blame",
            "git blame -s -L <range> -- <file>",
            json!({"range": {"type": "string", "description": "Lines", "pattern": "^[0-9]+,[0-9]+$"}, "file": p("File")}),
        ),
        (
            "git_ls_files",
            "git ls-files -- <path>",
            json!({"path": p_dot.clone()}),
        ),
        ("git_count", "git rev-list --count HEAD", json!({})),
        (
            "git_commit",
            "git commit --allow-empty -q -m <message>",
            json!({"message": s("Commit message")}),
        ),
        ("git_last_message", "git log -1 --format=%B", json!({})),
        // --- build and test ----------------------------------------------------------------
        (
            "node_test",
            "node --test <path>",
            json!({"path": p("Test file or folder")}),
        ),
        (
            "node_check",
            "node --check <file>",
            json!({"file": p("File")}),
        ),
        (
            "npx_eslint",
            "npx --no-install eslint <path>",
            json!({"path": p("Path")}),
        ),
        (
            "make_target",
            "make -s <target>",
            json!({"target": {"type": "string", "enum": ["hello", "version"], "description": "Target"}}),
        ),
        (
            "make_dir",
            "make -s -C <dir> hello",
            json!({"dir": p("Dir")}),
        ),
        (
            "py_unittest",
            "python3 -m unittest discover -s <dir> -q",
            json!({"dir": p("Dir")}),
        ),
        (
            "py_compile",
            "python3 -m py_compile <file>",
            json!({"file": p("File")}),
        ),
        (
            "cargo_metadata",
            "cargo metadata --no-deps --format-version 1 --offline",
            json!({}),
        ),
        ("rustc_version", "rustc --version", json!({})),
        // --- scripts ---------------------------------------------------------------------
        (
            "report",
            "python3 scripts/report.py <month>",
            json!({"month": s("Month")}),
        ),
        (
            "json_pretty",
            "python3 -m json.tool <file>",
            json!({"file": p("File")}),
        ),
        (
            "node_script",
            "node scripts/hello.js <name>",
            json!({"name": s("Name")}),
        ),
        (
            "sql_query",
            "sqlite3 -readonly <db> <query>",
            json!({"db": p("Database"), "query": {"type": "string", "enum": ["SELECT name FROM users ORDER BY name;", "SELECT count(*) FROM users WHERE name LIKE 'a%';"], "description": "Query"}}),
        ),
        (
            "seq_range",
            "seq <start> <end>",
            json!({"start": n(-100, 100, "Start"), "end": n(-100, 100, "End")}),
        ),
        (
            "days_ago",
            "date -u -d <when> +%F",
            json!({"when": s("A date, e.g. 2024-01-02 03:04")}),
        ),
        (
            "printf_value",
            "printf %s <value>",
            json!({"value": s("Text")}),
        ),
        // --- archives ----------------------------------------------------------------------
        (
            "tar_list",
            "tar -tzf <archive>",
            json!({"archive": p("Archive")}),
        ),
        (
            "tar_create",
            "tar -czf <archive> <dir>",
            json!({"archive": p("Archive"), "dir": p("Dir")}),
        ),
        (
            "zip_create",
            "zip -q -r <archive> <dir>",
            json!({"archive": p("Archive"), "dir": p("Dir")}),
        ),
        (
            "unzip_list",
            "unzip -l <archive>",
            json!({"archive": p("Archive")}),
        ),
        ("gzip_test", "gzip -t <file>", json!({"file": p("File")})),
        ("zcat_file", "zcat <file>", json!({"file": p("File")})),
        ("sha256", "sha256sum <file>", json!({"file": p("File")})),
        ("base64_file", "base64 <file>", json!({"file": p("File")})),
        // --- system info -------------------------------------------------------------------
        ("kernel_name", "uname -s", json!({})),
        ("cpus", "nproc", json!({})),
        ("disk_free", "df -P <path>", json!({"path": p_dot.clone()})),
        ("disk_usage", "du -s <path>", json!({"path": p_dot.clone()})),
        ("memory", "free -m", json!({})),
        ("who_am_i", "id -un", json!({})),
        ("file_type", "file <path>", json!({"path": p("Path")})),
        (
            "env_value",
            "printenv <name>",
            json!({"name": {"type": "string", "enum": ["LANG", "TZ", "PATH"], "description": "Variable"}}),
        ),
        // --- network -----------------------------------------------------------------------
        (
            "resolve",
            "getent hosts <name>",
            json!({"name": s("Host name")}),
        ),
        ("loopback", "ip -o link show lo", json!({})),
        ("listening", "ss -ltn", json!({})),
    ]
}

/// What a call must give.
#[derive(Debug, Clone, Copy)]
enum Want {
    /// This exit code, and each text in the output.
    Out(i32, &'static [&'static str]),
    /// Refused (614) before anything ran, the reason holding this text.
    Refused(&'static str),
}
use Want::{Out, Refused};

/// (tool, arguments as JSON text, what the call gives).
const CALLS: &[(&str, &str, Want)] = &[
    // --- search: the calls users meet first ------------------------------------------------
    (
        "grep_text",
        r#"{"pattern":"fn main","path":"src"}"#,
        Out(0, &["src/main.rs:1:fn main() {"]),
    ),
    (
        "grep_text",
        r#"{"pattern":"TODO\\|FIXME","path":"."}"#,
        Out(0, &["TODO: tidy", "FIXME later"]),
    ),
    (
        "grep_text",
        r#"{"pattern":"\"name\"","path":"package.json"}"#,
        Out(0, &["\"name\": \"demo\""]),
    ),
    (
        "grep_text",
        r#"{"pattern":"println!(\"hello\")"}"#,
        Out(0, &["src/main.rs:2:"]),
    ),
    ("grep_text", r#"{"pattern":"x;touch pwned"}"#, Out(1, &[])),
    ("grep_text", r#"{"pattern":"$(touch pwned)"}"#, Out(1, &[])),
    ("grep_text", r#"{"pattern":"`touch pwned`"}"#, Out(1, &[])),
    (
        "grep_text",
        r#"{"pattern":"a && b || c","path":"notes.md"}"#,
        Out(0, &["a && b || c"]),
    ),
    (
        "grep_text",
        r#"{"pattern":"<T>","path":"notes.md"}"#,
        Out(0, &["Vec<T>"]),
    ),
    // `$HOME` reaches grep as written (no shell expands it), where a leading `$` is literal.
    (
        "grep_text",
        r#"{"pattern":"$HOME","path":"notes.md"}"#,
        Out(0, &["7:$HOME stays"]),
    ),
    (
        "grep_text",
        r#"{"pattern":"[$]HOME","path":"notes.md"}"#,
        Out(0, &["$HOME stays"]),
    ),
    (
        "grep_text",
        r#"{"pattern":"fn \\w\\+(","path":"src"}"#,
        Out(0, &["fn main(", "fn run("]),
    ),
    (
        "grep_text",
        "{\"pattern\":\"tab\\there\",\"path\":\"notes.md\"}",
        Out(0, &["tab\there"]),
    ),
    (
        "grep_fixed",
        r#"{"text":"--locked"}"#,
        Out(0, &["Cargo.toml:4:# build with --locked", "--locked build"]),
    ),
    (
        "grep_fixed",
        r#"{"text":"-> Result","path":"src"}"#,
        Out(0, &["src/lib.rs:1:pub fn run() -> Result"]),
    ),
    (
        "grep_fixed",
        r#"{"text":"a|b","path":"notes.md"}"#,
        Out(0, &["match a|b literally"]),
    ),
    (
        "grep_fixed",
        r#"{"text":"[-]","path":"notes.md"}"#,
        Out(1, &[]),
    ),
    (
        "grep_fixed_dashdash",
        r#"{"text":"-> Result","file":"notes.md"}"#,
        Out(0, &["-> Result is returned"]),
    ),
    (
        "grep_fixed_dashdash",
        r#"{"text":"--locked","file":"Cargo.toml"}"#,
        Out(0, &["4:# build with --locked"]),
    ),
    (
        "grep_context",
        r#"{"n":1,"pattern":"--locked","path":"notes.md"}"#,
        Out(0, &["1-# Notes\n2:- fix the --locked build\n3--> Result"]),
    ),
    (
        "grep_count",
        r#"{"pattern":"o","file":"My Notes/a b.txt"}"#,
        Out(0, &["1"]),
    ),
    (
        "grep_files",
        r#"{"pattern":"fn "}"#,
        Out(0, &["./src/main.rs", "./src/lib.rs"]),
    ),
    (
        "grep_icase",
        r#"{"pattern":"todo: TIDY","path":"src"}"#,
        Out(0, &["TODO: tidy"]),
    ),
    (
        "grep_extended",
        r#"{"pattern":"(TODO|FIXME)","path":"src"}"#,
        Out(0, &["TODO", "FIXME"]),
    ),
    (
        "grep_max",
        r#"{"pattern":"fn","path":"src"}"#,
        Out(0, &["fn main"]),
    ),
    (
        "grep_max",
        r#"{"max":1,"pattern":"e","path":"My Notes/a b.txt"}"#,
        Out(0, &["2:second"]),
    ),
    (
        "git_grep",
        r#"{"pattern":"-> Result"}"#,
        Out(0, &["src/lib.rs:1:pub fn run() -> Result"]),
    ),
    (
        "git_grep",
        r#"{"pattern":"--locked"}"#,
        Out(0, &["Cargo.toml:4:"]),
    ),
    (
        "find_name",
        r#"{"dir":"src","glob":"*.rs"}"#,
        Out(0, &["./src/main.rs", "./src/lib.rs"]),
    ),
    (
        "find_name",
        r#"{"dir":".","glob":"a b.txt"}"#,
        Out(0, &["./My Notes/a b.txt"]),
    ),
    (
        "find_lines",
        r#"{"dir":"src","glob":"*.rs"}"#,
        Out(0, &["./src/main.rs", "total"]),
    ),
    ("list_dir", r#"{"dir":"My Notes"}"#, Out(0, &["a b.txt"])),
    ("list_dir", r#"{}"#, Out(0, &["Cargo.toml", "My Notes"])),
    (
        "list_mode",
        r#"{"mode":"-a","dir":"src"}"#,
        Out(0, &["main.rs", ".."]),
    ),
    (
        "count_lines",
        r#"{"file":"My Notes/a b.txt"}"#,
        Out(0, &["3 ./My Notes/a b.txt"]),
    ),
    (
        "count_lines",
        r#"{"file":"odd 'quoted' name;x.txt"}"#,
        Out(0, &["1 ./odd 'quoted' name;x.txt"]),
    ),
    (
        "head_file",
        r#"{"n":1,"file":"notes.md"}"#,
        Out(0, &["# Notes"]),
    ),
    (
        "tail_file",
        r#"{"n":1,"file":"My Notes/a b.txt"}"#,
        Out(0, &["third"]),
    ),
    (
        "print_lines",
        r#"{"range":"2,3","file":"My Notes/a b.txt"}"#,
        Out(0, &["second\nthird"]),
    ),
    (
        "cut_field",
        r#"{"delim":";","field":1,"file":"data.csv"}"#,
        Out(0, &["name\nann\nbob"]),
    ),
    (
        "cut_field",
        r#"{"delim":" ","field":2,"file":"words.txt"}"#,
        Out(0, &["beta"]),
    ),
    (
        "sort_unique",
        r#"{"file":"dupes.txt"}"#,
        Out(0, &["a\nb\nc"]),
    ),
    (
        "jq_query",
        r#"{"filter":".scripts | keys[]","file":"package.json"}"#,
        Out(0, &["lint\ntest"]),
    ),
    (
        "jq_query",
        r#"{"filter":"select(.name == \"demo\") | .name","file":"package.json"}"#,
        Out(0, &["demo"]),
    ),
    (
        "diff_files",
        r#"{"a":"dupes.txt","b":"data.csv"}"#,
        Out(1, &["--- ./dupes.txt", "+++ ./data.csv"]),
    ),
    ("file_size", r#"{"file":"words.txt"}"#, Out(0, &["11"])),
    (
        "cat_file",
        r#"{"file":"My Notes/a b.txt"}"#,
        Out(0, &["first\nsecond\nthird"]),
    ),
    (
        "number_lines",
        r#"{"file":"words.txt"}"#,
        Out(0, &["1\talpha beta"]),
    ),
    // --- git --------------------------------------------------------------------------------
    (
        "git_log",
        r#"{"count":2}"#,
        Out(0, &["fix: handle --locked", "add lib: fn run"]),
    ),
    (
        "git_log_search",
        r#"{"text":"--locked"}"#,
        Out(0, &["fix: handle --locked"]),
    ),
    (
        "git_log_search",
        r#"{"text":"-> Result"}"#,
        Out(0, &["add lib: fn run"]),
    ),
    (
        "git_log_grep",
        r#"{"pattern":"fix: handle"}"#,
        Out(0, &["fix: handle --locked"]),
    ),
    (
        "git_log_grep",
        r#"{"pattern":"--locked"}"#,
        Out(0, &["fix: handle --locked"]),
    ),
    (
        "git_log_author",
        r#"{"author":"Jane Doe"}"#,
        Out(0, &["first commit"]),
    ),
    (
        "git_log_path",
        r#"{"path":"src/lib.rs"}"#,
        Out(0, &["add lib: fn run"]),
    ),
    (
        "git_show",
        r#"{"rev":"HEAD~1"}"#,
        Out(0, &["add lib: fn run", "src/lib.rs"]),
    ),
    (
        "git_diff_stat",
        r#"{"from":"HEAD~2","to":"HEAD"}"#,
        Out(0, &["src/lib.rs", "Cargo.toml"]),
    ),
    ("git_status", r#"{}"#, Out(0, &[])),
    ("git_branch", r#"{}"#, Out(0, &["main"])),
    ("git_upstream", r#"{}"#, Out(0, &["origin/main"])),
    (
        "git_blame",
        r#"{"range":"1,1","file":"src/lib.rs"}"#,
        Out(0, &["pub fn run() -> Result"]),
    ),
    (
        "git_ls_files",
        r#"{"path":"src"}"#,
        Out(0, &["src/lib.rs", "src/main.rs"]),
    ),
    ("git_count", r#"{}"#, Out(0, &["3"])),
    // --- build and test ---------------------------------------------------------------------
    (
        "node_test",
        r#"{"path":"test/math.test.js"}"#,
        Out(0, &["pass 1"]),
    ),
    ("node_check", r#"{"file":"scripts/hello.js"}"#, Out(0, &[])),
    (
        "make_target",
        r#"{"target":"hello"}"#,
        Out(0, &["hello from make"]),
    ),
    ("make_target", r#"{"target":"version"}"#, Out(0, &["1.2.3"])),
    ("make_dir", r#"{"dir":"."}"#, Out(0, &["hello from make"])),
    ("py_unittest", r#"{"dir":"pytests"}"#, Out(0, &["OK"])),
    ("py_compile", r#"{"file":"scripts/report.py"}"#, Out(0, &[])),
    ("cargo_metadata", r#"{}"#, Out(0, &["\"name\":\"demo\""])),
    ("rustc_version", r#"{}"#, Out(0, &["rustc "])),
    // --- scripts ----------------------------------------------------------------------------
    (
        "report",
        r#"{"month":"2024-05"}"#,
        Out(0, &["report for ['2024-05']"]),
    ),
    (
        "report",
        r#"{"month":"May 2024"}"#,
        Out(0, &["report for ['May 2024']"]),
    ),
    (
        "report",
        r#"{"month":"x; rm -rf ~"}"#,
        Out(0, &["report for ['x; rm -rf ~']"]),
    ),
    (
        "json_pretty",
        r#"{"file":"package.json"}"#,
        Out(0, &["\"scripts\": {"]),
    ),
    (
        "node_script",
        r#"{"name":"Jane \"JD\" Doe"}"#,
        Out(0, &["hello, Jane \"JD\" Doe"]),
    ),
    (
        "sql_query",
        r#"{"db":"app.db","query":"SELECT name FROM users ORDER BY name;"}"#,
        Out(0, &["ann\nbob"]),
    ),
    (
        "sql_query",
        r#"{"db":"app.db","query":"SELECT count(*) FROM users WHERE name LIKE 'a%';"}"#,
        Out(0, &["1"]),
    ),
    (
        "seq_range",
        r#"{"start":-2,"end":1}"#,
        Out(0, &["-2\n-1\n0\n1"]),
    ),
    (
        "days_ago",
        r#"{"when":"2024-01-02 03:04"}"#,
        Out(0, &["2024-01-02"]),
    ),
    (
        "printf_value",
        r#"{"value":"line one\nline two"}"#,
        Out(0, &["line one\nline two"]),
    ),
    (
        "printf_value",
        r#"{"value":"100% & more"}"#,
        Out(0, &["100% & more"]),
    ),
    // --- archives ---------------------------------------------------------------------------
    (
        "tar_list",
        r#"{"archive":"bundle.tar.gz"}"#,
        Out(0, &["bundle/readme.txt"]),
    ),
    (
        "tar_create",
        r#"{"archive":"out/src.tar.gz","dir":"src"}"#,
        Out(0, &[]),
    ),
    (
        "tar_list",
        r#"{"archive":"out/src.tar.gz"}"#,
        Out(0, &["./src/main.rs"]),
    ),
    (
        "zip_create",
        r#"{"archive":"out/notes.zip","dir":"My Notes"}"#,
        Out(0, &[]),
    ),
    (
        "unzip_list",
        r#"{"archive":"out/notes.zip"}"#,
        Out(0, &["My Notes/a b.txt"]),
    ),
    ("gzip_test", r#"{"file":"bundle.tar.gz"}"#, Out(0, &[])),
    (
        "zcat_file",
        r#"{"file":"hello.txt.gz"}"#,
        Out(0, &["hello, gzip"]),
    ),
    (
        "sha256",
        r#"{"file":"words.txt"}"#,
        Out(0, &["./words.txt"]),
    ),
    (
        "base64_file",
        r#"{"file":"words.txt"}"#,
        Out(0, &["YWxwaGEgYmV0YQo="]),
    ),
    // --- system info ------------------------------------------------------------------------
    ("kernel_name", r#"{}"#, Out(0, &["Linux"])),
    ("cpus", r#"{}"#, Out(0, &[])),
    ("disk_free", r#"{}"#, Out(0, &["Filesystem"])),
    ("disk_usage", r#"{"path":"src"}"#, Out(0, &["./src"])),
    ("memory", r#"{}"#, Out(0, &["Mem:"])),
    ("who_am_i", r#"{}"#, Out(0, &[])),
    ("file_type", r#"{"path":"words.txt"}"#, Out(0, &["text"])),
    ("env_value", r#"{"name":"PATH"}"#, Out(0, &["/"])),
    // --- network ----------------------------------------------------------------------------
    ("resolve", r#"{"name":"localhost"}"#, Out(0, &["localhost"])),
    // `loopback` (`ip -o link show lo`) loads, but the sandbox refuses netlink sockets to every
    // tool, `network` ones included (tests/sandbox/escapes.rs): it is not called here.
    ("listening", r#"{}"#, Out(0, &["State"])),
    // --- the dangerous calls stay refused, with their reason ------------------------------
    (
        "grep_text",
        r#"{"pattern":"--file=/etc/passwd"}"#,
        Refused("would be read as an option"),
    ),
    (
        "grep_text",
        r#"{"pattern":"-R"}"#,
        Refused("would be read as an option"),
    ),
    (
        "grep_count",
        r#"{"pattern":"--include=x","file":"notes.md"}"#,
        Refused("would be read as an option"),
    ),
    (
        "grep_text",
        r#"{"pattern":"x","path":"/etc/passwd"}"#,
        Refused("is outside the working directory"),
    ),
    (
        "grep_text",
        r#"{"pattern":"x","path":"../../etc"}"#,
        Refused("leaves the working directory"),
    ),
    (
        "grep_text",
        r#"{"pattern":"x","path":"-rf"}"#,
        Refused("a path may not"),
    ),
    (
        "grep_text",
        r#"{"pattern":"x","path":"escape"}"#,
        Refused("through a symlink"),
    ),
    (
        "grep_text",
        r#"{"pattern":"x","path":"/proc/self/environ"}"#,
        Refused("is outside the working directory"),
    ),
    ("grep_text", "{\"pattern\":\"a\\u0000b\"}", Refused("a NUL")),
    (
        "grep_text",
        "{\"pattern\":\"a\\rb\"}",
        Refused("a carriage return"),
    ),
    (
        "grep_text",
        "{\"pattern\":\"a\\u001b[2Jb\"}",
        Refused("an escape character"),
    ),
    (
        "grep_text",
        "{\"pattern\":\"abc\\u202ecba\"}",
        Refused("U+202E"),
    ),
    (
        "grep_text",
        "{\"pattern\":\"a\\u200bb\"}",
        Refused("U+200B"),
    ),
    (
        "grep_text",
        "{\"pattern\":\"a\\u00a0b\"}",
        Refused("U+00A0"),
    ),
    (
        "find_name",
        r#"{"dir":"-delete","glob":"*"}"#,
        Refused("a path may not"),
    ),
    // `-name` takes the next argument as its value: find looks for a file named `-delete`,
    // and deletes nothing (the corpus checks every file is still there).
    ("find_name", r#"{"dir":".","glob":"-delete"}"#, Out(0, &[])),
    (
        "print_lines",
        r#"{"range":"1e id","file":"notes.md"}"#,
        Refused("does not match the pattern"),
    ),
    (
        "head_file",
        r#"{"n":-1,"file":"notes.md"}"#,
        Refused("below the minimum"),
    ),
    (
        "git_show",
        r#"{"rev":"--output=/tmp/x"}"#,
        Refused("does not match the pattern"),
    ),
    (
        "git_show",
        r#"{"rev":"--ext-diff"}"#,
        Refused("would be read as an option"),
    ),
    (
        "git_diff_stat",
        r#"{"from":"--output=x","to":"HEAD"}"#,
        Refused("would be read as an option"),
    ),
    (
        "git_log_path",
        r#"{"path":"/etc/passwd"}"#,
        Refused("is outside the working directory"),
    ),
    (
        "seq_range",
        r#"{"start":-101,"end":1}"#,
        Refused("below the minimum"),
    ),
    (
        "cut_field",
        r#"{"delim":"|","field":1,"file":"data.csv"}"#,
        Refused("not one of the allowed values"),
    ),
    (
        "report",
        r#"{"month":"--help"}"#,
        Refused("would be read as an option"),
    ),
    // A path renders `./host:x.tgz`: a local file, never another machine.
    (
        "tar_create",
        r#"{"archive":"host:x.tgz","dir":"src"}"#,
        Out(0, &[]),
    ),
    (
        "tar_list",
        r#"{"archive":"host:x.tgz"}"#,
        Out(0, &["./src/lib.rs"]),
    ),
    (
        "printf_value",
        r#"{"value":"-v x"}"#,
        Refused("would be read as an option"),
    ),
];

/// Tools that must be refused when they are built (613), with the reason.
const REFUSED_TOOLS: &[(&str, &str, &str)] = &[
    // Denied binaries, under any name or path.
    ("curl <url>", "url", "is denied"),
    ("wget -O- <url>", "url", "is denied"),
    ("ssh <host> uptime", "host", "is denied"),
    ("nc <host> 80", "host", "is denied"),
    ("/bin/bash -c <cmd>", "cmd", "is denied"),
    ("sh <script>", "script", "is denied"),
    ("xargs -0 grep <pattern>", "pattern", "is denied"),
    ("env <name>", "name", "is denied"),
    ("rm -rf <path>", "path", "is denied"),
    ("watch -n 1 <cmd>", "cmd", "is denied"),
    ("tmux new <cmd>", "cmd", "is denied"),
    ("mosh <host>", "host", "is denied"),
    ("timeout 5 rm <path>", "path", "is denied"),
    ("find . -name x -exec rm {{}} +", "", "is denied"),
    // A free slot where code goes, whatever it holds.
    ("python3 -c <code>", "code", "-c"),
    ("python3 <script>", "script", "program operand"),
    ("node -e <code>", "code", "-e"),
    ("node <script>", "script", "program operand"),
    ("perl -e <code>", "code", "-e"),
    ("awk <prog> notes.md", "prog", "program operand"),
    ("sed <script> notes.md", "script", "program operand"),
    ("sed -n <range>p notes.md", "range", "program operand"),
    ("git -c <cfg> log", "cfg", "-c"),
    ("git <sub>", "sub", "subcommand"),
    ("find . -exec <cmd> {{}} +", "cmd", "command"),
    ("timeout 5 <cmd>", "cmd", "command"),
    ("npx <pkg>", "pkg", "program operand"),
    ("npm run <script>", "script", "operand"),
    ("make <target>", "target", "operand"),
    ("make VAR=<value> all", "value", "operand"),
    ("sqlite3 -safe app.db <sql>", "sql", "operand"),
    ("sqlite3 -cmd <cmd> app.db", "cmd", "-cmd"),
    ("hyperfine <cmd>", "cmd", "operand"),
    ("just build <arg>", "arg", "operand"),
    ("vim -c <cmd> notes.md", "cmd", "-c"),
    ("emacs --batch -eval <code>", "code", "-eval"),
    ("less <file>", "file", "+command"),
    (
        "tar -xf <archive> --to-command=<cmd>",
        "cmd",
        "--to-command",
    ),
    ("rsync -e <cmd> a b", "cmd", "-e"),
    ("fd -x <cmd>", "cmd", "command"),
    // A brace meant as text must be written `{{`/`}}`: the messages say so.
    ("find . -exec wc -l {} +", "", "{{}}"),
    ("git rev-parse --abbrev-ref @{u}", "", "{{u}}"),
    ("git rev-parse @{u", "", "{{"),
];

struct Workspace {
    _dir: tempfile::TempDir,
    _upstream: tempfile::TempDir,
    root: PathBuf,
}

fn run(dir: &Path, argv: &[&str]) {
    let out = Command::new(argv[0])
        .args(&argv[1..])
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Jane Doe")
        .env("GIT_AUTHOR_EMAIL", "jane@example.com")
        .env("GIT_COMMITTER_NAME", "Jane Doe")
        .env("GIT_COMMITTER_EMAIL", "jane@example.com")
        .output()
        .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    assert!(
        out.status.success(),
        "{argv:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn has(binary: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(binary).is_file()))
}

impl Workspace {
    fn new() -> Self {
        let upstream = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let files: &[(&str, &str)] = &[
            (
                "src/main.rs",
                "fn main() {\n    println!(\"hello\");\n}\n// TODO: tidy\n",
            ),
            (
                "Cargo.toml",
                "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n# build with --locked\n",
            ),
            (
                "package.json",
                "{\n  \"name\": \"demo\",\n  \"scripts\": {\"test\": \"node --test\", \"lint\": \"eslint .\"}\n}\n",
            ),
            (
                "notes.md",
                "# Notes\n- fix the --locked build\n-> Result is returned\nmatch a|b literally\na && b || c\nVec<T>\n$HOME stays\ntab\there\n",
            ),
            ("My Notes/a b.txt", "first\nsecond\nthird\n"),
            ("odd 'quoted' name;x.txt", "one\n"),
            ("data.csv", "name;age\nann;31\nbob;27\n"),
            ("words.txt", "alpha beta\n"),
            ("dupes.txt", "b\na\nc\na\n"),
            ("bundle/readme.txt", "bundled\n"),
            ("hello.txt", "hello, gzip\n"),
            (
                "scripts/report.py",
                "import sys\nprint('report for', sys.argv[1:])\n",
            ),
            (
                "scripts/hello.js",
                "console.log('hello, ' + process.argv[2]);\n",
            ),
            (
                "test/math.test.js",
                "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => assert.strictEqual(1 + 1, 2));\n",
            ),
            (
                "pytests/test_math.py",
                "import unittest\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n",
            ),
            (
                "Makefile",
                "hello:\n\t@echo hello from make\nversion:\n\t@echo 1.2.3\n",
            ),
        ];
        // A bare upstream, so that the project has `origin/main` to track.
        run(
            upstream.path(),
            &["git", "init", "-q", "--bare", "-b", "main", "up.git"],
        );
        let up = upstream.path().join("up.git");
        run(
            dir.path(),
            &["git", "clone", "-q", up.to_str().unwrap(), "project"],
        );
        run(&root, &["git", "checkout", "-q", "-b", "main"]);
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        };
        for (rel, text) in &files[..1] {
            write(rel, text);
        }
        write(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n",
        );
        run(&root, &["git", "add", "-A"]);
        run(&root, &["git", "commit", "-q", "-m", "first commit"]);
        write(
            "src/lib.rs",
            "pub fn run() -> Result<(), String> {\n    Ok(())\n}\n// FIXME later\n",
        );
        run(&root, &["git", "add", "-A"]);
        run(&root, &["git", "commit", "-q", "-m", "add lib: fn run"]);
        for (rel, text) in files {
            write(rel, text);
        }
        run(&root, &["git", "add", "-A"]);
        run(
            &root,
            &["git", "commit", "-q", "-m", "fix: handle --locked"],
        );
        run(&root, &["git", "config", "user.name", "Jane Doe"]);
        run(&root, &["git", "config", "user.email", "jane@example.com"]);
        run(&root, &["git", "push", "-q", "-u", "origin", "main"]);
        // Archives and a database, made outside the tools under test.
        run(&root, &["tar", "-czf", "bundle.tar.gz", "bundle"]);
        run(&root, &["gzip", "-k", "hello.txt"]);
        fs::create_dir(root.join("out")).unwrap();
        if has("sqlite3") {
            run(
                &root,
                &[
                    "sqlite3",
                    "app.db",
                    "CREATE TABLE users(name TEXT); INSERT INTO users VALUES ('bob'), ('ann');",
                ],
            );
        }
        // A symlink that leads outside the project.
        std::os::unix::fs::symlink(upstream.path(), root.join("escape")).unwrap();
        let root = root.canonicalize().unwrap();
        Workspace {
            _dir: dir,
            _upstream: upstream,
            root,
        }
    }
}

/// The tools that write in the workspace, and say so (`"writes": true`).
const WRITES: &[&str] = &["tar_create", "zip_create", "git_commit", "py_compile"];

/// A kernel in `root` whose commands may also read the toolchains the corpus's binaries live
/// in when those sit under `$HOME` (rustup, pyenv, nvm): what `nanotool list` tells a user to
/// add with `--sandbox-read`.
fn corpus_kernel(root: &Path, max_output: usize) -> CommandExecKernel {
    let settings = KernelSettings {
        cwd: root.to_path_buf(),
        max_output,
        ..KernelSettings::default()
    };
    let probe = CommandExecKernel::new(settings.clone()).unwrap();
    let mut read: Vec<PathBuf> = Vec::new();
    for (_, command, _) in tools() {
        let binary = command.split(' ').next().unwrap();
        for path in probe
            .unreadable_binary(binary)
            .map(|u| u.add)
            .unwrap_or_default()
        {
            if !read.contains(&path) {
                read.push(path);
            }
        }
    }
    CommandExecKernel::new(KernelSettings {
        sandbox_read: read,
        ..settings
    })
    .unwrap()
}

/// The tool as a `*.tool.json` descriptor, loaded by the descriptor loader.
fn load(
    name: &str,
    command: &str,
    arguments: &Value,
) -> Result<CommandSpec, nanotool_runtime::DescriptorError> {
    let descriptor = json!({
        "name": name,
        "description": format!("The {name} tool"),
        "command": command,
        "arguments": arguments,
        // The sandbox gives every other tool a read-only workspace.
        "writes": WRITES.contains(&name),
    });
    DescriptorLoader::new().parse(
        Path::new(&format!("{name}.tool.json")),
        &serde_json::to_vec(&descriptor).unwrap(),
    )
}

#[test]
fn the_corpus_loads_and_runs() {
    let ws = Workspace::new();
    let kernel = corpus_kernel(&ws.root, 64 * 1024);
    let cx = ToolContext {
        kernel: &kernel,
        cancel: None,
    };
    let mut loaded: BTreeMap<&str, (CommandTool, &str)> = BTreeMap::new();
    for (name, command, arguments) in tools() {
        let spec = load(name, command, &arguments)
            .unwrap_or_else(|e| panic!("`{name}` ({command}) must load: {e}"));
        loaded.insert(name, (CommandTool::new(spec), command));
    }
    assert!(loaded.len() >= 70, "{} tools", loaded.len());

    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    let mut ran = 0;
    for (i, &(name, args, want)) in CALLS.iter().enumerate() {
        let (tool, command) = loaded
            .get(name)
            .unwrap_or_else(|| panic!("call {i}: no tool `{name}`"));
        let binary = command.split(' ').next().unwrap();
        if matches!(want, Out(..)) && !has(binary) {
            skipped.push(format!("{name} ({binary} is not installed)"));
            continue;
        }
        let args: Value = serde_json::from_str(args).unwrap_or_else(|e| panic!("call {i}: {e}"));
        let out = tool.call(&args, &cx);
        let ok = match want {
            Out(code, texts) => {
                ran += 1;
                out.exec.as_ref().is_some_and(|exec| {
                    exec.exit_code == code
                        && texts
                            .iter()
                            .all(|t| out.output().is_some_and(|o| o.contains(t)))
                })
            }
            Refused(why) => {
                out.code == Some(CODE_INVALID_ARGUMENTS)
                    && out.exec.is_none()
                    && out.text.contains(why)
            }
        };
        if !ok {
            failures.push(format!("{name} {args} (want {want:?}):\n{}", out.text));
        }
        assert!(
            !ws.root.join("pwned").exists(),
            "{name} {args}: a value was expanded into a command"
        );
    }
    // Nothing the calls held was run: every file of the project is still there.
    for file in [
        "src/main.rs",
        "src/lib.rs",
        "notes.md",
        "My Notes/a b.txt",
        "Cargo.toml",
    ] {
        assert!(ws.root.join(file).exists(), "{file} is gone");
    }
    assert!(
        failures.is_empty(),
        "{} of {} calls failed:\n{}",
        failures.len(),
        CALLS.len(),
        failures.join("\n\n")
    );
    assert!(
        ran >= MIN_CALLS,
        "only {ran} calls ran; skipped: {skipped:?}"
    );
    if !skipped.is_empty() {
        eprintln!("skipped (binary not installed): {skipped:?}");
    }
}

/// A commit message with a body, quotes and operator characters is one argument: git
/// stores it as written.
#[test]
fn a_multi_line_commit_message_is_kept_as_written() {
    let ws = Workspace::new();
    let kernel = corpus_kernel(&ws.root, 2048);
    let cx = ToolContext {
        kernel: &kernel,
        cancel: None,
    };
    let tool = |name: &str| {
        let (_, command, arguments) = tools().into_iter().find(|t| t.0 == name).unwrap();
        CommandTool::new(load(name, command, &arguments).unwrap())
    };
    let message =
        "Fix the parser\n\nIt handles `a|b`, \"quotes\" and $HOME; no shell runs.\n\ttabbed line";
    let out = tool("git_commit").call(&json!({"message": message}), &cx);
    assert!(!out.is_error, "{}", out.text);
    let out = tool("git_last_message").call(&json!({}), &cx);
    assert_eq!(out.output().unwrap().trim_end(), message);
    assert!(!ws.root.join("pwned").exists());
}

#[test]
fn the_dangerous_tools_stay_refused_with_their_reason() {
    let mut failures = Vec::new();
    for &(command, slot, why) in REFUSED_TOOLS {
        let arguments = if slot.is_empty() {
            json!({})
        } else {
            json!({slot: {"type": "string", "description": "A value"}})
        };
        match load("dangerous", command, &arguments) {
            Ok(_) => failures.push(format!("{command}: loaded")),
            Err(e) => {
                let text = e.to_string();
                if e.code() != CODE_INVALID_DESCRIPTOR || !text.contains(why) {
                    failures.push(format!(
                        "{command}: want 613 with {why:?}, got {}: {text}",
                        e.code()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(REFUSED_TOOLS.len() >= 40);
}
