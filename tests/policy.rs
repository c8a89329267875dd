//! The policy tested by table: the deny list, the code-entry table, and
//! ExecTool's layer 4.

use nanotool_runtime::policy::{
    DENIED_BINARIES, DENIED_EQUIVALENTS, PolicyError, SlotFreedom, check_exec_argv,
    check_exec_argv_with, check_template, code_entry_sites, is_denied,
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
                    binary: spelled.clone(),
                    span: Some(0..spelled.len()),
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
                binary: spelled.to_string(),
                span: Some(0..spelled.len()),
            }
        );
        assert!(err.to_string().contains("host"), "{err}");
    }
    assert_eq!(check("grep x", &extra), Ok(()));
}

// ------------------------------------------------------------------------------------------
// check_template, by table
// ------------------------------------------------------------------------------------------

/// What the policy must answer for a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Accepted.
    Pass,
    /// Refused: this slot stands as the value of this option (as the table spells it).
    Code(&'static str, &'static str),
    /// Refused: this slot stands at this other place (an operand, a launcher's command, ...).
    CodeAt(&'static str, Place),
    /// Refused: a launcher in the template would run this denied binary.
    DeniedCommand(&'static str),
}
use Verdict::{Code, CodeAt, DeniedCommand, Pass};

use nanotool_runtime::policy::Place::{
    self, Command, Operand, OptionName, OptionValue, PlusCommand, Program, Subcommand,
};
use nanotool_runtime::policy::Site;

/// The site a `Code` or `CodeAt` verdict names.
fn wanted_site(verdict: Verdict) -> Option<(&'static str, Site)> {
    match verdict {
        Code(slot, option) => Some((slot, Site::ValueOf(option))),
        CodeAt(slot, place) => Some((slot, Site::At(place))),
        Pass | DeniedCommand(_) => None,
    }
}

/// (template, slots that are constrained (all others free), verdict)
const TEMPLATES: &[(&str, &[&str], Verdict)] = &[
    // Plain tools just work, with free slots.
    ("wc -l <file>", &[], Pass),
    ("git log -n <count>", &[], Pass),
    ("grep -rn <pattern> <path>", &[], Pass),
    ("find <path> -name <pattern>", &[], Pass),
    ("ls <mode> .", &[], Pass),
    ("ls -<flags> .", &[], Pass),
    ("cat <file>", &[], Pass),
    ("head -n <n> <file>", &[], Pass),
    ("jq <filter> <file>", &[], Pass),
    ("rg -n <pattern> <path>", &[], Pass),
    ("rg --pre-glob <glob> <pattern>", &[], Pass),
    ("git log --format=<fmt> -n 3", &[], Pass),
    ("git -C <dir> log --oneline", &[], Pass),
    ("git log --ext-diff <rev>", &[], Pass),
    ("git show <rev>", &[], Pass),
    ("sort -o <out> <file>", &[], Pass),
    ("sort -k <key> <file>", &[], Pass),
    ("find <path> -delete", &[], Pass),
    ("find <path> -executable -name <pattern>", &[], Pass),
    // A free string as tar's archive or an rsync location can be `host:x`, which makes them
    // run a remote shell (see PATH_TEMPLATES for the same tools with `path` slots).
    ("tar -czf <archive> <dir>", &[], Code("archive", "-f")),
    ("tar xzf <archive>", &[], Code("archive", "-f")),
    ("tar -C <dir> -xf <archive>", &[], Code("archive", "-f")),
    ("tar -xf backups/<name>", &[], Pass),
    ("tar -xf host:<name>", &[], Pass),
    ("rsync -a <src> <dst>", &[], CodeAt("src", Operand)),
    ("rsync -a ./<src> <dst>", &[], CodeAt("dst", Operand)),
    ("rsync -a ./<src> backup/", &[], Pass),
    // Syntax checks read the program and do not run it (perl -c runs BEGIN blocks).
    ("node --check <file>", &[], Pass),
    ("node -c <file>", &[], Pass),
    ("ruby -c <file>", &[], Pass),
    ("php -l <file>", &[], Pass),
    ("php --syntax-check <file>", &[], Pass),
    ("perl -c <file>", &[], CodeAt("file", Program)),
    ("node --ch <file>", &[], CodeAt("file", Program)),
    ("node --check -r <mod> app.js", &[], Code("mod", "-r")),
    // grep's options run nothing, but a slot choosing them could choose `-R`.
    (
        "grep -<flags> <pattern> .",
        &[],
        CodeAt("flags", OptionName),
    ),
    ("grep -<flags> <pattern> .", &["flags"], Pass),
    ("zip -r <archive> <dir>", &[], Pass),
    ("man <page>", &[], Pass),
    ("less -- <file>", &[], Pass),
    ("less notes.txt", &[], Pass),
    ("make -C <dir> test", &[], Pass),
    ("node --version", &[], Pass),
    ("deno fmt <file>", &[], Pass),
    ("deno run main.ts <arg>", &[], Pass),
    // Test runners: their operands name the test files they run, like `pytest <path>`.
    ("node --test <path>", &[], Pass),
    ("node --test --test-reporter spec <path>", &[], Pass),
    ("node --tes <path>", &[], CodeAt("path", Program)),
    ("deno test <path>", &[], Pass),
    ("deno bench <path>", &[], Pass),
    ("bun test <path>", &[], Pass),
    // A package runner's flags are flags: the package stays the program.
    ("npx --no-install eslint <path>", &[], Pass),
    ("npx --yes prettier --check <path>", &[], Pass),
    ("npx eslint <path>", &[], Pass),
    ("npx --no-install <pkg> <path>", &[], CodeAt("pkg", Program)),
    ("npx -c <cmd>", &[], Code("cmd", "-c")),
    ("npx -p <pkg> eslint .", &[], Code("pkg", "-p")),
    ("uvx --from <pkg> ruff check .", &[], Code("pkg", "--from")),
    ("npm exec <pkg>", &[], CodeAt("pkg", Program)),
    ("npm run lint", &[], Pass),
    ("npm run <script>", &[], CodeAt("script", Operand)),
    ("npm test -- <arg>", &[], CodeAt("arg", Operand)),
    ("npm install <pkg>", &[], CodeAt("pkg", Operand)),
    ("npm <sub>", &[], CodeAt("sub", Subcommand)),
    ("npm ls <pkg>", &[], Pass),
    ("yarn <script>", &[], CodeAt("script", Subcommand)),
    ("yarn lint <arg>", &[], CodeAt("arg", Operand)),
    ("pnpm dlx <pkg>", &[], CodeAt("pkg", Program)),
    // Programs that join their arguments into a command line or evaluate one: a free slot
    // there is refused whatever characters it holds.
    ("hyperfine <cmd>", &[], CodeAt("cmd", Operand)),
    ("hyperfine --warmup 3 make", &[], Pass),
    ("hyperfine -p <prep> make", &[], Code("prep", "-p")),
    ("watchexec -e rs <cmd>", &[], CodeAt("cmd", Operand)),
    ("watchexec -e <ext> cargo test", &[], Pass),
    ("concurrently <a> <b>", &[], CodeAt("a", Operand)),
    ("just <recipe>", &[], CodeAt("recipe", Operand)),
    ("just build <arg>", &[], CodeAt("arg", Operand)),
    ("task test -- <arg>", &[], CodeAt("arg", Operand)),
    ("just --set <kv> build", &[], Code("kv", "--set")),
    ("nodemon --exec <cmd>", &[], Code("cmd", "--exec")),
    ("nodemon <script>", &[], CodeAt("script", Program)),
    ("fd -e rs -x <cmd>", &[], CodeAt("cmd", Command)),
    ("fd -e rs -x wc -l", &[], Pass),
    ("fd -e rs -X rm", &[], DeniedCommand("rm")),
    ("fd -e <ext> <pattern> <dir>", &[], Pass),
    ("find . -name *.rs -exec wc -l {{}} +", &[], Pass),
    (
        "find . -name *.rs -exec rm {{}} +",
        &[],
        DeniedCommand("rm"),
    ),
    // find's `--` ends only the options before the starting points: `-exec` after them
    // still runs.
    ("find -- . -exec rm {{}} +", &[], DeniedCommand("rm")),
    (
        "find -- <dir> -exec <cmd> {{}} +",
        &[],
        CodeAt("cmd", Command),
    ),
    ("sshpass -p x ssh host", &[], DeniedCommand("ssh")),
    // `ssh-agent <cmd>` runs its command too, but ssh-agent is denied outright (DENIED_EQUIVALENTS).
    ("dbus-run-session -- <cmd>", &[], CodeAt("cmd", Command)),
    ("firejail --private <cmd>", &[], CodeAt("cmd", Command)),
    ("faketime 2020-01-01 <cmd>", &[], CodeAt("cmd", Command)),
    ("entr -s <cmd>", &[], CodeAt("cmd", Command)),
    (
        "valgrind --db-command=<cmd> ./app",
        &[],
        Code("cmd", "--db-command"),
    ),
    (
        "valgrind --leak-check=full <cmd>",
        &[],
        CodeAt("cmd", Command),
    ),
    ("xvfb-run -s <args> ./app", &[], Code("args", "-s")),
    ("nvim -l <script>", &[], Code("script", "-l")),
    ("nvim --headless -c <cmd>", &[], Code("cmd", "-c")),
    (
        "vim --remote-send <keys>",
        &[],
        Code("keys", "--remote-send"),
    ),
    (
        "vim --remote-expr <expr>",
        &[],
        Code("expr", "--remote-expr"),
    ),
    ("emacs -eval <code>", &[], Code("code", "-eval")),
    ("emacs -batch -load <file>", &[], Code("file", "-load")),
    ("emacs -batch -funcall <f>", &[], Code("f", "-funcall")),
    ("emacs --batch -L <dir> -l init.el", &[], Code("dir", "-L")),
    (
        "nano --speller <prog> notes.txt",
        &[],
        Code("prog", "--speller"),
    ),
    (
        "less --lesskey-content=<text> notes.txt",
        &[],
        Code("text", "--lesskey-content"),
    ),
    ("cmake -D <var> -S . -B build", &[], Code("var", "-D")),
    (
        "cmake -DCMAKE_BUILD_TYPE=<type> -S . -B build",
        &[],
        Code("type", "-D"),
    ),
    (
        "cmake -DCMAKE_BUILD_TYPE=<type> -S . -B build",
        &["type"],
        Pass,
    ),
    (
        "git send-email --to-cmd <cmd> HEAD~1",
        &[],
        Code("cmd", "--to-cmd"),
    ),
    ("git instaweb --httpd <cmd>", &[], Code("cmd", "--httpd")),
    ("git log -S <text> --oneline", &[], Pass),
    ("cargo --config <cfg> build", &[], Code("cfg", "--config")),
    ("cargo test <filter>", &[], Pass),
    ("go test -exec <cmd> ./...", &[], Code("cmd", "-exec")),
    ("go test -run <pattern> ./...", &[], Pass),
    // sqlite3: SQL and dot-commands (`.shell`, `.system`; `.trace FILE` truncates a file even
    // under `-safe`) stay the author's.
    ("sqlite3 -safe <db> <sql>", &[], CodeAt("sql", Operand)),
    ("sqlite3 -readonly <db> <sql>", &["sql"], Pass),
    ("sqlite3 -cmd <cmd> app.db", &[], Code("cmd", "-cmd")),
    // make: an operand may be a variable assignment (`SHELL=...`).
    ("make <target>", &[], CodeAt("target", Operand)),
    ("make CFLAGS=<flags> all", &[], CodeAt("flags", Operand)),
    ("make -C <dir> VAR=<v>", &[], CodeAt("v", Operand)),
    ("bun test <filter>", &[], Pass),
    ("timeout 5 grep -rn <pattern> .", &[], Pass),
    ("timeout <secs> make test", &[], Pass),
    ("nice -n <n> make test", &[], Pass),
    ("sqlite3 <db> .tables", &[], Pass),
    // Literal code is the author's: fine.
    ("python3 -c print(1)", &[], Pass),
    ("python3 -m json.tool <file>", &[], Pass),
    ("python3 -mjson.tool <file>", &[], Pass),
    ("python3 scripts/report.py <month>", &[], Pass),
    ("python3 -u scripts/report.py <month>", &[], Pass),
    ("python3 -W ignore scripts/report.py <month>", &[], Pass),
    (
        "python3 -X dev -Wignore scripts/report.py <month>",
        &[],
        Pass,
    ),
    ("python3 -- scripts/report.py <month>", &[], Pass),
    ("perl -ne print <file>", &[], Pass),
    ("perl -Mstrict -e print <file>", &[], Pass),
    ("awk -F <sep> -f prog.awk <file>", &[], Pass),
    ("awk -v <assign> -f prog.awk <file>", &[], Pass),
    ("sed -n 1p <file>", &[], Pass),
    ("sed -n -e 1p <file>", &[], Pass),
    ("sed -i -e s/a/b/ <file>", &[], Pass),
    ("node app.js <arg>", &[], Pass),
    ("node --no-warnings app.js <arg>", &[], Pass),
    ("node --experimental-vm-modules app.js <arg>", &[], Pass),
    ("node --max-old-space-size=4096 app.js <arg>", &[], Pass),
    ("deno run -A main.ts <arg>", &[], Pass),
    ("deno run --allow-read main.ts <arg>", &[], Pass),
    ("java -Xmx1g -ea -Dk=v Main <arg>", &[], Pass),
    ("java -Xmx1g -jar app.jar <arg>", &[], Pass),
    ("node -r ./setup.js app.js <arg>", &[], Pass),
    ("git -c color.ui=never log <rev>", &[], Pass),
    // Constrained slots may stand where code goes: the author vouches.
    ("sed -n <range>p <path>", &["range"], Pass),
    ("sed -n <start>,<end>p <file>", &["start", "end"], Pass),
    ("python3 -c <code>", &["code"], Pass),
    ("awk <prog> <file>", &["prog"], Pass),
    ("git <sub> --oneline", &["sub"], Pass),
    ("make <target>", &["target"], Pass),
    ("python3 -<flag> <script>", &["flag", "script"], Pass),
    // Interpreters: code-entry options, bundles, attached values, abbreviations.
    ("python3 -c <code>", &[], Code("code", "-c")),
    ("python3 -c<code>", &[], Code("code", "-c")),
    ("python3 -Ic <x>", &[], Code("x", "-c")),
    ("python3 -I -c <x>", &[], Code("x", "-c")),
    ("python3 -W ignore -c <x>", &[], Code("x", "-c")),
    ("python3 -X dev -c <x>", &[], Code("x", "-c")),
    ("python3 -m <module>", &[], Code("module", "-m")),
    ("python3 -m<module> <arg>", &[], Code("module", "-m")),
    ("python3 <script>", &[], CodeAt("script", Program)),
    (
        "python3 <script> <arg>",
        &["arg"],
        CodeAt("script", Program),
    ),
    ("python3 -u <script>", &[], CodeAt("script", Program)),
    ("python3 -Wignore <script>", &[], CodeAt("script", Program)),
    ("python3 -- <script>", &[], CodeAt("script", Program)),
    ("/usr/bin/python3.12 -c <code>", &[], Code("code", "-c")),
    ("pypy3 <script>", &[], CodeAt("script", Program)),
    (
        "python3 -<flags> script.py",
        &[],
        CodeAt("flags", OptionName),
    ),
    (
        "python3 -I<flags> script.py",
        &[],
        CodeAt("flags", OptionName),
    ),
    // An option chosen by a slot may take the next token as its value, or the program.
    (
        "python3 -<flag> <code>",
        &["flag"],
        CodeAt("code", OptionValue),
    ),
    (
        "python3 -<flag> script.py <arg>",
        &["flag"],
        CodeAt("arg", Program),
    ),
    ("node -p <x>", &[], Code("x", "-p")),
    ("node -e <x>", &[], Code("x", "-e")),
    ("node -pe <x>", &[], Code("x", "-e")),
    ("node --eval=<x>", &[], Code("x", "--eval")),
    ("node --eval <x>", &[], Code("x", "--eval")),
    ("node --ev <x>", &[], Code("x", "--eval")),
    ("node --ev=<x>", &[], Code("x", "--eval")),
    ("node --print <x>", &[], Code("x", "--print")),
    ("node <script>", &[], CodeAt("script", Program)),
    ("node -r <module> app.js", &[], Code("module", "-r")),
    (
        "node -r ./setup.js <script>",
        &[],
        CodeAt("script", Program),
    ),
    (
        "node --no-warnings <script>",
        &[],
        CodeAt("script", Program),
    ),
    (
        "node --experimental-loader <x> app.js",
        &[],
        Code("x", "--experimental-loader"),
    ),
    (
        "node --experimental-config-file <x> app.js",
        &[],
        Code("x", "--experimental-config-file"),
    ),
    // An option the table does not know may take the next token: both are judged.
    (
        "node --unknown-flag app.js <arg>",
        &[],
        CodeAt("arg", Program),
    ),
    ("nodejs <script>", &[], CodeAt("script", Program)),
    ("node --<opt>=1 app.js", &[], CodeAt("opt", OptionName)),
    ("perl -le <x>", &[], Code("x", "-e")),
    ("perl -e <x>", &[], Code("x", "-e")),
    ("perl -E<x>", &[], Code("x", "-E")),
    ("perl -Mstrict -e <x>", &[], Code("x", "-e")),
    ("perl -M<module> -e 1", &[], Code("module", "-M")),
    ("perl -Mstrict <script>", &[], CodeAt("script", Program)),
    ("perl <script>", &[], CodeAt("script", Program)),
    ("perl -pie <x>", &[], CodeAt("x", Program)),
    ("ruby -e <x>", &[], Code("x", "-e")),
    ("ruby -r<lib> app.rb", &[], Code("lib", "-r")),
    ("ruby <script>", &[], CodeAt("script", Program)),
    // A free load path picks where `use`/`require` find their modules.
    ("perl -I <dir> report.pl", &[], Code("dir", "-I")),
    ("perl -I<dir> report.pl", &[], Code("dir", "-I")),
    ("ruby -I <dir> report.rb", &[], Code("dir", "-I")),
    ("perl -Ilib report.pl <month>", &[], Pass),
    // TypeScript runners through node.
    ("tsx -e <x>", &[], Code("x", "-e")),
    ("tsx <script>", &[], CodeAt("script", Program)),
    ("ts-node -p <x>", &[], Code("x", "-p")),
    ("tsx scripts/report.ts <month>", &[], Pass),
    ("php -r <x>", &[], Code("x", "-r")),
    ("php -d <ini> app.php", &[], Code("ini", "-d")),
    (
        "php -d memory_limit=1G <script>",
        &[],
        CodeAt("script", Program),
    ),
    ("lua -e <x>", &[], Code("x", "-e")),
    ("lua -e x=1 <script>", &[], CodeAt("script", Program)),
    ("luajit-2.1 <script>", &[], CodeAt("script", Program)),
    ("awk <prog> <file>", &[], CodeAt("prog", Program)),
    ("awk -F : <prog> <file>", &[], CodeAt("prog", Program)),
    ("awk -f <prog> <file>", &[], Code("prog", "-f")),
    ("gawk --source=<x> <file>", &[], Code("x", "--source")),
    ("gawk --so <x> <file>", &[], Code("x", "--source")),
    (
        "gawk -i lib.awk <prog> <file>",
        &[],
        CodeAt("prog", Program),
    ),
    ("mawk -W exec <prog>", &[], CodeAt("prog", Program)),
    ("nawk <prog>", &[], CodeAt("prog", Program)),
    ("sed <script> <file>", &[], CodeAt("script", Program)),
    ("sed -n <range>p <path>", &[], CodeAt("range", Program)),
    (
        "sed -n <start>,<end>p <file>",
        &["end"],
        CodeAt("start", Program),
    ),
    ("sed -e <x> <file>", &[], Code("x", "-e")),
    ("sed -ne <x> <file>", &[], Code("x", "-e")),
    (
        "sed --expression=<x> <file>",
        &[],
        Code("x", "--expression"),
    ),
    ("sed --ex <x> <file>", &[], Code("x", "--expression")),
    ("sed --e=<x> <file>", &[], Code("x", "--expression")),
    ("sed -f <x> <file>", &[], Code("x", "-f")),
    ("sed <file> -e <x>", &[], Code("x", "-e")),
    ("sed -i <script> <file>", &[], CodeAt("script", Program)),
    ("sed -n 1p <file> -<flag>", &[], CodeAt("flag", OptionName)),
    ("deno eval <x>", &[], CodeAt("x", Program)),
    ("deno run <script>", &[], CodeAt("script", Program)),
    ("deno run -A <script>", &[], CodeAt("script", Program)),
    ("deno <script>", &[], CodeAt("script", Subcommand)),
    ("deno task <task>", &[], CodeAt("task", Operand)),
    ("deno <sub> x", &[], CodeAt("sub", Subcommand)),
    ("bun -e <x>", &[], Code("x", "-e")),
    // `bun run <script> <arg>` appends its arguments to the script's shell command line.
    ("bun run <script>", &[], CodeAt("script", Operand)),
    ("bun run lint <arg>", &[], CodeAt("arg", Operand)),
    ("bun <script>", &[], CodeAt("script", Subcommand)),
    ("bun x <pkg>", &[], CodeAt("pkg", Program)),
    ("npx <pkg>", &[], CodeAt("pkg", Program)),
    ("Rscript -e <x>", &[], Code("x", "-e")),
    ("Rscript <script>", &[], CodeAt("script", Program)),
    ("osascript -e <x>", &[], Code("x", "-e")),
    ("tclsh <script>", &[], CodeAt("script", Program)),
    ("expect -c <x>", &[], Code("x", "-c")),
    ("julia -e <x>", &[], Code("x", "-e")),
    ("java -jar <jar>", &[], CodeAt("jar", Program)),
    ("java -cp <cp> Main", &[], Code("cp", "-cp")),
    (
        "java -javaagent:<agent> -jar app.jar",
        &[],
        Code("agent", "-javaagent:"),
    ),
    ("dc -e <x>", &[], Code("x", "-e")),
    ("m4 <file>", &[], CodeAt("file", Operand)),
    ("sqlite3 db.sqlite <sql>", &[], CodeAt("sql", Operand)),
    ("sqlite3 -cmd <x> db.sqlite", &[], Code("x", "-cmd")),
    ("psql -c <sql>", &[], Code("sql", "-c")),
    ("gdb -batch -ex <x> ./prog", &[], Code("x", "-ex")),
    ("gdb -batch --ex=<x> ./prog", &[], Code("x", "-ex")),
    ("gdb --args <cmd>", &[], CodeAt("cmd", Command)),
    ("vim -c <x> notes.txt", &[], Code("x", "-c")),
    ("vim +<x> notes.txt", &[], CodeAt("x", PlusCommand)),
    ("less +<x> notes.txt", &[], CodeAt("x", PlusCommand)),
    // A value may not begin with `-`, but it may begin with `+` (`less +!cmd`).
    ("less <file>", &[], CodeAt("file", PlusCommand)),
    ("vim <file>", &[], CodeAt("file", PlusCommand)),
    ("less <file>", &["file"], Pass),
    ("man -P <pager> ls", &[], Code("pager", "-P")),
    ("make <target>", &[], CodeAt("target", Operand)),
    ("make -f <makefile>", &[], Code("makefile", "-f")),
    ("make --eval=<x> all", &[], Code("x", "--eval")),
    ("cmake -P <script>", &[], Code("script", "-P")),
    ("emacs --batch --eval <x>", &[], Code("x", "--eval")),
    // Launchers.
    ("git -c <cfg> log", &[], Code("cfg", "-c")),
    ("git -c<cfg> log", &[], Code("cfg", "-c")),
    ("git --config-env=<x> log", &[], Code("x", "--config-env")),
    ("git --exec-path=<dir> log", &[], Code("dir", "--exec-path")),
    ("git <sub> --oneline", &[], CodeAt("sub", Subcommand)),
    ("git --<opt> log", &[], CodeAt("opt", OptionName)),
    ("git rebase -x <cmd> main", &[], Code("cmd", "-x")),
    ("git rebase --exec=<cmd> main", &[], Code("cmd", "--exec")),
    ("git grep -O<pager> foo", &[], Code("pager", "-O")),
    (
        "git fetch --upload-pack=<x> origin",
        &[],
        Code("x", "--upload-pack"),
    ),
    (
        "git fetch --upl <x> origin",
        &[],
        Code("x", "--upload-pack"),
    ),
    (
        "git push --receive-pack <x> origin",
        &[],
        Code("x", "--receive-pack"),
    ),
    ("git clone -u <x> repo", &[], Code("x", "-u")),
    (
        "git clone --config <cfg> repo",
        &[],
        Code("cfg", "--config"),
    ),
    ("git difftool -x <cmd>", &[], Code("cmd", "-x")),
    ("git bisect run <cmd>", &[], CodeAt("cmd", Command)),
    (
        "git bisect run make <target>",
        &[],
        CodeAt("target", Operand),
    ),
    ("git submodule foreach <cmd>", &[], CodeAt("cmd", Operand)),
    (
        "git filter-branch --tree-filter <cmd> HEAD",
        &[],
        Code("cmd", "--tree-filter"),
    ),
    ("find <path> -exec <cmd> +", &[], CodeAt("cmd", Command)),
    (
        "find <path> -execdir <cmd> +",
        &["cmd"],
        CodeAt("cmd", Command),
    ),
    ("find . -exec python3 -c <x> +", &[], Code("x", "-c")),
    (
        "tar --to-command=<x> -xf a.tar",
        &[],
        Code("x", "--to-command"),
    ),
    (
        "tar --to-command <x> -xf a.tar",
        &[],
        Code("x", "--to-command"),
    ),
    ("tar -I <x> -cf a.tar .", &[], Code("x", "-I")),
    ("tar -cI<x> -f a.tar .", &[], Code("x", "-I")),
    ("tar xIf <x> a.tar", &[], Code("x", "-I")),
    ("tar <ops> a.tar", &[], CodeAt("ops", OptionName)),
    (
        "tar --use <x> -cf a.tar .",
        &[],
        Code("x", "--use-compress-program"),
    ),
    (
        "tar --checkpoint-action=exec=<x> -cf a.tar .",
        &[],
        Code("x", "--checkpoint-action"),
    ),
    ("rsync -e <x> a b", &[], Code("x", "-e")),
    ("rsync -avze <x> a b", &[], Code("x", "-e")),
    ("rsync --rsync-path=<x> a b", &[], Code("x", "--rsync-path")),
    (
        "sort --compress-program=<x> f",
        &[],
        Code("x", "--compress-program"),
    ),
    (
        "sort --compress <x> f",
        &[],
        Code("x", "--compress-program"),
    ),
    ("rg --pre <x> pattern", &[], Code("x", "--pre")),
    ("rg --pre=<x> pattern", &[], Code("x", "--pre")),
    (
        "rg --hostname-bin <x> pattern",
        &[],
        Code("x", "--hostname-bin"),
    ),
    ("zip -TT <x> a.zip f", &[], Code("x", "-TT")),
    ("zip -TT<x> a.zip f", &[], Code("x", "-TT")),
    (
        "zip --unzip-command=<x> a.zip f",
        &[],
        Code("x", "--unzip-command"),
    ),
    ("tcpdump -z <x> -w out", &[], Code("x", "-z")),
    // Wrappers: their command is fixed, and checked in turn.
    ("timeout 5 <cmd>", &[], CodeAt("cmd", Command)),
    ("timeout 5 <cmd>", &["cmd"], CodeAt("cmd", Command)),
    ("timeout 5 rm -rf x", &[], DeniedCommand("rm")),
    ("timeout -s KILL 5 /bin/rm x", &[], DeniedCommand("/bin/rm")),
    ("timeout -s KILL 5 python3 -c <x>", &[], Code("x", "-c")),
    (
        "timeout --signal=KILL <secs> python3 <script>",
        &[],
        CodeAt("script", Program),
    ),
    ("nice -n 5 bash -c x", &[], DeniedCommand("bash")),
    ("nice -5 sh", &[], DeniedCommand("sh")),
    ("stdbuf -oL <cmd>", &[], CodeAt("cmd", Command)),
    (
        "ionice -c 3 nice -n 19 python3 <script>",
        &[],
        CodeAt("script", Program),
    ),
    ("flock lock -c <x>", &[], Code("x", "-c")),
    ("flock lock sudo x", &[], DeniedCommand("sudo")),
    ("strace -o <x> ls", &[], Code("x", "-o")),
    ("strace -f <cmd>", &[], CodeAt("cmd", Command)),
    ("time -o out <cmd>", &[], CodeAt("cmd", Command)),
    ("find . -exec rm +", &[], DeniedCommand("rm")),
    ("chronic python3 <script>", &[], CodeAt("script", Program)),
    ("valgrind --leak-check=full ./prog <arg>", &[], Pass),
    (
        "valgrind --leak-check=full <prog>",
        &[],
        CodeAt("prog", Command),
    ),
    ("git bisect run curl x", &[], DeniedCommand("curl")),
    // git config writes settings later git commands run.
    ("git config --get <key>", &[], Pass),
    ("git config get <key>", &[], Pass),
    ("git config <key>", &[], Pass),
    ("git config user.name <name>", &["name"], Pass),
    ("git config user.name <name>", &[], CodeAt("name", Operand)),
    ("git config <key> <value>", &[], CodeAt("value", Operand)),
    (
        "git config set <key> <value>",
        &[],
        CodeAt("value", Operand),
    ),
    // A subcommand chosen by a slot: every subcommand's options are judged after it.
    ("git <sub> -c <cfg> repo", &["sub"], Code("cfg", "-c")),
    // perl's digit flags end where the digits do.
    ("perl -lane print <file>", &[], Pass),
    ("perl -0777 -ne print <file>", &[], Pass),
    ("perl -l0 <script>", &[], CodeAt("script", Program)),
    ("perl -lan <script>", &[], CodeAt("script", Program)),
];

fn verdict(template: &str, constrained: &[&str]) -> Result<(), PolicyError> {
    let t = Template::parse(template).unwrap_or_else(|e| panic!("{template}: {e}"));
    let freedom = |slot: &str| {
        if constrained.contains(&slot) {
            SlotFreedom::Constrained
        } else {
            SlotFreedom::Free
        }
    };
    check_template(&t, &freedom, &[])
}

#[test]
fn templates_by_table() {
    let mut failures = Vec::new();
    for &(template, constrained, expected) in TEMPLATES {
        let got = verdict(template, constrained);
        let ok = match (&got, expected) {
            (Ok(()), Pass) => true,
            (
                Err(PolicyError::CodeEntry {
                    slot, site, span, ..
                }),
                Code(..) | CodeAt(..),
            ) => {
                // The span is the slot's placeholder in the template source.
                let placeholder = &template[span.clone()];
                wanted_site(expected) == Some((slot.as_str(), *site))
                    && placeholder[1..placeholder.len() - 1] == **slot
            }
            (Err(PolicyError::DeniedCommand { binary, span, .. }), DeniedCommand(want)) => {
                binary == want && span.clone().is_some_and(|s| &template[s] == want)
            }
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "{template:?} {constrained:?}: want {expected:?}, got {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ------------------------------------------------------------------------------------------
// Path slots: rendered `./relative` or `.`, so never `+cmd` and never `host:file`
// ------------------------------------------------------------------------------------------

/// (template, slots of kind `path`, verdict); every other slot is free.
const PATH_TEMPLATES: &[(&str, &[&str], Verdict)] = &[
    // A path can never begin with `+`: the pagers and editors read it as a file.
    ("less <file>", &["file"], Pass),
    ("less -N <file>", &["file"], Pass),
    ("less -N -- <file>", &["file"], Pass),
    ("vim -R <file>", &["file"], Pass),
    ("view <file>", &["file"], Pass),
    ("vim <file> <other>", &["file", "other"], Pass),
    (
        "less <file><suffix>",
        &["file"],
        CodeAt("suffix", PlusCommand),
    ),
    ("less <file> <more>", &["file"], CodeAt("more", PlusCommand)),
    ("less +<x> <file>", &["x", "file"], CodeAt("x", PlusCommand)),
    ("vim +<x> notes.txt", &["x"], CodeAt("x", PlusCommand)),
    // But a path is no safer where the file's *content* is the code.
    ("python3 <script>", &["script"], CodeAt("script", Program)),
    (
        "python3 -u <script> <arg>",
        &["script", "arg"],
        CodeAt("script", Program),
    ),
    (
        "awk -f <prog> <file>",
        &["prog", "file"],
        Code("prog", "-f"),
    ),
    (
        "sed <script> <file>",
        &["script", "file"],
        CodeAt("script", Program),
    ),
    ("python3 -c <code>", &["code"], Code("code", "-c")),
    ("vim -S <file>", &["file"], Code("file", "-S")),
    (
        "less -k <keys> <file>",
        &["keys", "file"],
        Code("keys", "-k"),
    ),
    ("timeout 5 <cmd>", &["cmd"], CodeAt("cmd", Command)),
    ("perl -c <file>", &["file"], CodeAt("file", Program)),
    ("node --check <file>", &["file"], Pass),
    // A path never holds `:` before its `/`: tar and rsync read it as local.
    ("tar -czf <archive> <dir>", &["archive", "dir"], Pass),
    ("tar xzf <archive>", &["archive"], Pass),
    ("tar -C <dir> -xf <archive>", &["dir", "archive"], Pass),
    ("tar --file=<archive> -x", &["archive"], Pass),
    ("tar -xf<archive>", &["archive"], Pass),
    ("tar -xf <archive>.tar", &["archive"], Pass),
    ("tar -xf <archive>/<name>", &["archive"], Pass),
    // `.` followed by `:x` is `.:x`, host `.`.
    ("tar -xf <archive>:x", &["archive"], Code("archive", "-f")),
    ("tar -xf <archive><name>", &["archive"], Code("name", "-f")),
    ("rsync -a <src> <dst>", &["src", "dst"], Pass),
    (
        "rsync -av --exclude <pat> <src> <dst>",
        &["src", "dst"],
        Pass,
    ),
    (
        "rsync -a <src> <host>:<dst>",
        &["src", "dst"],
        CodeAt("host", Operand),
    ),
];

fn path_verdict(template: &str, paths: &[&str]) -> Result<(), PolicyError> {
    let t = Template::parse(template).unwrap_or_else(|e| panic!("{template}: {e}"));
    let freedom = |slot: &str| {
        if paths.contains(&slot) {
            SlotFreedom::Path
        } else {
            SlotFreedom::Free
        }
    };
    check_template(&t, &freedom, &[])
}

#[test]
fn path_slots_by_table() {
    let mut failures = Vec::new();
    for &(template, paths, expected) in PATH_TEMPLATES {
        let got = path_verdict(template, paths);
        let ok = match (&got, expected) {
            (Ok(()), Pass) => true,
            (Err(PolicyError::CodeEntry { slot, site, .. }), Code(..) | CodeAt(..)) => {
                wanted_site(expected) == Some((slot.as_str(), *site))
            }
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "{template:?} {paths:?}: want {expected:?}, got {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_path_slot_maps_to_path_freedom_and_its_sites_say_so() {
    use nanotool_runtime::{SlotKind, SlotSpec};
    let path = SlotSpec::new("file", SlotKind::Path, "A file");
    assert_eq!(path.freedom(), SlotFreedom::Path);
    assert_eq!(
        SlotSpec::new("s", SlotKind::String, "A string").freedom(),
        SlotFreedom::Free
    );
    let sites = code_entry_sites(&Template::parse("less <file>").unwrap());
    assert_eq!(sites.len(), 1, "{sites:?}");
    assert!(sites[0].path_ok && !sites[0].literal_only);
    let sites = code_entry_sites(&Template::parse("python3 <script>").unwrap());
    assert!(!sites[0].path_ok);
    // The message offers a `path` where a path would do.
    let err = verdict("less <file>", &[]).unwrap_err();
    assert!(err.to_string().contains("`path`"), "{err}");
    let err = verdict("python3 <file>", &[]).unwrap_err();
    assert!(!err.to_string().contains("`path`"), "{err}");
}

#[test]
fn descriptors_with_path_slots_at_plus_command_and_archive_sites_load() {
    use nanotool_runtime::DescriptorLoader;
    use std::path::Path;
    let parse = |command: &str, kind: &str| {
        let json = format!(
            r#"{{"name": "t", "description": "A tool", "command": "{command}",
                "arguments": {{"file": {{"type": "{kind}", "description": "A file"}}}}}}"#
        );
        DescriptorLoader::new().parse(Path::new("t.tool.json"), json.as_bytes())
    };
    for command in [
        "less <file>",
        "less -N <file>",
        "vim -R <file>",
        "tar -tf <file>",
        "rsync -a <file> backup/",
        "node --check <file>",
    ] {
        assert!(
            parse(command, "path").is_ok(),
            "{command}: {:?}",
            parse(command, "path").err()
        );
        let err = parse(command, "string").err();
        if command != "node --check <file>" {
            let err = err.unwrap_or_else(|| panic!("{command} with a string loads"));
            assert_eq!(err.code(), 613);
        }
    }
    for command in ["python3 <file>", "awk -f <file> x", "less +<file>"] {
        let err = parse(command, "path").expect_err(command);
        assert_eq!(err.code(), 613, "{command}");
    }
}

/// A descriptor from a command and its `arguments` object (JSON text).
fn parse_descriptor(
    command: &str,
    arguments: &str,
) -> Result<nanotool_runtime::CommandSpec, nanotool_runtime::DescriptorError> {
    let json = format!(
        r#"{{"name": "t", "description": "A tool", "command": "{command}", "arguments": {arguments}}}"#
    );
    nanotool_runtime::DescriptorLoader::new()
        .parse(std::path::Path::new("t.tool.json"), json.as_bytes())
}

#[test]
fn enum_values_and_left_out_slots_cannot_move_a_free_slot_into_code() {
    let string = r#"{"type": "string", "description": "Any text"}"#;
    let refused = [
        // An enum value that is a code option makes the next slot its code.
        (
            "python3 <flag> <arg>",
            format!(
                r#"{{"flag": {{"type": "enum", "enum": ["-c"], "description": "A flag"}}, "arg": {string}}}"#
            ),
            "`flag` is `-c`",
        ),
        // A plain flag leaves the free slot as the program.
        (
            "python3 <flag> <arg>",
            format!(
                r#"{{"flag": {{"type": "enum", "enum": ["-u", "-B"], "description": "A flag"}}, "arg": {string}}}"#
            ),
            "`flag` is `-u`",
        ),
        (
            "sed <flag> <script> notes.txt",
            format!(
                r#"{{"flag": {{"type": "enum", "enum": ["-n", "-s"], "description": "A flag"}}, "script": {string}}}"#
            ),
            "`flag` is `-n`",
        ),
        (
            "git <flag> <cfg> log",
            format!(
                r#"{{"flag": {{"type": "enum", "enum": ["-c"], "description": "A flag"}}, "cfg": {string}}}"#
            ),
            "`flag` is `-c`",
        ),
        // A left-out optional slot shifts the free one into the program's place.
        (
            "python3 <name> <arg>",
            format!(
                r#"{{"name": {{"type": "enum", "enum": ["report.py"], "description": "A script", "required": false}}, "arg": {string}}}"#
            ),
            "`name` is left out",
        ),
        (
            "awk <n> <file>",
            r#"{"n": {"type": "integer", "description": "A number", "required": false}, "file": {"type": "path", "description": "A file"}}"#.to_owned(),
            "`n` is left out",
        ),
    ];
    for (command, arguments, assignment) in &refused {
        let err = parse_descriptor(command, arguments)
            .err()
            .unwrap_or_else(|| panic!("{command} with {arguments} loads"));
        assert_eq!(err.code(), 613, "{command}");
        assert!(
            err.message.contains(assignment) && err.message.contains("the command reads"),
            "{command}: {err}"
        );
        assert!(err.message.contains('^'), "{command}: no caret line: {err}");
    }
    // Plain tools with enums and optional slots still load.
    let accepted = [
        (
            "ls <mode> <path>",
            r#"{"mode": {"type": "enum", "enum": ["-l", "-1", "-la"], "description": "How"}, "path": {"type": "path", "description": "Where", "default": "."}}"#,
        ),
        (
            "git log <format> -n <count>",
            r#"{"format": {"type": "enum", "enum": ["--oneline", "--stat"], "description": "How"}, "count": {"type": "integer", "description": "How many", "minimum": 1}}"#,
        ),
        (
            "grep -rn --max-count=<n> <pattern> <path>",
            r#"{"n": {"type": "integer", "description": "At most", "required": false}, "pattern": {"type": "string", "description": "What"}, "path": {"type": "path", "description": "Where", "default": "."}}"#,
        ),
        (
            "python3 -m json.tool <style> <file>",
            r#"{"style": {"type": "enum", "enum": ["--compact", "--sort-keys"], "description": "How", "required": false}, "file": {"type": "path", "description": "The file"}}"#,
        ),
        (
            "python3 scripts/report.py <flag> <month>",
            r#"{"flag": {"type": "enum", "enum": ["-c", "--json"], "description": "How"}, "month": {"type": "string", "description": "Which"}}"#,
        ),
    ];
    for (command, arguments) in accepted {
        assert!(
            parse_descriptor(command, arguments).is_ok(),
            "{command}: {:?}",
            parse_descriptor(command, arguments).err()
        );
    }
}

// ------------------------------------------------------------------------------------------
// check_exec_argv (ExecTool layer 4), by table
// ------------------------------------------------------------------------------------------

/// What layer 4 must answer for a free-text argv (split on spaces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exec {
    /// Allowed.
    Allow,
    /// Refused: this option or operand (as written) of this binary.
    Refuse(&'static str, &'static str),
    /// Refused: this binary is denied.
    Denied(&'static str),
    /// Refused: a launcher would run this denied binary.
    DeniedInner(&'static str),
}
use Exec::{Allow, Denied, DeniedInner, Refuse};

const EXEC: &[(&str, Exec)] = &[
    // git
    ("git log -n 3", Allow),
    ("git status --short", Allow),
    ("git diff --stat HEAD~1", Allow),
    ("git log --format=%H -n 3", Allow),
    // Unknown options are flags: a value that looks like a writer option is judged as one.
    ("git log --no-merges --output", Refuse("git", "--output")),
    // `-C` moves where later names resolve, which free text cannot confine.
    ("git -C sub log", Refuse("git", "-C sub")),
    ("git -c x=y log", Refuse("git", "-c x=y")),
    ("git -cx=y log", Refuse("git", "-cx=y")),
    ("git -c alias.x=!sh x", Refuse("git", "-c alias.x=!sh")),
    (
        "git --config-env=a=B log",
        Refuse("git", "--config-env=a=B"),
    ),
    (
        "git --exec-path=/tmp log",
        Refuse("git", "--exec-path=/tmp"),
    ),
    ("git --exec-path", Refuse("git", "--exec-path")),
    ("git log --output=f", Refuse("git", "--output=f")),
    ("git log --out=f", Refuse("git", "--out=f")),
    ("git log -p --output f", Refuse("git", "--output f")),
    ("git diff --ext-diff", Refuse("git", "--ext-diff")),
    ("git grep -O foo", Refuse("git", "-O")),
    ("git grep -Ovim foo", Refuse("git", "-Ovim")),
    (
        "git grep --open-files-in-pager=vim foo",
        Refuse("git", "--open-files-in-pager=vim"),
    ),
    (
        "git fetch --upload-pack=x origin",
        Refuse("git", "--upload-pack=x"),
    ),
    (
        "git push --receive-pack x origin",
        Refuse("git", "--receive-pack x"),
    ),
    ("git rebase -x make main", Refuse("git", "-x make")),
    ("git format-patch -o out HEAD~1", Refuse("git", "-o out")),
    ("git bisect run make", Refuse("git", "make")),
    ("git config --list", Allow),
    ("git config --get user.name", Allow),
    ("git config get user.name", Allow),
    ("git config core.pager", Allow),
    ("git config core.pager less", Refuse("git", "less")),
    ("git config alias.x !sh", Refuse("git", "!sh")),
    ("git config set core.fsmonitor x", Refuse("git", "x")),
    // find
    ("find . -name x", Allow),
    ("find . -type f -name *.rs -newer Cargo.toml", Allow),
    ("find . -name -delete", Allow),
    ("find . -executable", Allow),
    ("find . -delete", Refuse("find", "-delete")),
    ("find . -name x -delete", Refuse("find", "-delete")),
    ("find . -exec cat {} ;", Refuse("find", "-exec")),
    ("find . -execdir cat {} +", Refuse("find", "-execdir")),
    ("find . -ok cat {} ;", Refuse("find", "-ok")),
    ("find . -okdir cat {} ;", Refuse("find", "-okdir")),
    ("find . -fprint out", Refuse("find", "-fprint out")),
    ("find . -fprint0 out", Refuse("find", "-fprint0 out")),
    ("find . -fprintf out %p", Refuse("find", "-fprintf out")),
    ("find . -fls out", Refuse("find", "-fls out")),
    ("find . -exec rm {} ;", Refuse("find", "-exec")),
    // sed: only `sed -n N[,M]p [files]`
    ("sed -n 1,5p f", Allow),
    ("sed -n 5p f g", Allow),
    ("sed -n 12p", Allow),
    ("sed --quiet 1,2p f", Allow),
    ("sed -n 1e/x", Refuse("sed", "1e/x")),
    ("sed 1w/x f", Refuse("sed", "1w/x")),
    ("sed -n 1,5w/tmp/x f", Refuse("sed", "1,5w/tmp/x")),
    ("sed s/a/b/e f", Refuse("sed", "s/a/b/e")),
    ("sed -n 1r/etc/passwd f", Refuse("sed", "1r/etc/passwd")),
    ("sed -n p f", Refuse("sed", "p")),
    ("sed -n 1,p f", Refuse("sed", "1,p")),
    ("sed -i s/a/b/ f", Refuse("sed", "-i")),
    ("sed --in-place=.bak 1p f", Refuse("sed", "--in-place=.bak")),
    ("sed -e 1p f", Refuse("sed", "-e 1p")),
    ("sed -ne 1p f", Refuse("sed", "-ne 1p")),
    ("sed --expression=1p f", Refuse("sed", "--expression=1p")),
    ("sed --ex 1p f", Refuse("sed", "--ex 1p")),
    ("sed -f script f", Refuse("sed", "-f script")),
    ("sed -n 1p f -e 1e/bin/sh", Refuse("sed", "-e 1e/bin/sh")),
    // interpreters
    ("python3 --version", Allow),
    ("python3 -V", Allow),
    ("node --version", Allow),
    ("perl -v", Allow),
    ("awk --version", Allow),
    ("python3 -m json.tool f", Refuse("python3", "-m json.tool")),
    ("python3 -mjson.tool f", Refuse("python3", "-mjson.tool")),
    ("python3 -c print(1)", Refuse("python3", "-c print(1)")),
    ("python3 -cprint(1)", Refuse("python3", "-cprint(1)")),
    ("python3 -Ic x", Refuse("python3", "-Ic x")),
    ("python3 -I -c x", Refuse("python3", "-c x")),
    ("python3 script.py", Refuse("python3", "script.py")),
    ("python3 -u script.py", Refuse("python3", "script.py")),
    (
        "python3 -W ignore script.py",
        Refuse("python3", "script.py"),
    ),
    ("/usr/bin/python3.12 -", Refuse("python3.12", "-")),
    ("node -e x", Refuse("node", "-e x")),
    ("node -pe x", Refuse("node", "-pe")),
    ("node --ev x", Refuse("node", "--ev x")),
    ("node --eval=x", Refuse("node", "--eval=x")),
    ("node app.js", Refuse("node", "app.js")),
    ("node --inspect app.js", Refuse("node", "--inspect")),
    ("perl -le print", Refuse("perl", "-le print")),
    ("perl -e1", Refuse("perl", "-e1")),
    ("perl -0777 -ne print f", Refuse("perl", "-ne print")),
    ("perl script.pl", Refuse("perl", "script.pl")),
    ("ruby -e x", Refuse("ruby", "-e x")),
    ("php -r x", Refuse("php", "-r x")),
    ("lua -e x", Refuse("lua", "-e x")),
    ("awk {print} f", Refuse("awk", "{print}")),
    ("awk -F: {print} f", Refuse("awk", "{print}")),
    ("awk -f p f", Refuse("awk", "-f p")),
    ("gawk --source=x f", Refuse("gawk", "--source=x")),
    ("deno eval x", Refuse("deno", "x")),
    ("bun x cowsay", Refuse("bun", "cowsay")),
    ("npx cowsay", Refuse("npx", "cowsay")),
    // rg, tar, sort, rsync, zip, make
    ("rg foo src", Allow),
    ("rg -n -e --pre foo", Allow),
    ("rg --pre-glob *.pdf foo", Allow),
    ("rg --pre cat x", Refuse("rg", "--pre cat")),
    ("rg --pre=cat x", Refuse("rg", "--pre=cat")),
    ("rg --pr cat x", Refuse("rg", "--pr cat")),
    ("rg --hostname-bin=x y", Refuse("rg", "--hostname-bin=x")),
    ("tar -tzf a.tar.gz", Allow),
    ("tar tzf a.tar.gz", Allow),
    (
        "tar --to-command=sh -xf a",
        Refuse("tar", "--to-command=sh"),
    ),
    ("tar -I zstd -cf a .", Refuse("tar", "-I zstd")),
    ("tar -cIzstd -f a .", Refuse("tar", "-cIzstd")),
    ("tar xIf zstd a.tar", Refuse("tar", "xIf zstd")),
    (
        "tar --use-compress-program=zstd -cf a .",
        Refuse("tar", "--use-compress-program=zstd"),
    ),
    (
        "tar --checkpoint-action=exec=sh -cf a .",
        Refuse("tar", "--checkpoint-action=exec=sh"),
    ),
    ("sort -n f", Allow),
    ("sort -o out f", Refuse("sort", "-o out")),
    ("sort -ro out f", Refuse("sort", "-ro out")),
    ("sort --output=out f", Refuse("sort", "--output=out")),
    (
        "sort --compress-program=gzip f",
        Refuse("sort", "--compress-program=gzip"),
    ),
    ("rsync -a src dst", Allow),
    ("rsync -e ssh a b", Refuse("rsync", "-e ssh")),
    // Symlink-following walks that leave the workspace (`-H` follows only the starting
    // points, which layer 4 confines).
    ("find -L . -name x", Refuse("find", "-L")),
    ("find . -follow -name x", Refuse("find", "-follow")),
    ("find -H . -name x", Allow),
    ("find -P . -name x", Allow),
    (
        "find -files0-from list -name x",
        Refuse("find", "-files0-from list"),
    ),
    ("grep -R x .", Refuse("grep", "-R")),
    ("grep -rRn x .", Refuse("grep", "-rRn")),
    ("egrep -R x .", Refuse("egrep", "-R")),
    (
        "grep --dereference-recursive x .",
        Refuse("grep", "--dereference-recursive"),
    ),
    ("grep --deref x .", Refuse("grep", "--deref")),
    ("grep -r x .", Allow),
    ("grep -rn -e -R .", Allow),
    ("grep -eR x", Allow),
    ("grep -d recurse x .", Allow),
    ("grep --include=*.rs -rn x .", Allow),
    ("tar -chf a.tar d", Refuse("tar", "-chf")),
    ("tar chf a.tar d", Refuse("tar", "chf")),
    (
        "tar --dereference -cf a.tar d",
        Refuse("tar", "--dereference"),
    ),
    ("tar -xPf a.tar", Refuse("tar", "-xPf")),
    (
        "tar --absolute-names -xf a.tar",
        Refuse("tar", "--absolute-names"),
    ),
    ("tar -cf a.tar -T list", Refuse("tar", "-T list")),
    (
        "tar -cf a.tar --files-from=list",
        Refuse("tar", "--files-from=list"),
    ),
    (
        "sort --files0-from=list",
        Refuse("sort", "--files0-from=list"),
    ),
    ("rsync -aL a/ b/", Refuse("rsync", "-aL")),
    ("rsync --copy-links a/ b/", Refuse("rsync", "--copy-links")),
    (
        "rsync --copy-unsafe-links a/ b/",
        Refuse("rsync", "--copy-unsafe-links"),
    ),
    ("rsync -ak a/ b/", Refuse("rsync", "-ak")),
    ("rsync -aK a/ b/", Refuse("rsync", "-aK")),
    (
        "rsync --files-from=list . b/",
        Refuse("rsync", "--files-from=list"),
    ),
    // Destroyers.
    (
        "tar -cf a.tar --remove-files d",
        Refuse("tar", "--remove-files"),
    ),
    ("tar --remove -cf a.tar d", Refuse("tar", "--remove")),
    (
        "tar --recursive-unlink -xf a.tar",
        Refuse("tar", "--recursive-unlink"),
    ),
    ("rsync -a --delete a/ b/", Refuse("rsync", "--delete")),
    ("rsync -a --del a/ b/", Refuse("rsync", "--del")),
    ("rsync -a --dele a/ b/", Refuse("rsync", "--dele")),
    (
        "rsync -a --delete-after a/ b/",
        Refuse("rsync", "--delete-after"),
    ),
    (
        "rsync -a --delete-excluded a/ b/",
        Refuse("rsync", "--delete-excluded"),
    ),
    (
        "rsync -a --delete-missing-args a/ b/",
        Refuse("rsync", "--delete-missing-args"),
    ),
    (
        "rsync --remove-source-files a/ b/",
        Refuse("rsync", "--remove-source-files"),
    ),
    (
        "rsync --remove-sent-files a/ b/",
        Refuse("rsync", "--remove-sent-files"),
    ),
    // Remote names: a `:` before any `/` makes tar and rsync run a remote shell.
    ("tar -cf h:a.tar d", Refuse("tar", "-cf h:a.tar")),
    ("tar --file=h:a.tar -c d", Refuse("tar", "--file=h:a.tar")),
    ("tar --file h:a.tar -c d", Refuse("tar", "--file h:a.tar")),
    ("tar -cfh:a.tar d", Refuse("tar", "-cfh:a.tar")),
    ("tar cf h:a.tar d", Refuse("tar", "cf h:a.tar")),
    ("tar -cf u@h:a.tar d", Refuse("tar", "-cf u@h:a.tar")),
    ("tar -cf ./h:a.tar d", Allow),
    ("tar -cf b/h:a.tar d", Allow),
    ("tar -tf -", Allow),
    (
        "tar --rsh-command=x -tf a",
        Refuse("tar", "--rsh-command=x"),
    ),
    ("rsync -a a/ h:b/", Refuse("rsync", "h:b/")),
    ("rsync -a h:b/ a/", Refuse("rsync", "h:b/")),
    ("rsync -a h::m a/", Refuse("rsync", "h::m")),
    ("rsync -a rsync://h/m a/", Refuse("rsync", "rsync://h/m")),
    ("rsync -a ./h:x b/", Allow),
    ("rsync -a a/ b/h:x", Allow),
    ("rsync --daemon", Refuse("rsync", "--daemon")),
    // Syntax checks read the program without running it; perl -c runs BEGIN blocks.
    ("node --check app.js", Allow),
    ("node -c app.js", Allow),
    ("ruby -c x.rb", Allow),
    ("ruby -cw x.rb", Allow),
    ("php -l x.php", Allow),
    ("perl -c x.pl", Refuse("perl", "x.pl")),
    ("node --check -e x", Refuse("node", "-e x")),
    // A config file's nodeOptions can preload code, check mode or not.
    (
        "node --experimental-default-config-file --check app.js",
        Refuse("node", "--experimental-default-config-file"),
    ),
    (
        "node --experimental-config-file=x.json --check app.js",
        Refuse("node", "--experimental-config-file=x.json"),
    ),
    ("node --ch app.js", Refuse("node", "app.js")),
    ("ruby -c -rfoo x.rb", Refuse("ruby", "-rfoo")),
    ("zip -TT x a.zip f", Refuse("zip", "-TT x")),
    ("make", Allow),
    ("make test", Allow),
    ("make -j4 test", Allow),
    ("make SHELL=/tmp/x test", Refuse("make", "SHELL=/tmp/x")),
    ("make -f x", Refuse("make", "-f x")),
    // wrappers and plain tools
    // A launcher's command escapes the allowlist, which vouches for the first binary only.
    ("timeout 5 grep x f", Refuse("timeout", "grep")),
    ("nice -n 5 git log", Refuse("nice", "git")),
    ("find . -exec cat {} +", Refuse("find", "-exec")),
    ("ls -la", Allow),
    ("wc -l f", Allow),
    ("grep -rn -e --pre .", Allow),
    ("timeout 5 python3 -c x", Refuse("python3", "-c x")),
    ("nice git -c x=y log", Refuse("git", "-c x=y")),
    ("timeout 5 rm x", DeniedInner("rm")),
    ("nice bash", DeniedInner("bash")),
    ("ionice -c 3 ./curl x", DeniedInner("./curl")),
    // denied binaries
    ("xargs rm", Denied("xargs")),
    ("env python3 x", Denied("env")),
    ("/bin/sh -c x", Denied("/bin/sh")),
    ("setsid sleep 100", Denied("setsid")),
    // Remote shells and multiplexers join their operands into a command line a shell runs.
    ("mosh host ls", Denied("mosh")),
    ("rsh host ls", Denied("rsh")),
    ("autossh host", Denied("autossh")),
    ("byobu new-session x", Denied("byobu")),
    ("zellij run -- ls", Denied("zellij")),
    ("dtach -c sock ls", Denied("dtach")),
    ("viddy ls", Denied("viddy")),
    // find's `--` ends only its options: the expression after the starting points is read.
    ("find -- . -exec cat {} +", Refuse("find", "-exec")),
    ("find -- . -delete", Refuse("find", "-delete")),
];

fn argv(line: &str) -> Vec<String> {
    line.split(' ').map(String::from).collect()
}

#[test]
fn exec_argv_by_table() {
    let mut failures = Vec::new();
    for &(line, expected) in EXEC {
        let got = check_exec_argv(&argv(line));
        let ok = match (&got, expected) {
            (Ok(()), Allow) => true,
            (
                Err(PolicyError::ExecOption {
                    binary,
                    option,
                    why,
                }),
                Refuse(b, o),
            ) => binary == b && option == o && !why.is_empty(),
            (Err(PolicyError::DeniedBinary { binary, .. }), Denied(b)) => binary == b,
            (Err(PolicyError::DeniedCommand { binary, span, .. }), DeniedInner(b)) => {
                binary == b && span.is_none()
            }
            _ => false,
        };
        if !ok {
            failures.push(format!("{line:?}: want {expected:?}, got {got:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn an_empty_argv_is_refused() {
    assert_eq!(check_exec_argv(&[]), Err(PolicyError::EmptyCommand));
}

// ------------------------------------------------------------------------------------------
// Sites, messages, spans
// ------------------------------------------------------------------------------------------

#[test]
fn code_entry_sites_name_slot_binary_option_and_span() {
    let t = Template::parse("timeout 5 python3 -W ignore -c <code> <arg>").unwrap();
    let sites = code_entry_sites(&t);
    assert_eq!(sites.len(), 1, "{sites:?}");
    let site = &sites[0];
    assert_eq!(site.slot, "code");
    assert_eq!(site.binary, "python3");
    assert_eq!(site.site, Site::ValueOf("-c"));
    assert_eq!(&t.source()[site.span.clone()], "<code>");
    assert_eq!(site.shown, "python3 -c <code>");
    assert!(!site.literal_only);

    let t = Template::parse("sed -n {range}p {path}").unwrap();
    let sites = code_entry_sites(&t);
    assert_eq!(sites.len(), 1, "{sites:?}");
    assert_eq!(
        (sites[0].slot.as_str(), sites[0].site),
        ("range", Site::At(Program))
    );
    assert_eq!(&t.source()[sites[0].span.clone()], "{range}");
    assert_eq!(sites[0].shown, "sed {range}p");

    let t = Template::parse("timeout 5 <cmd> x").unwrap();
    let sites = code_entry_sites(&t);
    assert_eq!(sites.len(), 1, "{sites:?}");
    assert!(sites[0].literal_only);
    assert_eq!(sites[0].binary, "timeout");
    assert_eq!(sites[0].site, Site::At(Command));

    for plain in [
        "wc -l <file>",
        "git log -n <count>",
        "grep -rn <pattern> <path>",
    ] {
        assert!(
            code_entry_sites(&Template::parse(plain).unwrap()).is_empty(),
            "{plain}"
        );
    }
}

#[test]
fn messages_say_what_to_write_instead() {
    let err = verdict("python3 -c <code>", &[]).unwrap_err();
    assert_eq!(err.span(), Some(11..17));
    let text = err.to_string();
    assert!(
        text.starts_with("`python3 -c <code>`: slot `code` is "),
        "{text}"
    );
    for part in ["fix the code in the template", "enum", "`pattern`"] {
        assert!(text.contains(part), "{text}");
    }

    let err = verdict("timeout 5 <cmd>", &["cmd"]).unwrap_err();
    assert!(
        err.to_string()
            .contains("write the command as literal text"),
        "{err}"
    );

    let err = verdict("timeout 5 rm x", &[]).unwrap_err();
    assert_eq!(err.span(), Some(10..12));
    let text = err.to_string();
    assert!(text.contains("`timeout` would run `rm`"), "{text}");
    assert!(text.contains("deletes"), "{text}");

    let err = check("ash x", &[]).unwrap_err();
    assert!(err.to_string().contains("denied as `sh`"), "{err}");
    // The binary in the template, for the caret line.
    assert_eq!(err.span(), Some(0..3));

    let err = check_exec_argv(&argv("python3 -c print(1)")).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("`python3 -c print(1)`: `-c` takes the code"),
        "{text}"
    );
    assert!(
        text.contains("use a command tool whose template fixes it"),
        "{text}"
    );

    let err = check_exec_argv(&argv("sed 1w/x f")).unwrap_err();
    assert!(
        err.to_string().contains("`1w/x` would be the sed script"),
        "{err}"
    );
}

#[test]
fn launchers_nested_too_deep_are_refused() {
    let src = format!("{}rm x", "nice ".repeat(20));
    let t = Template::parse(&src).unwrap();
    let err = check_template(&t, &all_free, &[]).unwrap_err();
    assert!(matches!(err, PolicyError::TooDeep { .. }), "{err:?}");
    assert!(err.span().is_some());
    assert!(matches!(
        check_exec_argv(&argv(&src)),
        Err(PolicyError::TooDeep { span: None, .. })
    ));
    let t = Template::parse("nice nice nice timeout 5 grep x .").unwrap();
    assert_eq!(check_template(&t, &all_free, &[]), Ok(()));
}

#[test]
fn host_extra_deny_reaches_launched_commands() {
    let extra = vec!["git".to_string()];
    let t = Template::parse("timeout 5 git log").unwrap();
    assert!(matches!(
        check_template(&t, &all_free, &extra),
        Err(PolicyError::DeniedCommand { ref binary, .. }) if binary == "git"
    ));
    assert_eq!(check_template(&t, &all_free, &[]), Ok(()));
    assert!(matches!(
        check_exec_argv_with(&argv("nice git log"), &extra),
        Err(PolicyError::DeniedCommand { ref binary, .. }) if binary == "git"
    ));
    assert!(matches!(
        check_exec_argv_with(&argv("git log"), &extra),
        Err(PolicyError::DeniedBinary { .. })
    ));
}

// ------------------------------------------------------------------------------------------
// Never a panic
// ------------------------------------------------------------------------------------------

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    /// Tokens that drive the scanner into its corners: table binaries, code-entry options in
    /// every spelling, separators, slots.
    const VOCABULARY: &[&str] = &[
        "python3",
        "node",
        "perl",
        "sed",
        "awk",
        "git",
        "find",
        "tar",
        "timeout",
        "nice",
        "rm",
        "deno",
        "bun",
        "gdb",
        "java",
        "zip",
        "sqlite3",
        "make",
        "less",
        "vim",
        "flock",
        "-c",
        "-Ic",
        "-e",
        "-le",
        "-pe",
        "-0777",
        "-W",
        "-m",
        "--",
        "-",
        "+",
        ";",
        "--eval",
        "--ev",
        "--e",
        "--eval=",
        "-exec",
        "-TT",
        "-javaagent:",
        "--args",
        "run",
        "eval",
        "bisect",
        "x",
        "xIf",
        "-n",
        "1p",
        "1,5p",
        "=",
        "-<a>",
        "--<b>",
        "<c>",
        "-c<d>",
        "<e>p",
        "+<f>",
        "--eval=<g>",
        "-javaagent:<h>",
        "-TT<i>",
    ];

    fn freedom_of(seed: u64) -> impl Fn(&str) -> SlotFreedom {
        move |slot: &str| {
            let h = slot
                .bytes()
                .fold(seed, |h, b| h.wrapping_mul(31).wrapping_add(b.into()));
            if h % 2 == 0 {
                SlotFreedom::Free
            } else {
                SlotFreedom::Constrained
            }
        }
    }

    proptest! {
        #[test]
        fn check_template_on_arbitrary_text(src in ".{0,80}", seed in any::<u64>()) {
            if let Ok(t) = Template::parse(&src) {
                let _ = check_template(&t, &freedom_of(seed), &["x".to_string()]);
                let _ = code_entry_sites(&t);
            }
        }

        #[test]
        fn check_template_on_vocabulary(
            words in proptest::collection::vec(proptest::sample::select(VOCABULARY), 1..12),
            seed in any::<u64>(),
        ) {
            // Rename slots so each appears once, as the grammar wants.
            let mut n = 0;
            let src: Vec<String> = words.iter().map(|w| {
                let mut out = String::new();
                for c in w.chars() {
                    out.push(c);
                    if c == '<' {
                        n += 1;
                        out.push_str(&format!("s{n}_"));
                    }
                }
                out
            }).collect();
            if let Ok(t) = Template::parse(&src.join(" ")) {
                let _ = check_template(&t, &freedom_of(seed), &[]);
                for site in code_entry_sites(&t) {
                    prop_assert!(t.source().get(site.span.clone()).is_some());
                }
            }
        }

        #[test]
        fn check_exec_argv_on_arbitrary_argv(args in proptest::collection::vec(".{0,12}", 0..8)) {
            let _ = check_exec_argv(&args);
        }

        #[test]
        fn check_exec_argv_on_vocabulary(
            words in proptest::collection::vec(proptest::sample::select(VOCABULARY), 1..12),
        ) {
            let args: Vec<String> = words.iter().map(|w| w.to_string()).collect();
            let _ = check_exec_argv(&args);
        }
    }
}
