//! The code-entry rows of interpreters and the programs that run a language: the option that is code, the module it loads, the script operand; each entry beside its options.

use super::*;

pub(super) const PYTHON: Entry = Entry {
    names: &["python*", "pypy*", "ipython"],
    options: &[PYTHON_OPTS],
    operands: Operands::Program(SCRIPT),
    stop_after_code: true,
    hyphen_values: true,
    ..BASE
};

// --- Python: python, python3, python3.12, pypy3, ipython ------------------------------------
pub(super) const PYTHON_OPTS: &[Opt] = &[
    code("-c", CODE),
    code("-m", "the module python runs as the program"),
    val("-W"),
    val("-X"),
    val("--check-hash-based-pycs"),
];

pub(super) const NODE: Entry = Entry {
    // tsx and ts-node run TypeScript through node and take its code options.
    names: &["node", "nodejs", "tsx", "ts-node", "ts-node-esm"],
    options: &[NODE_OPTS],
    operands: Operands::Program(SCRIPT),
    complete: false,
    attached_values: false,
    dashdash: false,
    ..BASE
};

pub(super) const PRELOAD: &str = "code loaded before the program (a preload or loader)";

pub(super) const DEBUGGER: &str = "it opens a debugger port through which code can be sent";

// --- JavaScript runtimes ----------------------------------------------------------------------
pub(super) const NODE_OPTS: &[Opt] = &[
    code("-e", CODE),
    code("--eval", CODE),
    code("-p", CODE),
    code("--print", CODE),
    load("-r", PRELOAD),
    load("--require", PRELOAD),
    load("--import", PRELOAD),
    load("--loader", PRELOAD),
    load("--experimental-loader", PRELOAD),
    load(
        "--env-file",
        "an env file, whose NODE_OPTIONS can preload code",
    ),
    load(
        "--env-file-if-exists",
        "an env file, whose NODE_OPTIONS can preload code",
    ),
    load(
        "--experimental-config-file",
        "a config file, whose nodeOptions can preload code",
    ),
    eff(
        "--experimental-default-config-file",
        Arity::Flag,
        "it reads ./node.config.json, whose nodeOptions can preload code",
    ),
    code("--run", "a package.json script node runs through a shell"),
    eff("--inspect", Arity::Attached, DEBUGGER),
    eff("--inspect-brk", Arity::Attached, DEBUGGER),
    eff("--inspect-wait", Arity::Attached, DEBUGGER),
    val("-C"),
    val("--conditions"),
    val("--input-type"),
    val("--title"),
    val("--inspect-port"),
    val("--stack-size"),
    val("--test-name-pattern"),
    val("--test-reporter"),
    val("--test-reporter-destination"),
    flag("--no-warnings"),
    flag("--enable-source-maps"),
    flag("--trace-warnings"),
    flag("--trace-uncaught"),
    flag("--no-deprecation"),
    flag("--throw-deprecation"),
    flag("--pending-deprecation"),
    flag("--preserve-symlinks"),
    test_runner("--test"),
    flag("--watch"),
    check("-c"),
    check("--check"),
    flag("--interactive"),
    flag("--experimental-*"),
    flag("--no-experimental-*"),
];

pub(super) const DENO: Entry = Entry {
    names: &["deno"],
    options: &[DENO_RUN_OPTS],
    operands: Operands::Subcommands {
        subs: DENO_SUBS,
        other: None,
        why: "the deno subcommand, or the script deno runs",
        slot_is_data: false,
    },
    complete: false,
    dashdash: false,
    ..BASE
};

pub(super) const CODE_FILE: &str = "a file of code the interpreter runs";

pub(super) const DENO_RUN_OPTS: &[Opt] = &[
    load(
        "-c",
        "a configuration file, whose import map can redirect code",
    ),
    load(
        "--config",
        "a configuration file, whose import map can redirect code",
    ),
    load("--import-map", "an import map, which can redirect code"),
    load("--preload", PRELOAD),
    load("--require", PRELOAD),
    code("--eval", CODE),
    code("--eval-file", CODE_FILE),
    eff("--inspect", Arity::Attached, DEBUGGER),
    eff("--inspect-brk", Arity::Attached, DEBUGGER),
    eff("--inspect-wait", Arity::Attached, DEBUGGER),
    val("--location"),
    val("--seed"),
    val("--cert"),
    val("--ext"),
    val("--env-file"),
    flag("-A"),
    flag("--allow-all"),
    flag("-q"),
    flag("--quiet"),
    flag("--no-check"),
    flag("--no-prompt"),
    flag("--no-remote"),
    flag("--no-npm"),
    flag("--cached-only"),
    att("-r"),
    att("--reload"),
    att("--watch"),
    att("--check"),
    att("--allow-*"),
    att("--deny-*"),
    flag("--unstable*"),
];

pub(super) const DENO_SUBS: &[Sub] = &[
    Sub {
        names: &["eval"],
        options: &[DENO_RUN_OPTS],
        operands: Operands::Program("the code deno evaluates"),
    },
    Sub {
        names: &["run", "serve", "x", "install", "compile", "jupyter"],
        options: &[DENO_RUN_OPTS],
        operands: Operands::Program("the script deno runs"),
    },
    Sub {
        names: &["repl"],
        options: &[DENO_RUN_OPTS],
        operands: Operands::Data,
    },
    Sub {
        names: &["task"],
        options: &[DENO_RUN_OPTS],
        operands: Operands::AllCode(
            "a task name or an argument appended to the task's shell command",
        ),
    },
    Sub {
        // `test` and `bench` run the test files their operands name, like `pytest <path>`.
        names: &[
            "test",
            "bench",
            "fmt",
            "lint",
            "check",
            "info",
            "doc",
            "types",
            "upgrade",
            "completions",
            "coverage",
            "lsp",
            "publish",
            "add",
            "remove",
            "outdated",
            "init",
            "uninstall",
            "clean",
        ],
        options: &[DENO_RUN_OPTS],
        operands: Operands::Data,
    },
];

pub(super) const BUN: Entry = Entry {
    names: &["bun"],
    options: &[BUN_OPTS],
    operands: Operands::Subcommands {
        subs: BUN_SUBS,
        other: None,
        why: "the bun subcommand, or the script bun runs",
        slot_is_data: false,
    },
    complete: false,
    dashdash: false,
    ..BASE
};

pub(super) const BUN_OPTS: &[Opt] = &[
    code("-e", CODE),
    code("--eval", CODE),
    code("-p", CODE),
    code("--print", CODE),
    load("-r", PRELOAD),
    load("--preload", PRELOAD),
    load("--require", PRELOAD),
    load("--import", PRELOAD),
    load("-c", "a bunfig file, which can preload code"),
    load("--config", "a bunfig file, which can preload code"),
    load("--env-file", "an env file, whose settings can preload code"),
    eff("--inspect", Arity::Attached, DEBUGGER),
    eff("--inspect-brk", Arity::Attached, DEBUGGER),
    eff("--inspect-wait", Arity::Attached, DEBUGGER),
    val("--cwd"),
    flag("--watch"),
    flag("--hot"),
    flag("--smol"),
    flag("--bun"),
    flag("-b"),
    flag("--silent"),
    flag("--no-install"),
];

pub(super) const BUN_SUBS: &[Sub] = &[
    Sub {
        names: &["run"],
        options: &[BUN_OPTS],
        // `bun run <script> <arg>` appends the argument to a package.json script's shell
        // command line: every operand is code.
        operands: Operands::AllCode(
            "a script or package.json script bun runs, or an argument appended to the script's shell command line",
        ),
    },
    Sub {
        names: &["x"],
        options: &[BUN_OPTS],
        operands: Operands::Program("the package bun downloads and runs"),
    },
    Sub {
        names: &["exec"],
        options: &[BUN_OPTS],
        operands: Operands::Program(SHELL_CMD),
    },
    Sub {
        names: &["create", "c"],
        options: &[BUN_OPTS],
        operands: Operands::Program("a template bun downloads and runs"),
    },
    Sub {
        names: &[
            "test", "build", "install", "i", "add", "a", "remove", "rm", "update", "link",
            "unlink", "pm", "init", "outdated", "publish", "patch", "upgrade", "info", "audit",
            "why",
        ],
        options: &[BUN_OPTS],
        operands: Operands::Data,
    },
];

pub(super) const PERL: Entry = Entry {
    names: &["perl"],
    options: &[PERL_OPTS],
    operands: Operands::Program(SCRIPT),
    ..BASE
};

// --- Perl, Ruby, PHP, Lua ----------------------------------------------------------------------
pub(super) const PERL_OPTS: &[Opt] = &[
    code("-e", CODE),
    code("-E", CODE),
    load(
        "-M",
        "a module perl loads (`-MFoo=...` becomes `use Foo ...;` code)",
    ),
    load(
        "-m",
        "a module perl loads (`-mFoo` becomes `use Foo ();` code)",
    ),
    load_att("-F", "a split pattern perl compiles into the program"),
    load_att("-d", "a debugger module perl loads (`-d:Module`)"),
    eff("-i", Arity::Attached, "it edits the files in place"),
    load("-I", LOAD_PATH),
    att("-x"),
    digits("-l"),
    digits("-0"),
    att("-C"),
    att("-D"),
    att("-V"),
];

pub(super) const RUBY: Entry = Entry {
    names: &["ruby", "erb"],
    options: &[RUBY_OPTS],
    operands: Operands::Program(SCRIPT),
    ..BASE
};

pub(super) const MODULE: &str = "a module or library the interpreter loads and runs";

pub(super) const RUBY_OPTS: &[Opt] = &[
    code("-e", CODE),
    check("-c"),
    load("-r", MODULE),
    load(
        "--crash-report",
        "a crash report template; `|cmd` pipes to a command",
    ),
    eff("-i", Arity::Attached, "it edits the files in place"),
    load("-I", LOAD_PATH),
    val("-C"),
    val("-E"),
    att("-F"),
    att("-x"),
    digits("-0"),
    att("-K"),
    att("-T"),
    att("-W"),
    val("--enable"),
    val("--disable"),
    val("--encoding"),
    val("--external-encoding"),
    val("--internal-encoding"),
    val("--dump"),
    val("--backtrace-limit"),
];

pub(super) const PHP: Entry = Entry {
    names: &["php"],
    options: &[PHP_OPTS],
    operands: Operands::Program(SCRIPT),
    ..BASE
};

pub(super) const PHP_OPTS: &[Opt] = &[
    code("-r", CODE),
    check("-l"),
    check("--syntax-check"),
    code("--run", CODE),
    code("-B", CODE),
    code("--process-begin", CODE),
    code("-R", CODE),
    code("--process-code", CODE),
    code("-E", CODE),
    code("--process-end", CODE),
    code("-F", CODE_FILE),
    code("--process-file", CODE_FILE),
    code("-f", CODE_FILE),
    code("--file", CODE_FILE),
    load(
        "-d",
        "an ini setting, such as `auto_prepend_file`, which loads code",
    ),
    load(
        "--define",
        "an ini setting, such as `auto_prepend_file`, which loads code",
    ),
    load(
        "-c",
        "a php.ini file or folder, whose settings can load code",
    ),
    load(
        "--php-ini",
        "a php.ini file or folder, whose settings can load code",
    ),
    load("-z", "a Zend extension php loads"),
    load("--zend-extension", "a Zend extension php loads"),
    eff(
        "-S",
        Arity::Next,
        "it serves the folder's PHP files over the network",
    ),
    eff(
        "--server",
        Arity::Next,
        "it serves the folder's PHP files over the network",
    ),
    val("-t"),
    val("--docroot"),
];

pub(super) const LUA: Entry = Entry {
    names: &["lua", "luajit"],
    options: &[LUA_OPTS],
    operands: Operands::Program(SCRIPT),
    ..BASE
};

pub(super) const LUA_OPTS: &[Opt] = &[
    load("-e", CODE),
    load("-l", MODULE),
    load("-j", "a JIT control module luajit loads (`-jv`)"),
    eff("-b", Arity::Next, "it writes bytecode to a file"),
    att("-O"),
];

pub(super) const AWK: Entry = Entry {
    names: &[
        "awk",
        "gawk",
        "mawk",
        "nawk",
        "original-awk",
        "onetrue-awk",
        "goawk",
        "frawk",
    ],
    options: &[AWK_OPTS],
    operands: Operands::Program("the awk program (its first operand)"),
    ..BASE
};

// --- awk and sed ---------------------------------------------------------------------------
pub(super) const AWK_OPTS: &[Opt] = &[
    code("-f", CODE_FILE),
    code("--file", CODE_FILE),
    code("-e", CODE),
    code("--source", CODE),
    load("-i", CODE_FILE),
    load("--include", CODE_FILE),
    load("-l", "a shared-library extension gawk loads"),
    load("--load", "a shared-library extension gawk loads"),
    code("-E", CODE_FILE),
    code("--exec", CODE_FILE),
    load(
        "-W",
        "an implementation option (gawk `-W source=`, mawk `-W exec` take code)",
    ),
    eff("-d", Arity::Attached, WRITES),
    eff("--dump-variables", Arity::Attached, WRITES),
    eff("-p", Arity::Attached, WRITES),
    eff("--profile", Arity::Attached, WRITES),
    eff("-o", Arity::Attached, WRITES),
    eff("--pretty-print", Arity::Attached, WRITES),
    val("-F"),
    val("--field-separator"),
    val("-v"),
    val("--assign"),
    att("-D"),
    att("--debug"),
    att("-L"),
    att("--lint"),
];

pub(super) const SED: Entry = Entry {
    names: &["sed", "gsed"],
    options: &[SED_OPTS],
    operands: Operands::Program(SED_SCRIPT),
    permute: true,
    exec_program_ok: Some(is_sed_print_script),
    hyphen_values: true,
    ..BASE
};

pub(super) const SED_OPTS: &[Opt] = &[
    code("-e", "a sed script (GNU sed's `e` command runs programs)"),
    code(
        "--expression",
        "a sed script (GNU sed's `e` command runs programs)",
    ),
    code("-f", "a file of sed script"),
    code("--file", "a file of sed script"),
    eff("-i", Arity::Attached, "it edits the files in place"),
    eff("--in-place", Arity::Attached, "it edits the files in place"),
    val("-l"),
    val("--line-length"),
    flag("--follow-symlinks"),
];

pub(super) const SED_SCRIPT: &str = "the sed script (its first operand): GNU sed's `e` command and `s///e` run programs, `w`/`W` write and `r`/`R` read files";

pub(super) const RSCRIPT: Entry = Entry {
    names: &["rscript"],
    options: &[R_OPTS],
    operands: Operands::Program(SCRIPT),
    ..BASE
};

// --- Other interpreters ----------------------------------------------------------------------
pub(super) const R_OPTS: &[Opt] = &[
    code("-e", CODE),
    code("-f", CODE_FILE),
    code("--file", CODE_FILE),
    val("--default-packages"),
];

pub(super) const R: Entry = Entry {
    names: &["r"],
    options: &[R_OPTS],
    operands: Operands::AllCode("an R command (`R CMD ...`) or a script (littler `r`)"),
    ..BASE
};

pub(super) const TCLSH: Entry = Entry {
    names: &["tclsh", "wish", "jimsh"],
    options: &[TCL_OPTS],
    operands: Operands::Program(SCRIPT),
    long_only: true,
    dashdash: false,
    ..BASE
};

pub(super) const TCL_OPTS: &[Opt] = &[val("-encoding")];

pub(super) const EXPECT: Entry = Entry {
    names: &["expect"],
    options: &[EXPECT_OPTS],
    operands: Operands::Program(SCRIPT),
    ..BASE
};

pub(super) const EXPECT_OPTS: &[Opt] = &[
    load("-c", CODE),
    code("-f", CODE_FILE),
    code("-b", CODE_FILE),
    val("-D"),
];

pub(super) const OSASCRIPT: Entry = Entry {
    names: &["osascript"],
    options: &[OSASCRIPT_OPTS],
    operands: Operands::Program(SCRIPT),
    dashdash: false,
    ..BASE
};

pub(super) const OSASCRIPT_OPTS: &[Opt] = &[code("-e", CODE), val("-l"), val("-s")];

pub(super) const JULIA: Entry = Entry {
    names: &["julia"],
    options: &[JULIA_OPTS],
    operands: Operands::Program(SCRIPT),
    complete: false,
    dashdash: false,
    ..BASE
};

pub(super) const JULIA_OPTS: &[Opt] = &[
    code("-e", CODE),
    code("--eval", CODE),
    code("-E", CODE),
    code("--print", CODE),
    load("-L", CODE_FILE),
    load("--load", CODE_FILE),
    load("-J", "a system image (compiled code) julia loads"),
    load("--sysimage", "a system image (compiled code) julia loads"),
    val("-p"),
    val("--procs"),
    val("-t"),
    val("--threads"),
    val("-C"),
    val("--cpu-target"),
    att("-O"),
    att("-g"),
    att("--project"),
    flag("-q"),
    flag("--quiet"),
    flag("-i"),
    flag("--interactive"),
];

pub(super) const JAVA: Entry = Entry {
    names: &["java"],
    options: &[JAVA_OPTS],
    operands: Operands::Program(JAVA_PROGRAM),
    long_only: true,
    complete: false,
    dashdash: false,
    ..BASE
};

pub(super) const JAVA_OPTS: &[Opt] = &[
    load("-cp", "a class path java loads classes from"),
    load("-classpath", "a class path java loads classes from"),
    load("--class-path", "a class path java loads classes from"),
    load("-p", "a module path java loads modules from"),
    load("--module-path", "a module path java loads modules from"),
    code("-m", "the module java runs"),
    code("--module", "the module java runs"),
    load("-javaagent:", "an agent jar java loads"),
    load("-agentlib:", "a native agent java loads"),
    load("-agentpath:", "a native agent java loads"),
    flag("-jar"),
    val("--add-modules"),
    val("--add-opens"),
    val("--add-exports"),
    val("--add-reads"),
    val("--limit-modules"),
    val("--upgrade-module-path"),
    val("--enable-native-access"),
    val("--source"),
    flag("-ea"),
    flag("-da"),
    flag("-esa"),
    flag("-dsa"),
    flag("-enableassertions"),
    flag("-disableassertions"),
    flag("-server"),
    flag("-client"),
    flag("-verbose"),
    flag("-showversion"),
    flag("-version"),
    att("-X*"),
    att("-D*"),
    att("-verbose:*"),
];

pub(super) const JAVA_PROGRAM: &str = "the class, jar or source file java runs (its first operand)";

pub(super) const DC: Entry = Entry {
    names: &["dc"],
    options: &[DC_OPTS],
    operands: Operands::AllCode("a file of dc code; its `!` command runs a shell command"),
    dashdash: false,
    ..BASE
};

pub(super) const DC_OPTS: &[Opt] = &[
    code("-e", "dc code; its `!` command runs a shell command"),
    code(
        "--expression",
        "dc code; its `!` command runs a shell command",
    ),
    code(
        "-f",
        "a file of dc code; its `!` command runs a shell command",
    ),
    code(
        "--file",
        "a file of dc code; its `!` command runs a shell command",
    ),
];

pub(super) const M4: Entry = Entry {
    names: &["m4"],
    options: &[M4_OPTS],
    operands: Operands::AllCode("m4 input, whose `syscmd` runs shell commands"),
    permute: true,
    hyphen_values: true,
    ..BASE
};

pub(super) const M4_OPTS: &[Opt] = &[
    code(
        "-D",
        "a macro definition, expanded into m4 code (`syscmd` runs commands)",
    ),
    code(
        "--define",
        "a macro definition, expanded into m4 code (`syscmd` runs commands)",
    ),
    val("-I"),
    val("--include"),
    val("-U"),
    val("--undefine"),
    val("-F"),
    val("-R"),
    val("-d"),
    val("-l"),
    val("-o"),
];

pub(super) const GNUPLOT: Entry = Entry {
    names: &["gnuplot"],
    options: &[GNUPLOT_OPTS],
    operands: Operands::AllCode("a gnuplot script (`system` and `!` run shell commands)"),
    dashdash: false,
    ..BASE
};

pub(super) const GNUPLOT_OPTS: &[Opt] = &[code(
    "-e",
    "gnuplot commands (`system` and `!` run shell commands)",
)];

pub(super) const SQLITE3: Entry = Entry {
    names: &["sqlite3", "sqlite"],
    options: &[SQLITE_OPTS],
    operands: Operands::CodeAfter {
        skip: 1,
        why: "SQL or a dot-command (`.shell` and `.system` run commands)",
    },
    long_only: true,
    permute: true,
    dashdash: false,
    ..BASE
};

pub(super) const SQLITE_OPTS: &[Opt] = &[
    code(
        "-cmd",
        "SQL or a dot-command (`.shell` and `.system` run commands)",
    ),
    code(
        "-init",
        "a file of SQL and dot-commands (`.shell` and `.system` run commands)",
    ),
    val("-separator"),
    val("-newline"),
    val("-nullvalue"),
    val("-vfs"),
    val("-pagecache"),
    val("-lookaside"),
    val("-maxsize"),
    val("-mmap"),
];

pub(super) const PSQL: Entry = Entry {
    names: &["psql"],
    options: &[PSQL_OPTS],
    permute: true,
    hyphen_values: true,
    ..BASE
};

pub(super) const PSQL_OPTS: &[Opt] = &[
    code("-c", "SQL or a meta-command (`\\!` runs a shell command)"),
    code(
        "--command",
        "SQL or a meta-command (`\\!` runs a shell command)",
    ),
    code(
        "-f",
        "a file of SQL and meta-commands (`\\!` runs a shell command)",
    ),
    code(
        "--file",
        "a file of SQL and meta-commands (`\\!` runs a shell command)",
    ),
    val("-d"),
    val("--dbname"),
    val("-h"),
    val("--host"),
    val("-p"),
    val("--port"),
    val("-U"),
    val("--username"),
    val("-v"),
    val("--set"),
    val("--variable"),
    val("-o"),
    val("-F"),
    val("-R"),
    val("-P"),
    val("-T"),
];

pub(super) const MYSQL: Entry = Entry {
    names: &["mysql", "mariadb"],
    options: &[MYSQL_OPTS],
    permute: true,
    hyphen_values: true,
    ..BASE
};

pub(super) const MYSQL_OPTS: &[Opt] = &[
    code(
        "-e",
        "SQL or a client command (`system` runs a shell command)",
    ),
    code(
        "--execute",
        "SQL or a client command (`system` runs a shell command)",
    ),
    val("-h"),
    val("--host"),
    val("-u"),
    val("--user"),
    val("-P"),
    val("--port"),
    val("-D"),
    val("--database"),
    val("-S"),
    val("--socket"),
];

/// What the entries of this file must and must not match, run through the real policy by
/// `examples`' test: a template whose free slot stands where code goes (`Match`, with the
/// site), a template that passes with every slot free (`NotMatch`), and free-text commands
/// ExecTool refuses (`ExecMatch`) or lets through (`ExecNotMatch`).
#[cfg(test)]
pub(super) const EXAMPLES: &[super::examples::Example] = {
    use super::examples::*;
    &[
        // PYTHON
        Match("python3 -c <code>", "code", ValueOf("-c")),
        Match("python3 -c<code>", "code", ValueOf("-c")),
        NotMatch("python3 -c print(1)"),
        NotMatch("python3 -m json.tool <file>"),
        ExecMatch("python3 -m json.tool f"),
        ExecNotMatch("python3 --version"),
        // NODE
        Match("node --ch <file>", "file", At(Program)),
        Match("node --check -r <mod> app.js", "mod", ValueOf("-r")),
        NotMatch("node --check <file>"),
        NotMatch("node -c <file>"),
        ExecMatch("node -e x"),
        ExecNotMatch("node --version"),
        // DENO
        Match("deno eval <x>", "x", At(Program)),
        Match("deno run <script>", "script", At(Program)),
        NotMatch("deno fmt <file>"),
        NotMatch("deno run main.ts <arg>"),
        ExecMatch("deno eval x"),
        // BUN
        Match("bun -e <x>", "x", ValueOf("-e")),
        Match("bun run <script>", "script", At(Operand)),
        NotMatch("bun test <path>"),
        NotMatch("bun test <filter>"),
        ExecMatch("bun x cowsay"),
        // PERL
        Match("perl -c <file>", "file", At(Program)),
        Match("perl -le <x>", "x", ValueOf("-e")),
        NotMatch("perl -ne print <file>"),
        NotMatch("perl -Mstrict -e print <file>"),
        ExecMatch("perl -le print"),
        ExecNotMatch("perl -v"),
        // RUBY
        Match("ruby -e <x>", "x", ValueOf("-e")),
        Match("ruby -r<lib> app.rb", "lib", ValueOf("-r")),
        NotMatch("ruby -c <file>"),
        ExecMatch("ruby -e x"),
        ExecNotMatch("ruby -c x.rb"),
        // PHP
        Match("php -r <x>", "x", ValueOf("-r")),
        Match("php -d <ini> app.php", "ini", ValueOf("-d")),
        NotMatch("php -l <file>"),
        NotMatch("php --syntax-check <file>"),
        ExecMatch("php -r x"),
        ExecNotMatch("php -l x.php"),
        // LUA
        Match("lua -e <x>", "x", ValueOf("-e")),
        Match("lua -e x=1 <script>", "script", At(Program)),
        ExecMatch("lua -e x"),
        // AWK
        Match("awk <prog> <file>", "prog", At(Program)),
        Match("awk -F : <prog> <file>", "prog", At(Program)),
        NotMatch("awk -F <sep> -f prog.awk <file>"),
        NotMatch("awk -v <assign> -f prog.awk <file>"),
        ExecMatch("awk {print} f"),
        ExecNotMatch("awk --version"),
        // SED
        Match("sed <script> <file>", "script", At(Program)),
        Match("sed -n <range>p <path>", "range", At(Program)),
        NotMatch("sed -n 1p <file>"),
        NotMatch("sed -n -e 1p <file>"),
        ExecMatch("sed -n 1e/x"),
        ExecNotMatch("sed -n 1,5p f"),
        // RSCRIPT
        Match("Rscript -e <x>", "x", ValueOf("-e")),
        Match("Rscript <script>", "script", At(Program)),
        // R
        Match("R -e <x>", "x", ValueOf("-e")),
        // TCLSH
        Match("tclsh <script>", "script", At(Program)),
        // EXPECT
        Match("expect -c <x>", "x", ValueOf("-c")),
        // OSASCRIPT
        Match("osascript -e <x>", "x", ValueOf("-e")),
        // JULIA
        Match("julia -e <x>", "x", ValueOf("-e")),
        // JAVA
        Match("java -jar <jar>", "jar", At(Program)),
        Match("java -cp <cp> Main", "cp", ValueOf("-cp")),
        NotMatch("java -Xmx1g -ea -Dk=v Main <arg>"),
        NotMatch("java -Xmx1g -jar app.jar <arg>"),
        // DC
        Match("dc -e <x>", "x", ValueOf("-e")),
        // M4
        Match("m4 <file>", "file", At(Operand)),
        // GNUPLOT
        Match("gnuplot -e <x>", "x", ValueOf("-e")),
        // SQLITE3
        Match("sqlite3 -safe <db> <sql>", "sql", At(Operand)),
        Match("sqlite3 -cmd <cmd> app.db", "cmd", ValueOf("-cmd")),
        NotMatch("sqlite3 <db> .tables"),
        // PSQL
        Match("psql -c <sql>", "sql", ValueOf("-c")),
        // MYSQL
        Match("mysql -e <sql>", "sql", ValueOf("-e")),
        NotMatch("mysql -h <host> -D <db>"),
    ]
};
