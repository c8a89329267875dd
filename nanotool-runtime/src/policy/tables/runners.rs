//! The code-entry rows of package and task runners (npx, npm, yarn, just, cargo, go, apt, dpkg, hyperfine, watchexec...): the subcommand or package that runs; each entry beside its options.

use super::*;

pub(super) const NPX: Entry = Entry {
    names: &["npx", "bunx", "pnpx", "uvx"],
    options: &[PACKAGE_RUNNER_OPTS],
    operands: Operands::Program(PACKAGE_RUNNER),
    complete: false,
    dashdash: false,
    ..BASE
};

pub(super) const PACKAGE_RUNNER: &str = "the package that is downloaded and run";

/// npx, bunx, pnpx and uvx (npm exec, bun x, pnpm dlx, uv tool run): the options that take a
/// value or run code, and the common flags, so that a flag before the package does not make
/// the scanner read the package as a maybe-value and an argument as the package.
pub(super) const PACKAGE_RUNNER_OPTS: &[Opt] = &[
    code("-c", SHELL_CMD),
    code("--call", SHELL_CMD),
    code("--shell", "the shell npx runs a `--call` command line with"),
    load(
        "-p",
        "a package to install (npx) or the Python to run (uvx): its code runs",
    ),
    load("--package", "a package to install, whose binaries may run"),
    load(
        "--from",
        "the package uvx installs and runs the command from",
    ),
    load("--with", "an extra package uvx installs beside the command"),
    load("--python", "the Python interpreter uvx runs"),
    load("--node-options", "node options, which can preload code"),
    load(
        "--userconfig",
        "an npmrc, whose settings (`script-shell`, `node-options`) run code",
    ),
    val("--registry"),
    val("--cache"),
    val("-w"),
    val("--workspace"),
    val("--index-url"),
    val("--extra-index-url"),
    flag("-y"),
    flag("--yes"),
    flag("--no"),
    flag("--no-install"),
    flag("--ignore-existing"),
    flag("-q"),
    flag("--quiet"),
    flag("--silent"),
    flag("--prefer-offline"),
    flag("--prefer-online"),
    flag("--offline"),
    flag("--bun"),
];

pub(super) const NPM: Entry = Entry {
    names: &["npm", "pnpm"],
    options: &[PACKAGE_RUNNER_OPTS],
    operands: Operands::Subcommands {
        subs: NPM_SUBS,
        other: Some(&Sub {
            names: &[],
            options: &[PACKAGE_RUNNER_OPTS],
            operands: Operands::Data,
        }),
        why: "the npm subcommand (`exec` runs a package, `run` a script)",
        slot_is_data: false,
    },
    complete: false,
    dashdash: false,
    ..BASE
};

/// npm, pnpm and yarn: package runners, and package.json scripts run through a shell.
pub(super) const NPM_SCRIPT: &str =
    "a package.json script name, or an argument appended to the script's shell command line";

pub(super) const NPM_SUBS: &[Sub] = &[
    Sub {
        names: &["exec", "x", "dlx"],
        options: &[PACKAGE_RUNNER_OPTS],
        operands: Operands::Program(PACKAGE_RUNNER),
    },
    Sub {
        names: &[
            "run",
            "run-script",
            "rum",
            "urn",
            "test",
            "t",
            "tst",
            "start",
            "stop",
            "restart",
        ],
        options: &[PACKAGE_RUNNER_OPTS],
        operands: Operands::AllCode(NPM_SCRIPT),
    },
    Sub {
        names: &["install", "i", "add", "update", "up", "upgrade"],
        options: &[PACKAGE_RUNNER_OPTS],
        operands: Operands::AllCode("a package to install, whose install scripts run"),
    },
    Sub {
        names: &["explore"],
        options: &[PACKAGE_RUNNER_OPTS],
        operands: Operands::CodeAfter {
            skip: 1,
            why: "a command line npm runs through a shell in the package's folder",
        },
    },
];

pub(super) const YARN: Entry = Entry {
    // yarn runs a package.json script for any name that is not one of its own commands.
    names: &["yarn"],
    options: &[PACKAGE_RUNNER_OPTS],
    operands: Operands::Subcommands {
        subs: NPM_SUBS,
        other: Some(&Sub {
            names: &[],
            options: &[PACKAGE_RUNNER_OPTS],
            operands: Operands::AllCode(NPM_SCRIPT),
        }),
        why: "the yarn command or package.json script",
        slot_is_data: false,
    },
    complete: false,
    dashdash: false,
    ..BASE
};

pub(super) const HYPERFINE: Entry = Entry {
    // Benchmarks and runners whose operands are command lines run through a shell.
    names: &["hyperfine"],
    options: &[HYPERFINE_OPTS],
    operands: Operands::AllCode("a command line hyperfine runs through a shell"),
    permute: true,
    complete: false,
    dashdash: false,
    ..BASE
};

pub(super) const HYPERFINE_OPTS: &[Opt] = &[
    code(
        "-p",
        "a command line hyperfine runs through a shell before each run",
    ),
    code(
        "--prepare",
        "a command line hyperfine runs through a shell before each run",
    ),
    code(
        "-c",
        "a command line hyperfine runs through a shell after the runs",
    ),
    code(
        "--cleanup",
        "a command line hyperfine runs through a shell after the runs",
    ),
    code(
        "-s",
        "a command line hyperfine runs through a shell before the runs",
    ),
    code(
        "--setup",
        "a command line hyperfine runs through a shell before the runs",
    ),
    code("-S", "the shell hyperfine runs commands with"),
    code("--shell", "the shell hyperfine runs commands with"),
    code(
        "-L",
        "a parameter whose values are put into the command lines",
    ),
    code(
        "--parameter-list",
        "a parameter whose values are put into the command lines",
    ),
    eff("--export-json", Arity::Next, WRITES),
    eff("--export-csv", Arity::Next, WRITES),
    eff("--export-markdown", Arity::Next, WRITES),
    val("-w"),
    val("--warmup"),
    val("-r"),
    val("--runs"),
    val("-m"),
    val("--min-runs"),
    val("-M"),
    val("--max-runs"),
    val("-n"),
    val("--command-name"),
];

pub(super) const WATCHEXEC: Entry = Entry {
    names: &["watchexec"],
    options: &[WATCHEXEC_OPTS],
    operands: Operands::AllCode("the command line watchexec runs through a shell"),
    complete: false,
    dashdash: false,
    ..BASE
};

pub(super) const WATCHEXEC_OPTS: &[Opt] = &[
    code("--shell", "the shell watchexec runs the command with"),
    load(
        "-E",
        "an environment variable for the command (`LD_PRELOAD` loads code)",
    ),
    load(
        "--env",
        "an environment variable for the command (`LD_PRELOAD` loads code)",
    ),
    val("-w"),
    val("--watch"),
    val("-e"),
    val("--exts"),
    val("-f"),
    val("--filter"),
    val("-i"),
    val("--ignore"),
    val("-d"),
    val("--debounce"),
    val("-s"),
    val("--signal"),
    val("--workdir"),
    val("--on-busy-update"),
];

pub(super) const CONCURRENTLY: Entry = Entry {
    names: &["concurrently"],
    options: &[&[
        val("-n"),
        val("--names"),
        val("-c"),
        val("--prefix-colors"),
        val("-p"),
        val("--prefix"),
        val("-k"),
        val("--success"),
    ]],
    operands: Operands::AllCode("a command line concurrently runs through a shell"),
    permute: true,
    complete: false,
    dashdash: false,
    ..BASE
};

pub(super) const NODEMON: Entry = Entry {
    names: &["nodemon"],
    options: &[&[
        code("-x", "the command nodemon runs instead of node"),
        code("--exec", "the command nodemon runs instead of node"),
        load(
            "--config",
            "a nodemon config file, whose `exec` runs a command",
        ),
        val("-w"),
        val("--watch"),
        val("-e"),
        val("--ext"),
        val("-i"),
        val("--ignore"),
        val("-d"),
        val("--delay"),
        val("--signal"),
    ]],
    operands: Operands::Program(SCRIPT),
    complete: false,
    dashdash: false,
    ..BASE
};

pub(super) const JUST: Entry = Entry {
    // Command runners whose recipes interpolate their arguments into shell lines as
    // text: `just build <x>` with a recipe `build arg: cc {{arg}}`, go-task's `CLI_ARGS`.
    names: &["just", "task", "go-task"],
    options: &[&[
        code(
            "-f",
            "a justfile or Taskfile, whose recipes are shell commands",
        ),
        code("--justfile", "a justfile, whose recipes are shell commands"),
        code("--taskfile", "a Taskfile, whose tasks are shell commands"),
        code("--set", "a variable set into the recipes' shell lines"),
        code("--shell", "the shell the recipes run with"),
        code(
            "--shell-arg",
            "an argument of the shell the recipes run with",
        ),
        code("-c", "a command line run through the recipes' shell"),
        code("--command", "a command line run through the recipes' shell"),
        val("-d"),
        val("--working-directory"),
        val("--dir"),
    ]],
    operands: Operands::AllCode(
        "a recipe name, or an argument interpolated into the recipe's shell lines as text",
    ),
    complete: false,
    dashdash: false,
    ..BASE
};

pub(super) const CARGO: Entry = Entry {
    names: &["cargo"],
    options: &[&[
        load(
            "--config",
            "a configuration value (`target.<triple>.runner`, `build.rustc-wrapper` name programs cargo runs)",
        ),
        load(
            "-Z",
            "an unstable flag, some of which change which programs cargo runs",
        ),
        val("-C"),
        val("--manifest-path"),
        val("-p"),
        val("--package"),
        val("--bin"),
        val("--example"),
        val("--test"),
        val("--bench"),
        val("--target"),
        val("--target-dir"),
        val("--features"),
        val("-F"),
        val("-j"),
        val("--jobs"),
        val("--color"),
        val("--message-format"),
        val("--profile"),
    ]],
    complete: false,
    permute: true,
    dashdash: false,
    ..BASE
};

pub(super) const GO: Entry = Entry {
    names: &["go"],
    options: &[&[
        code("-exec", "the program go runs the built binary with"),
        code("-toolexec", "the program go runs each compiler tool with"),
        val("-o"),
        val("-run"),
        val("-bench"),
        val("-count"),
        val("-timeout"),
        val("-tags"),
        val("-C"),
        val("-p"),
    ]],
    long_only: true,
    permute: true,
    complete: false,
    dashdash: false,
    hyphen_values: true,
    ..BASE
};

pub(super) const APT_GET: Entry = Entry {
    names: &["apt-get", "apt", "apt-cache", "apt-config", "apt-mark"],
    options: &[APT_OPTS],
    complete: false,
    permute: true,
    ..BASE
};

pub(super) const APT_OPTS: &[Opt] = &[
    code(
        "-o",
        "an APT setting (`APT::Update::Pre-Invoke`, `DPkg::Pre-Invoke` run commands)",
    ),
    code(
        "--option",
        "an APT setting (`APT::Update::Pre-Invoke`, `DPkg::Pre-Invoke` run commands)",
    ),
    code(
        "-c",
        "an APT configuration file (its settings run commands)",
    ),
    code(
        "--config-file",
        "an APT configuration file (its settings run commands)",
    ),
];

pub(super) const DPKG: Entry = Entry {
    names: &["dpkg"],
    options: &[DPKG_OPTS],
    complete: false,
    permute: true,
    ..BASE
};

pub(super) const DPKG_SCRIPTS: &str = "a package whose maintainer scripts dpkg runs";

pub(super) const DPKG_OPTS: &[Opt] = &[
    code("-i", DPKG_SCRIPTS),
    code("--install", DPKG_SCRIPTS),
    code("--unpack", DPKG_SCRIPTS),
    code("-r", DPKG_SCRIPTS),
    code("--remove", DPKG_SCRIPTS),
    code("-P", DPKG_SCRIPTS),
    code("--purge", DPKG_SCRIPTS),
    code("--configure", DPKG_SCRIPTS),
];

/// What the entries of this file must and must not match, run through the real policy by
/// `examples`' test: a template whose free slot stands where code goes (`Match`, with the
/// site), a template that passes with every slot free (`NotMatch`), and free-text commands
/// ExecTool refuses (`ExecMatch`) or lets through (`ExecNotMatch`).
#[cfg(test)]
pub(super) const EXAMPLES: &[super::examples::Example] = {
    use super::examples::*;
    &[
        // NPX
        Match("npx --no-install <pkg> <path>", "pkg", At(Program)),
        Match("npx -c <cmd>", "cmd", ValueOf("-c")),
        NotMatch("npx --no-install eslint <path>"),
        NotMatch("npx --yes prettier --check <path>"),
        ExecMatch("npx cowsay"),
        // NPM
        Match("npm exec <pkg>", "pkg", At(Program)),
        Match("npm run <script>", "script", At(Operand)),
        NotMatch("npm run lint"),
        NotMatch("npm ls <pkg>"),
        // YARN
        Match("yarn <script>", "script", At(Subcommand)),
        Match("yarn lint <arg>", "arg", At(Operand)),
        // HYPERFINE
        Match("hyperfine <cmd>", "cmd", At(Operand)),
        Match("hyperfine -p <prep> make", "prep", ValueOf("-p")),
        NotMatch("hyperfine --warmup 3 make"),
        // WATCHEXEC
        Match("watchexec -e rs <cmd>", "cmd", At(Operand)),
        NotMatch("watchexec -e <ext> cargo test"),
        // CONCURRENTLY
        Match("concurrently <a> <b>", "a", At(Operand)),
        // NODEMON
        Match("nodemon --exec <cmd>", "cmd", ValueOf("--exec")),
        Match("nodemon <script>", "script", At(Program)),
        // JUST
        Match("just <recipe>", "recipe", At(Operand)),
        Match("just build <arg>", "arg", At(Operand)),
        // CARGO
        Match("cargo --config <cfg> build", "cfg", ValueOf("--config")),
        NotMatch("cargo test <filter>"),
        // GO
        Match("go test -exec <cmd> ./...", "cmd", ValueOf("-exec")),
        NotMatch("go test -run <pattern> ./..."),
        // APT_GET
        Match("apt-get -o <opt> update", "opt", ValueOf("-o")),
        // DPKG
        Match("dpkg -i <deb>", "deb", ValueOf("-i")),
        NotMatch("dpkg -l <pkg>"),
    ]
};
