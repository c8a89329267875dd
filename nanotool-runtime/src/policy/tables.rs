//! The policy's data: the deny list, the binaries that stand for the same danger, and the
//! code-entry table.
//!
//! Everything here is a table, documented entry by entry (each code-entry option carries a
//! `why`, the text a refusal shows); the logic that reads the tables lives in the parent
//! module. To teach the policy a binary, add an [`Entry`] to [`CODE_ENTRY`], listing every
//! option that takes a separate value (an unlisted option is read as a flag).

/// One group of the built-in deny list: its entries and why they are denied (the reason a
/// refusal gives).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DenyGroup {
    /// The group's name.
    pub name: &'static str,
    /// Its entries (`mkfs*` is a prefix rule).
    pub entries: &'static [&'static str],
    /// Why they are denied, as a refusal says it.
    pub why: &'static str,
}

/// States the deny list once, by group: [`DENY_GROUPS`] and the flat [`DENIED_BINARIES`]
/// are both written from it.
macro_rules! deny_list {
    ($($name:literal, $why:literal: [$($entry:literal),* $(,)?];)*) => {
        /// Binaries no template may run, whatever the host says, by group (see
        /// [`DENIED_BINARIES`]).
        pub const DENY_GROUPS: &[DenyGroup] = &[
            $(DenyGroup { name: $name, entries: &[$($entry),*], why: $why },)*
        ];

        /// Binaries no template may run, whatever the host says: every entry of
        /// [`DENY_GROUPS`], in order. `mkfs*` is the one prefix rule: `mkfs`, `mkfs.ext4`,
        /// `mkfs.vfat`, ... are all denied.
        pub const DENIED_BINARIES: &[&str] = &[$($($entry,)*)*];
    };
}

deny_list! {
    "destroyers", "it deletes or overwrites data beyond repair":
        ["rm", "rmdir", "shred", "dd", "mkfs*", "truncate"];
    "privilege", "it runs commands as another user":
        ["sudo", "su", "doas", "pkexec"];
    "shells and command runners", "it runs an arbitrary command line given as data":
        ["sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "env", "xargs", "nohup",
         "busybox", "eval", "exec"];
    "network", "it moves data over the network":
        ["curl", "wget", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "telnet"];
    "system", "it changes the machine beyond the workspace":
        ["kill", "pkill", "killall", "chmod", "chown", "chgrp", "mount", "umount", "reboot",
         "shutdown", "halt", "poweroff", "crontab"];
}

/// Other names for what [`DENIED_BINARIES`] denies: each is denied as the listed entry it
/// stands for (`(name, stands_for)`). They are not spellings of a listed name but other
/// programs with the same danger, so a template cannot step around `sh` with `ash` or around
/// `sudo` with `run0`. Kept deliberately short: only programs whose every use is the listed
/// danger (a tool with a harmless everyday use, like `systemctl status`, is not here).
pub const DENIED_EQUIVALENTS: &[(&str, &str)] = &[
    // Shells: each runs a command line given as data, like `sh -c`.
    ("ash", "sh"),
    ("yash", "sh"),
    ("posh", "sh"),
    ("rbash", "bash"),
    ("rzsh", "zsh"),
    ("mksh", "ksh"),
    ("lksh", "ksh"),
    ("pdksh", "ksh"),
    ("oksh", "ksh"),
    ("pwsh", "sh"),
    ("powershell", "sh"),
    ("elvish", "sh"),
    ("xonsh", "sh"),
    ("nu", "sh"),
    // Runners that hand their operands to `sh -c` (`watch ls x` runs `sh -c 'ls x'`),
    // spawn a shell (`script`, `tmux`, `screen` without a command), or fan out commands.
    ("watch", "sh"),
    ("script", "sh"),
    ("tmux", "sh"),
    ("screen", "sh"),
    ("parallel", "xargs"),
    ("pee", "sh"),
    // Multiplexers and detachers, like `tmux`: they start a shell or run a command line
    // detached from the kernel's process group.
    ("byobu", "sh"),
    ("zellij", "sh"),
    ("dtach", "sh"),
    ("abduco", "sh"),
    // `watch` clones: they run their operands through `sh -c`.
    ("viddy", "sh"),
    ("hwatch", "sh"),
    // Remote shells, like `ssh`: they join their operands into a command line another machine's
    // shell runs.
    ("rsh", "ssh"),
    ("rlogin", "ssh"),
    ("rexec", "ssh"),
    ("slogin", "ssh"),
    ("autossh", "ssh"),
    ("mosh", "ssh"),
    ("dbclient", "ssh"),
    ("plink", "ssh"),
    ("rcp", "scp"),
    // Like `env`: run a command with an environment read from files or flags (`LD_PRELOAD`).
    ("envdir", "env"),
    ("chpst", "env"),
    ("setuidgid", "su"),
    // Multi-call binaries: `toybox sh`, like `busybox sh`.
    ("toybox", "busybox"),
    // Privilege and namespace tools: run a command (a shell when none is given) as another
    // user, group, root directory or namespace.
    ("sudoedit", "sudo"),
    ("run0", "sudo"),
    ("runuser", "su"),
    ("sg", "su"),
    ("newgrp", "su"),
    ("chroot", "sudo"),
    ("setpriv", "sudo"),
    ("nsenter", "sudo"),
    ("unshare", "sudo"),
    ("capsh", "sudo"),
    // Runners that detach the command from the kernel's process group, so the timeout and
    // cancellation cannot reach it (what `nohup` is denied for), or schedule it for later.
    ("setsid", "nohup"),
    ("daemonize", "nohup"),
    ("start-stop-daemon", "nohup"),
    ("systemd-run", "nohup"),
    ("at", "crontab"),
    ("batch", "crontab"),
    // Destroyers under another name.
    ("unlink", "rm"),
    ("srm", "shred"),
    ("wipe", "shred"),
    ("wipefs", "mkfs*"),
    ("mke2fs", "mkfs*"),
    ("mkswap", "mkfs*"),
    // ssh under other names: every use connects to another machine (`ssh-copy-id`,
    // `ssh-keyscan`); `ssh-agent` detaches a daemon, or runs its operand as a command.
    ("ssh-copy-id", "ssh"),
    ("ssh-keyscan", "ssh"),
    ("ssh-agent", "nohup"),
    // Login and account editors: every use is about logging in or editing the system's
    // accounts (`agetty -l` runs a login program; `vipw` edits `/etc/passwd`).
    ("agetty", "su"),
    ("getty", "su"),
    ("vipw", "sudo"),
    ("vigr", "sudo"),
];

/// The group of an entry of [`DENIED_BINARIES`].
pub(crate) fn deny_group(entry: &str) -> Option<&'static DenyGroup> {
    DENY_GROUPS.iter().find(|g| g.entries.contains(&entry))
}

// ---------------------------------------------------------------------------------------------
// The code-entry table
// ---------------------------------------------------------------------------------------------

/// How an option takes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// A flag: no value.
    Flag,
    /// A required value: attached (`-cCODE`, `--eval=CODE`) or else the next token.
    Next,
    /// An optional value, attached only (`-i.bak`, `--in-place=.bak`, `-Oless`).
    Attached,
    /// An optional number, attached only, after which the bundle goes on: perl's `-l[octal]`
    /// and `-0[octal]` / `-0x[hex]` (`-lne` is `-l -n -e`).
    Digits,
    /// The following tokens, up to a literal `;` or `+` (or the end), are a command the binary
    /// runs (`find -exec`, `gdb --args`).
    Command,
}

/// What an option means to the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Nothing the policy cares about (listed so that its value is not mistaken for an
    /// operand, or so that it is not mistaken for a prefix of a code-entry option).
    Plain,
    /// Its value is the code the binary runs: program text, a file of code, a command line.
    /// It gives the program, so the first operand is no longer the program (`python3 -c CODE
    /// ARGS`). A template must fix it; ExecTool refuses the option.
    Code,
    /// Its value is code loaded *beside* the program: a module, a library, a preload, a
    /// setting that loads code (`perl -MFoo SCRIPT`, `node -r mod SCRIPT`, `lua -e X SCRIPT`).
    /// Like [`Role::Code`], except that the program operand still follows.
    Load,
    /// It writes files or runs a program named in a configuration (`sort -o`, `find
    /// -delete`, `git --ext-diff`), deletes files (`tar --remove-files`, `rsync --delete`), or
    /// reaches outside the working directory where layer 4 cannot see it (`find -L` and `grep
    /// -R` follow symbolic links; `tar -T` reads the names to archive from a file). Fine when a
    /// template fixes it; ExecTool refuses it.
    Effect,
    /// Its value names a file, or, with a `:` before the first `/` (`host:file`), a file on
    /// another machine that the binary reaches by running a remote shell (`tar -f`/`--file`;
    /// rsync's operands are judged the same way, through `remote_operands`). ExecTool refuses
    /// a value with such a `:`; in a template a slot that could put the `:` there must be
    /// constrained or a `path` (rendered `./...` or `.`, it never does).
    Remote,
    /// A flag after which the first operand is not a program the binary runs as given: a
    /// syntax check that only reads the program (`node --check`, `ruby -c`, `php -l`; not
    /// `perl -c`, which runs `BEGIN` blocks), or a test-runner mode whose operands name the
    /// test files to run, as `pytest <path>` and `go test` do (`node --test`). Like
    /// [`Role::Code`] it means the first operand is not the program; it is matched only when
    /// written in full (never as an abbreviation).
    Check,
}

/// One option of a binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opt {
    /// The option as written, dashes included: `-c`, `--eval`, `-exec`; a name ending in `:`
    /// (`-javaagent:`) takes the rest of the token as its value; a name ending in `*`
    /// (`--experimental-*`, `-X*`) stands for a family of plain options.
    pub name: &'static str,
    /// How it takes its value.
    pub arity: Arity,
    /// What it means to the policy.
    pub role: Role,
    /// What its value is, for messages ("the code the interpreter runs").
    pub why: &'static str,
}

/// What a binary's operands (its non-option arguments) are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operands {
    /// Data: files, patterns, names.
    Data,
    /// The first operand is the program, unless an option gave the code (`python3 script.py`,
    /// `awk PROG file`, `sed SCRIPT file`). What follows it is the program's arguments.
    Program(&'static str),
    /// Every operand is code (`make` operands may be `VAR=value` assignments).
    AllCode(&'static str),
    /// After `skip` data operands, every operand is code (`sqlite3 DB SQL...`).
    CodeAfter {
        /// How many leading operands are data.
        skip: usize,
        /// What the later operands are.
        why: &'static str,
    },
    /// After `skip` data operands (`timeout DURATION`), the rest is a command the binary runs;
    /// that command is checked in turn (deny list, code entry).
    Command {
        /// How many leading operands come before the command.
        skip: usize,
    },
    /// The first operand is a subcommand.
    Subcommands {
        /// The known subcommands.
        subs: &'static [Sub],
        /// How any other subcommand is read; `None`: an unknown first operand is itself the
        /// program (`deno script.ts`).
        other: Option<&'static Sub>,
        /// What the subcommand decides, for a slot standing there.
        why: &'static str,
        /// A slot standing there is data (`git config --get <key>`): what follows it is read
        /// as `other`. When `false`, such a slot is a site, and what follows is read with
        /// every subcommand's options.
        slot_is_data: bool,
    },
}

/// A subcommand (`git rebase`, `deno eval`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sub {
    /// Its names.
    pub names: &'static [&'static str],
    /// Its options (lists searched in order).
    pub options: &'static [&'static [Opt]],
    /// Its operands.
    pub operands: Operands,
}

/// A binary (or family) of the code-entry table.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// Names, matched against every [`crate::policy::name_forms`] of the binary; a trailing
    /// `*` matches as a prefix (`python*`).
    pub names: &'static [&'static str],
    /// Options before the operands (lists searched in order).
    pub options: &'static [&'static [Opt]],
    /// Its operands.
    pub operands: Operands,
    /// GNU option permutation: options may follow operands (`sed FILE -e X`).
    pub permute: bool,
    /// A code option ends option parsing (`python3 -c CODE ARGS...`).
    pub stop_after_code: bool,
    /// Every `-word` is one option, never a bundle of letters (`find -exec`, `gdb -ex`).
    pub long_only: bool,
    /// The table lists every option that takes a separate value: an unknown option is a flag.
    /// When `false`, a token after an unknown option may be its value *or* an operand, and is
    /// judged as both.
    pub complete: bool,
    /// `+CMD` tokens are commands the binary runs at start (`less +!cmd`, `vim +cmd`), so an
    /// operand that begins with a slot is a site too (it could begin with `+`).
    pub plus_code: bool,
    /// A first argument without a dash is a bundle of option letters whose values follow in
    /// order (`tar xIf zstd a.tar`).
    pub old_bundle: bool,
    /// Short options take an attached value (`-cCODE`). When `false` (node), a bundle is
    /// flags only and the value of its last value-taking letter is the next token
    /// (`node -pe CODE`).
    pub attached_values: bool,
    /// In ExecTool, a literal program (or code) operand that passes this check is allowed
    /// (`sed -n 5p`, `make test`).
    pub exec_program_ok: Option<fn(&str) -> bool>,
    /// Every operand is read like a [`Role::Remote`] value: one with a `:` before any `/`
    /// names another machine (`rsync src host:dst`, `host::module`, `rsync://host/...`); the
    /// text says what such an operand is, for messages.
    pub remote_operands: Option<&'static str>,
    /// A literal `--` ends the options: every later argument is an operand, even one that
    /// begins with `-` (GNU getopt, clap, git). `false` for an expression language such as
    /// find's, where `--` only ends the options before the starting points and `-delete` after
    /// them is still an expression. A value standing after such a `--` as a data operand may
    /// begin with `-` (`git log -- <path>`, `grep -e x -- <file>`).
    pub dashdash: bool,
    /// An option that takes a value takes the next argument even when it begins with `-`
    /// (GNU getopt, git, find, Go's flag package). `false` (the default) where the parser may
    /// read such an argument as an option instead (clap and yargs-style parsers) or where it
    /// is not known to take it: a value there may not begin with `-`.
    pub hyphen_values: bool,
}

const BASE: Entry = Entry {
    names: &[],
    options: &[],
    operands: Operands::Data,
    permute: false,
    stop_after_code: false,
    long_only: false,
    complete: true,
    plus_code: false,
    old_bundle: false,
    attached_values: true,
    exec_program_ok: None,
    remote_operands: None,
    dashdash: true,
    hyphen_values: false,
};

const fn code(name: &'static str, why: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Next,
        role: Role::Code,
        why,
    }
}
const fn load(name: &'static str, why: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Next,
        role: Role::Load,
        why,
    }
}
const fn load_att(name: &'static str, why: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Attached,
        role: Role::Load,
        why,
    }
}
const fn code_att(name: &'static str, why: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Attached,
        role: Role::Code,
        why,
    }
}
const fn cmd(name: &'static str, why: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Command,
        role: Role::Code,
        why,
    }
}
const fn eff(name: &'static str, arity: Arity, why: &'static str) -> Opt {
    Opt {
        name,
        arity,
        role: Role::Effect,
        why,
    }
}
const fn remote(name: &'static str, why: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Next,
        role: Role::Remote,
        why,
    }
}
const fn check(name: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Flag,
        role: Role::Check,
        why: "it only checks the program's syntax: the program is read, not run",
    }
}
const fn test_runner(name: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Flag,
        role: Role::Check,
        why: "it runs the test files its operands name, as a test runner does (`pytest <path>`): \
              no operand is a program given to run",
    }
}
const fn val(name: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Next,
        role: Role::Plain,
        why: "",
    }
}
const fn att(name: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Attached,
        role: Role::Plain,
        why: "",
    }
}
const fn digits(name: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Digits,
        role: Role::Plain,
        why: "",
    }
}
const fn flag(name: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Flag,
        role: Role::Plain,
        why: "",
    }
}

const CODE: &str = "the code the interpreter runs";
const CODE_FILE: &str = "a file of code the interpreter runs";
const MODULE: &str = "a module or library the interpreter loads and runs";
const SCRIPT: &str = "the program the interpreter runs (its first operand)";
const SHELL_CMD: &str = "a command line run through a shell";
const PRELOAD: &str = "code loaded before the program (a preload or loader)";
const LOAD_PATH: &str = "a folder the interpreter loads modules from, before its own: a module there replaces the one the program uses";
const WRITES: &str = "it writes to a file named in free text";
const DEBUGGER: &str = "it opens a debugger port through which code can be sent";
const FOLLOWS: &str = "it follows symbolic links as it walks folders, so a link inside the working directory takes it outside, where free text cannot confine it";
const NAMES_FROM_FILE: &str = "it reads the names of the files to act on from a file, where free text cannot confine them to the working directory";
const DELETES: &str = "it deletes files";
const REDIRECTS: &str = "it changes the folder later names are resolved from, which free text cannot confine; run from the working directory and name paths from it";
const RENAMES: &str = "its expression renames the files it writes (symbolic link targets too), so a name can end up outside the working directory";

// --- Python: python, python3, python3.12, pypy3, ipython ------------------------------------
const PYTHON_OPTS: &[Opt] = &[
    code("-c", CODE),
    code("-m", "the module python runs as the program"),
    val("-W"),
    val("-X"),
    val("--check-hash-based-pycs"),
];

// --- JavaScript runtimes ----------------------------------------------------------------------
const NODE_OPTS: &[Opt] = &[
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
const DENO_RUN_OPTS: &[Opt] = &[
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
const DENO_SUBS: &[Sub] = &[
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
const BUN_OPTS: &[Opt] = &[
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
const BUN_SUBS: &[Sub] = &[
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
const PACKAGE_RUNNER: &str = "the package that is downloaded and run";
/// npx, bunx, pnpx and uvx (npm exec, bun x, pnpm dlx, uv tool run): the options that take a
/// value or run code, and the common flags, so that a flag before the package does not make
/// the scanner read the package as a maybe-value and an argument as the package.
const PACKAGE_RUNNER_OPTS: &[Opt] = &[
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
/// npm, pnpm and yarn: package runners, and package.json scripts run through a shell.
const NPM_SCRIPT: &str =
    "a package.json script name, or an argument appended to the script's shell command line";
const NPM_SUBS: &[Sub] = &[
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

// --- Perl, Ruby, PHP, Lua ----------------------------------------------------------------------
const PERL_OPTS: &[Opt] = &[
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
const RUBY_OPTS: &[Opt] = &[
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
const PHP_OPTS: &[Opt] = &[
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
const LUA_OPTS: &[Opt] = &[
    load("-e", CODE),
    load("-l", MODULE),
    load("-j", "a JIT control module luajit loads (`-jv`)"),
    eff("-b", Arity::Next, "it writes bytecode to a file"),
    att("-O"),
];

// --- awk and sed ---------------------------------------------------------------------------
const AWK_OPTS: &[Opt] = &[
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
const SED_OPTS: &[Opt] = &[
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
const SED_SCRIPT: &str = "the sed script (its first operand): GNU sed's `e` command and `s///e` run programs, `w`/`W` write and `r`/`R` read files";

/// The one sed script ExecTool lets through: `N[,M]p`, which only prints lines.
pub fn is_sed_print_script(script: &str) -> bool {
    let Some(range) = script.strip_suffix('p') else {
        return false;
    };
    let mut parts = range.splitn(2, ',');
    let number =
        |s: Option<&str>| s.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
    let first = parts.next();
    match parts.next() {
        None => number(first),
        second => number(first) && number(second),
    }
}

/// A make operand ExecTool lets through: a target, not a `VAR=value` assignment.
pub fn is_not_assignment(operand: &str) -> bool {
    !operand.contains('=')
}

// --- Other interpreters ----------------------------------------------------------------------
const R_OPTS: &[Opt] = &[
    code("-e", CODE),
    code("-f", CODE_FILE),
    code("--file", CODE_FILE),
    val("--default-packages"),
];
const EXPECT_OPTS: &[Opt] = &[
    load("-c", CODE),
    code("-f", CODE_FILE),
    code("-b", CODE_FILE),
    val("-D"),
];
const TCL_OPTS: &[Opt] = &[val("-encoding")];
const OSASCRIPT_OPTS: &[Opt] = &[code("-e", CODE), val("-l"), val("-s")];
const JULIA_OPTS: &[Opt] = &[
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
const JAVA_OPTS: &[Opt] = &[
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
const JAVA_PROGRAM: &str = "the class, jar or source file java runs (its first operand)";
const DC_OPTS: &[Opt] = &[
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
const M4_OPTS: &[Opt] = &[
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
const GNUPLOT_OPTS: &[Opt] = &[code(
    "-e",
    "gnuplot commands (`system` and `!` run shell commands)",
)];
const SQLITE_OPTS: &[Opt] = &[
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
const PSQL_OPTS: &[Opt] = &[
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
const MYSQL_OPTS: &[Opt] = &[
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

// --- Editors, pagers, debuggers --------------------------------------------------------------
const VIM_OPTS: &[Opt] = &[
    code("-c", "an Ex command vim runs (`:!cmd` runs a shell)"),
    code("--cmd", "an Ex command vim runs (`:!cmd` runs a shell)"),
    code("-S", "a file of Ex commands vim sources"),
    code("-u", "a vimrc vim runs"),
    code("-U", "a gvimrc vim runs"),
    code("-s", "a script of commands vim replays"),
    code(
        "--remote-send",
        "keys sent to a running vim, which can run Ex commands",
    ),
    code("--remote-expr", "an expression a running vim evaluates"),
    val("--servername"),
    eff("-w", Arity::Next, WRITES),
    eff("-W", Arity::Next, WRITES),
    val("-i"),
    val("-T"),
    val("-t"),
    val("-q"),
    val("-r"),
];
/// Neovim adds `-l` (a Lua script it runs) to vim's options.
const NVIM_OPTS: &[Opt] = &[
    code("-l", "a Lua script nvim runs"),
    code("--listen", "an address nvim listens on for commands"),
    val("--server"),
];
const EMACS_OPTS: &[Opt] = &[
    // Emacs takes its long options with one dash or two: `-eval` is `--eval`.
    code("-eval", "Lisp code emacs evaluates"),
    code("--execute", "Lisp code emacs evaluates"),
    code("-execute", "Lisp code emacs evaluates"),
    code("-load", "a Lisp file emacs loads"),
    code("-funcall", "a Lisp function emacs calls"),
    code("-script", "a Lisp file emacs runs"),
    code(
        "-directory",
        "a folder emacs loads Lisp libraries from, before its own",
    ),
    code("--eval", "Lisp code emacs evaluates"),
    code("-l", "a Lisp file emacs loads"),
    code("--load", "a Lisp file emacs loads"),
    code("-f", "a Lisp function emacs calls"),
    code("--funcall", "a Lisp function emacs calls"),
    code("--script", "a Lisp file emacs runs"),
    code("-x", "a Lisp file emacs runs"),
    load("-L", LOAD_PATH),
    load("--directory", LOAD_PATH),
    val("--chdir"),
    val("-t"),
    val("--terminal"),
    val("-d"),
    val("--display"),
];
const NANO_OPTS: &[Opt] = &[
    code("-s", "the spell-checker program nano runs"),
    code("--speller", "the spell-checker program nano runs"),
    load("-f", "a nanorc, which can name programs nano runs"),
    load("--rcfile", "a nanorc, which can name programs nano runs"),
    val("-T"),
    val("--tabsize"),
    val("-Y"),
    val("--syntax"),
    val("-o"),
    val("--operatingdir"),
    val("-r"),
    val("--fill"),
    val("-X"),
    val("--wordchars"),
    val("-Q"),
    val("--quotestr"),
    val("-C"),
    val("--backupdir"),
];
const LESS_OPTS: &[Opt] = &[
    code(
        "--lesskey-content",
        "lesskey text, which binds keys to shell commands",
    ),
    code("-k", "a lesskey file, which binds keys to shell commands"),
    code(
        "--lesskey-file",
        "a lesskey file, which binds keys to shell commands",
    ),
    code(
        "--lesskey-src",
        "a lesskey file, which binds keys to shell commands",
    ),
    eff("-o", Arity::Next, WRITES),
    eff("--log-file", Arity::Next, WRITES),
    eff("-O", Arity::Next, WRITES),
    eff("--LOG-FILE", Arity::Next, WRITES),
    val("-t"),
    val("--tag"),
    val("-T"),
    val("--tag-file"),
    val("-p"),
    val("--pattern"),
    val("-P"),
    val("--prompt"),
    val("-b"),
    val("-h"),
    val("-j"),
    val("-x"),
    val("-y"),
    val("-z"),
    val("-#"),
    val("--shift"),
];
const MAN_OPTS: &[Opt] = &[
    code("-P", "the pager command man runs through a shell"),
    code("--pager", "the pager command man runs through a shell"),
    code_att("-H", "the browser command man runs"),
    code_att("--html", "the browser command man runs"),
    val("-p"),
    val("--preprocessor"),
    val("-M"),
    val("--manpath"),
    val("-C"),
    val("--config-file"),
    val("-L"),
    val("--locale"),
    val("-S"),
    val("-s"),
    val("--sections"),
    val("-m"),
    val("--systems"),
    val("-e"),
    val("--extension"),
    val("-E"),
    val("--encoding"),
    val("-R"),
    val("--recode"),
    att("-T"),
    att("--troff-device"),
    att("-X"),
];
const GDB_OPTS: &[Opt] = &[
    code("-ex", "a command gdb runs (`shell` runs any program)"),
    code(
        "-eval-command",
        "a command gdb runs (`shell` runs any program)",
    ),
    code("-iex", "a command gdb runs (`shell` runs any program)"),
    code(
        "-init-eval-command",
        "a command gdb runs (`shell` runs any program)",
    ),
    code("-x", "a file of commands gdb runs"),
    code("-command", "a file of commands gdb runs"),
    code("-ix", "a file of commands gdb runs"),
    code("-init-command", "a file of commands gdb runs"),
    cmd("-args", "the program gdb runs, with its arguments"),
    flag("-nx"),
    flag("-nh"),
    flag("-batch"),
    flag("-q"),
    flag("-quiet"),
    flag("-silent"),
    val("-p"),
    val("-pid"),
    val("-se"),
    val("-symbols"),
    val("-s"),
    val("-exec"),
    val("-e"),
    val("-core"),
    val("-c"),
    val("-directory"),
    val("-d"),
    val("-cd"),
    val("-tty"),
];
const LLDB_OPTS: &[Opt] = &[
    code(
        "-o",
        "a command lldb runs (`platform shell` runs any program)",
    ),
    code(
        "--one-line",
        "a command lldb runs (`platform shell` runs any program)",
    ),
    code(
        "-O",
        "a command lldb runs (`platform shell` runs any program)",
    ),
    code(
        "--one-line-before-file",
        "a command lldb runs (`platform shell` runs any program)",
    ),
    code(
        "-k",
        "a command lldb runs (`platform shell` runs any program)",
    ),
    code(
        "--one-line-on-crash",
        "a command lldb runs (`platform shell` runs any program)",
    ),
    code("-s", "a file of commands lldb runs"),
    code("--source", "a file of commands lldb runs"),
    code("-S", "a file of commands lldb runs"),
    code("--source-before-file", "a file of commands lldb runs"),
    code("-K", "a file of commands lldb runs"),
    code("--source-on-crash", "a file of commands lldb runs"),
    val("-p"),
    val("--attach-pid"),
    val("-n"),
    val("--attach-name"),
    val("-c"),
    val("--core"),
    val("-a"),
    val("--arch"),
    val("-f"),
    val("--file"),
];

// --- grep: no code entry, but `-R` walks through symbolic links --------------------------------
const GREP_OPTS: &[Opt] = &[
    eff("-R", Arity::Flag, FOLLOWS),
    eff("--dereference-recursive", Arity::Flag, FOLLOWS),
    val("-e"),
    val("--regexp"),
    val("-f"),
    val("--file"),
    val("-m"),
    val("--max-count"),
    val("-A"),
    val("--after-context"),
    val("-B"),
    val("--before-context"),
    val("-C"),
    val("--context"),
    val("-d"),
    val("--directories"),
    val("-D"),
    val("--devices"),
    val("--label"),
    val("--include"),
    val("--exclude"),
    val("--exclude-from"),
    val("--exclude-dir"),
    val("--binary-files"),
    val("--group-separator"),
    att("--color"),
    att("--colour"),
];

// --- Launchers: find, git, tar, rsync, sort, rg, zip, tcpdump, make, cmake -------------------
const FIND_OPTS: &[Opt] = &[
    cmd("-exec", "the command find runs for each file"),
    cmd("-execdir", "the command find runs for each file"),
    cmd("-ok", "the command find runs for each file"),
    cmd("-okdir", "the command find runs for each file"),
    eff("-delete", Arity::Flag, "it deletes every file it matches"),
    eff("-fprint", Arity::Next, WRITES),
    eff("-fprint0", Arity::Next, WRITES),
    eff("-fprintf", Arity::Next, WRITES),
    eff("-fls", Arity::Next, WRITES),
    eff("-L", Arity::Flag, FOLLOWS),
    eff("-follow", Arity::Flag, FOLLOWS),
    eff("-files0-from", Arity::Next, NAMES_FROM_FILE),
    // `-H` follows only the starting points, which layer 4 confines (resolving links).
    flag("-H"),
    flag("-P"),
    flag("-executable"),
    val("-name"),
    val("-iname"),
    val("-path"),
    val("-ipath"),
    val("-wholename"),
    val("-iwholename"),
    val("-regex"),
    val("-iregex"),
    val("-lname"),
    val("-ilname"),
    val("-type"),
    val("-xtype"),
    val("-maxdepth"),
    val("-mindepth"),
    val("-newer"),
    val("-anewer"),
    val("-cnewer"),
    val("-perm"),
    val("-size"),
    val("-user"),
    val("-group"),
    val("-uid"),
    val("-gid"),
    val("-mtime"),
    val("-mmin"),
    val("-atime"),
    val("-amin"),
    val("-ctime"),
    val("-cmin"),
    val("-used"),
    val("-links"),
    val("-inum"),
    val("-samefile"),
    val("-fstype"),
    val("-context"),
    val("-printf"),
    val("-regextype"),
    val("-D"),
];
const GIT_CONFIG_WHY: &str =
    "a configuration setting (`alias.x=!cmd`, `core.pager`, `core.fsmonitor` run commands)";
const GIT_CONFIG_VALUE: &str = "a configuration value written for later git commands (`alias.x=!cmd`, `core.pager`, `core.fsmonitor` run commands)";
const GIT_GLOBAL_OPTS: &[Opt] = &[
    code("-c", GIT_CONFIG_WHY),
    code("--config-env", GIT_CONFIG_WHY),
    code_att("--exec-path", "the folder git runs its subcommands from"),
    eff("-C", Arity::Next, REDIRECTS),
    eff("--git-dir", Arity::Next, REDIRECTS),
    eff("--work-tree", Arity::Next, REDIRECTS),
    val("--namespace"),
    val("--super-prefix"),
    val("--list-cmds"),
    val("--attr-source"),
];
const GIT_COMMON_OPTS: &[Opt] = &[
    code("--upload-pack", "the command git runs for the remote side"),
    code("--receive-pack", "the command git runs for the remote side"),
    code(
        "--exec",
        "the command git runs (for the remote side, or after each commit)",
    ),
    eff("--output", Arity::Next, WRITES),
    eff("--output-directory", Arity::Next, WRITES),
    eff("-o", Arity::Next, WRITES),
    eff("--pathspec-from-file", Arity::Next, NAMES_FROM_FILE),
    eff(
        "--ext-diff",
        Arity::Flag,
        "it runs the external diff program from the configuration",
    ),
];
const GIT_SUBS: &[Sub] = &[
    Sub {
        names: &["clone"],
        options: &[
            &[
                code("-u", "the command git runs for the remote side"),
                code("-c", GIT_CONFIG_WHY),
                code("--config", GIT_CONFIG_WHY),
                code(
                    "--template",
                    "a template folder whose hooks git installs and runs",
                ),
                val("-o"),
                val("--origin"),
                val("-b"),
                val("--branch"),
                val("--depth"),
                val("--reference"),
                val("-j"),
                val("--jobs"),
                val("--filter"),
                val("--separate-git-dir"),
            ],
            GIT_COMMON_OPTS,
        ],
        operands: Operands::Data,
    },
    Sub {
        names: &["init"],
        options: &[
            &[code(
                "--template",
                "a template folder whose hooks git installs and runs",
            )],
            GIT_COMMON_OPTS,
        ],
        operands: Operands::Data,
    },
    Sub {
        names: &["rebase"],
        options: &[
            &[
                code("-x", "a shell command git runs after each commit"),
                code("--exec", "a shell command git runs after each commit"),
                val("-s"),
                val("--strategy"),
                val("-X"),
                val("--strategy-option"),
                val("--onto"),
            ],
            GIT_COMMON_OPTS,
        ],
        operands: Operands::Data,
    },
    Sub {
        names: &["difftool", "mergetool"],
        options: &[
            &[
                code("-x", "the diff command git runs"),
                code("--extcmd", "the diff command git runs"),
                val("-t"),
                val("--tool"),
            ],
            GIT_COMMON_OPTS,
        ],
        operands: Operands::Data,
    },
    Sub {
        names: &["grep"],
        options: &[
            &[
                code_att("-O", "the pager command git opens the matching files in"),
                code_att(
                    "--open-files-in-pager",
                    "the pager command git opens the matching files in",
                ),
                val("-e"),
                val("-f"),
                val("-A"),
                val("-B"),
                val("-C"),
                val("-m"),
                val("--max-count"),
                val("--max-depth"),
                val("--threads"),
            ],
            GIT_COMMON_OPTS,
        ],
        operands: Operands::Data,
    },
    Sub {
        names: &["filter-branch"],
        options: &[
            &[
                code("--env-filter", SHELL_CMD),
                code("--tree-filter", SHELL_CMD),
                code("--index-filter", SHELL_CMD),
                code("--parent-filter", SHELL_CMD),
                code("--msg-filter", SHELL_CMD),
                code("--commit-filter", SHELL_CMD),
                code("--tag-name-filter", SHELL_CMD),
                code("--setup", SHELL_CMD),
                val("-d"),
                val("--subdirectory-filter"),
                val("--original"),
            ],
            GIT_COMMON_OPTS,
        ],
        operands: Operands::Data,
    },
    Sub {
        names: &["config"],
        options: &[
            &[
                val("-f"),
                val("--file"),
                val("--blob"),
                val("--type"),
                val("--default"),
                val("--comment"),
            ],
            GIT_COMMON_OPTS,
        ],
        operands: Operands::Subcommands {
            subs: &[
                Sub {
                    names: &["get", "list"],
                    options: &[],
                    operands: Operands::Data,
                },
                Sub {
                    names: &["set"],
                    options: &[],
                    operands: Operands::CodeAfter {
                        skip: 1,
                        why: GIT_CONFIG_VALUE,
                    },
                },
            ],
            // `git config <key> [<value>]`: the first operand was the key.
            other: Some(&Sub {
                names: &[],
                options: &[],
                operands: Operands::CodeAfter {
                    skip: 0,
                    why: GIT_CONFIG_VALUE,
                },
            }),
            why: "",
            slot_is_data: true,
        },
    },
    Sub {
        names: &["log", "show", "whatchanged", "shortlog"],
        options: &[GIT_LOG_OPTS, GIT_COMMON_OPTS],
        operands: Operands::Data,
    },
    Sub {
        names: &["send-email"],
        options: &[
            &[
                code("--to-cmd", SHELL_CMD),
                code("--cc-cmd", SHELL_CMD),
                code("--header-cmd", SHELL_CMD),
                code("--sendmail-cmd", SHELL_CMD),
                code(
                    "--smtp-server",
                    "the SMTP server, or a program git runs to send mail",
                ),
            ],
            GIT_COMMON_OPTS,
        ],
        operands: Operands::Data,
    },
    Sub {
        names: &["instaweb"],
        options: &[
            &[
                code("--httpd", "the web server command git runs"),
                code("-d", "the web server command git runs"),
                code("--browser", "the browser command git runs"),
                code("-b", "the browser command git runs"),
            ],
            GIT_COMMON_OPTS,
        ],
        operands: Operands::Data,
    },
    Sub {
        names: &["bisect"],
        options: &[GIT_COMMON_OPTS],
        operands: Operands::Subcommands {
            subs: &[Sub {
                names: &["run"],
                options: &[],
                operands: Operands::Command { skip: 0 },
            }],
            other: Some(&Sub {
                names: &[],
                options: &[],
                operands: Operands::Data,
            }),
            why: "the bisect step (`run` runs a command)",
            slot_is_data: false,
        },
    },
    Sub {
        names: &["submodule"],
        options: &[GIT_COMMON_OPTS],
        operands: Operands::Subcommands {
            subs: &[Sub {
                names: &["foreach"],
                options: &[],
                operands: Operands::AllCode("a shell command git runs in each submodule"),
            }],
            other: Some(&Sub {
                names: &[],
                options: &[],
                operands: Operands::Data,
            }),
            why: "the submodule step (`foreach` runs a shell command)",
            slot_is_data: false,
        },
    },
];
/// `git log`, `show`, `whatchanged`, `shortlog`: the options that take the next argument as
/// their value, so that a value there may begin with `-` (`git log -S <text>` for `--locked`).
const GIT_LOG_OPTS: &[Opt] = &[
    val("-S"),
    val("-G"),
    val("-n"),
    val("--max-count"),
    val("--skip"),
    val("--grep"),
    val("--author"),
    val("--committer"),
    val("--since"),
    val("--after"),
    val("--until"),
    val("--before"),
];
const GIT_OTHER: Sub = Sub {
    names: &[],
    options: &[GIT_COMMON_OPTS],
    operands: Operands::Data,
};
const TAR_REMOTE: &str = "an archive on another machine when a `:` comes before any `/` (`host:file`), which tar reaches by running a remote shell; write a local name with a `/` before any `:` (`./a:b.tar`)";
const TAR_OPTS: &[Opt] = &[
    code("--to-command", "a command tar runs for each extracted file"),
    code("--use-compress-program", "a compression command tar runs"),
    code("-I", "a compression command tar runs"),
    code(
        "--checkpoint-action",
        "a checkpoint action (`exec=cmd` runs a command)",
    ),
    code(
        "--info-script",
        "a script tar runs at the end of each volume",
    ),
    code(
        "--new-volume-script",
        "a script tar runs at the end of each volume",
    ),
    code("-F", "a script tar runs at the end of each volume"),
    code("--rsh-command", "the remote shell command tar runs"),
    code("--rmt-command", "the remote tape command tar runs"),
    remote("-f", TAR_REMOTE),
    remote("--file", TAR_REMOTE),
    eff(
        "--remove-files",
        Arity::Flag,
        "it deletes the files it archives",
    ),
    eff(
        "--recursive-unlink",
        Arity::Flag,
        "it deletes existing folders before it extracts over them",
    ),
    eff(
        "-h",
        Arity::Flag,
        "it archives the files symbolic links point to, inside the working directory or not",
    ),
    eff(
        "--dereference",
        Arity::Flag,
        "it archives the files symbolic links point to, inside the working directory or not",
    ),
    eff(
        "-P",
        Arity::Flag,
        "it keeps absolute member names, so extracting writes outside the working directory",
    ),
    eff(
        "--absolute-names",
        Arity::Flag,
        "it keeps absolute member names, so extracting writes outside the working directory",
    ),
    eff("-T", Arity::Next, NAMES_FROM_FILE),
    eff("--files-from", Arity::Next, NAMES_FROM_FILE),
    eff("-C", Arity::Next, REDIRECTS),
    eff("--directory", Arity::Next, REDIRECTS),
    val("-X"),
    val("--exclude-from"),
    val("-b"),
    val("-H"),
    val("-K"),
    val("-L"),
    val("-N"),
    val("-V"),
    val("-g"),
    val("--exclude"),
    eff("--transform", Arity::Next, RENAMES),
    eff("--xform", Arity::Next, RENAMES),
    val("--owner"),
    val("--group"),
    val("--mode"),
    val("--mtime"),
];
const RSYNC_DELETES: &str = "it deletes files on the receiving side";
const RSYNC_FOLLOWS: &str =
    "it copies the files symbolic links point to, inside the working directory or not";
const RSYNC_REMOTE: &str = "a remote location (`host:path`, `host::module`, `rsync://host/...`: a `:` before any `/`), which rsync reaches by running ssh or connecting over the network; write a local path with a `/` before any `:` (`./a:b`)";
const RSYNC_OPTS: &[Opt] = &[
    code("-e", "the remote shell command rsync runs"),
    code("--rsh", "the remote shell command rsync runs"),
    code("--rsync-path", "the command rsync runs on the remote side"),
    code(
        "-M",
        "an option for the remote rsync (`--rsync-path` runs a command)",
    ),
    code(
        "--remote-option",
        "an option for the remote rsync (`--rsync-path` runs a command)",
    ),
    eff("--log-file", Arity::Next, WRITES),
    eff("--remove-source-files", Arity::Flag, DELETES),
    eff("--remove-sent-files", Arity::Flag, DELETES),
    eff("--delete", Arity::Flag, RSYNC_DELETES),
    eff("--del", Arity::Flag, RSYNC_DELETES),
    eff("--delete-before", Arity::Flag, RSYNC_DELETES),
    eff("--delete-during", Arity::Flag, RSYNC_DELETES),
    eff("--delete-delay", Arity::Flag, RSYNC_DELETES),
    eff("--delete-after", Arity::Flag, RSYNC_DELETES),
    eff("--delete-excluded", Arity::Flag, RSYNC_DELETES),
    eff("--delete-missing-args", Arity::Flag, RSYNC_DELETES),
    eff("-L", Arity::Flag, RSYNC_FOLLOWS),
    eff("--copy-links", Arity::Flag, RSYNC_FOLLOWS),
    eff("--copy-unsafe-links", Arity::Flag, RSYNC_FOLLOWS),
    eff("-k", Arity::Flag, RSYNC_FOLLOWS),
    eff("--copy-dirlinks", Arity::Flag, RSYNC_FOLLOWS),
    eff(
        "-K",
        Arity::Flag,
        "it writes through symbolic links to folders on the receiving side, which may lead outside the working directory",
    ),
    eff(
        "--keep-dirlinks",
        Arity::Flag,
        "it writes through symbolic links to folders on the receiving side, which may lead outside the working directory",
    ),
    eff("--files-from", Arity::Next, NAMES_FROM_FILE),
    eff(
        "--daemon",
        Arity::Flag,
        "it starts an rsync daemon that listens on the network",
    ),
    val("-f"),
    val("--filter"),
    val("--exclude"),
    val("--include"),
    val("--exclude-from"),
    val("--include-from"),
    val("-T"),
    val("--temp-dir"),
    val("--partial-dir"),
    val("--backup-dir"),
    val("--suffix"),
    val("--chmod"),
    val("--chown"),
    val("-B"),
    val("--block-size"),
    val("--password-file"),
    val("--port"),
    val("--address"),
    val("--sockopts"),
    val("--timeout"),
    val("--bwlimit"),
    val("--compare-dest"),
    val("--copy-dest"),
    val("--link-dest"),
    val("--max-size"),
    val("--min-size"),
    // Values that may hold a `:` (a time, a format), so that they are not read as operands.
    val("--stop-at"),
    val("--stop-after"),
    val("--out-format"),
    val("--log-file-format"),
    val("--info"),
    val("--debug"),
    val("--max-delete"),
    val("--modify-window"),
    val("--iconv"),
    val("--usermap"),
    val("--groupmap"),
    val("--checksum-choice"),
    val("--compress-choice"),
    val("--compress-level"),
    val("--skip-compress"),
    val("--protocol"),
    val("--contimeout"),
    val("--outbuf"),
];
const SORT_OPTS: &[Opt] = &[
    code(
        "--compress-program",
        "a compression command sort runs for its temporary files",
    ),
    eff("-o", Arity::Next, WRITES),
    eff("--output", Arity::Next, WRITES),
    val("-T"),
    val("--temporary-directory"),
    val("-k"),
    val("--key"),
    val("-t"),
    val("--field-separator"),
    val("-S"),
    val("--buffer-size"),
    val("--batch-size"),
    val("--parallel"),
    eff("--files0-from", Arity::Next, NAMES_FROM_FILE),
    val("--random-source"),
    val("--sort"),
];
const RG_OPTS: &[Opt] = &[
    code("--pre", "a command rg runs on every file it searches"),
    code("--hostname-bin", "a command rg runs to learn the host name"),
    val("--pre-glob"),
    val("-e"),
    val("--regexp"),
    val("-f"),
    val("--file"),
    val("-g"),
    val("--glob"),
    val("--iglob"),
    val("-t"),
    val("--type"),
    val("-T"),
    val("--type-not"),
    val("--type-add"),
    val("--type-clear"),
    val("-A"),
    val("--after-context"),
    val("-B"),
    val("--before-context"),
    val("-C"),
    val("--context"),
    val("-m"),
    val("--max-count"),
    val("-M"),
    val("--max-columns"),
    val("-j"),
    val("--threads"),
    val("-E"),
    val("--encoding"),
    val("--engine"),
    val("-r"),
    val("--replace"),
    val("-d"),
    val("--max-depth"),
    val("--max-filesize"),
    val("--path-separator"),
    val("--context-separator"),
    val("--field-match-separator"),
    val("--field-context-separator"),
    val("--sort"),
    val("--sortr"),
    val("--colors"),
    val("--color"),
    val("--ignore-file"),
    val("--dfa-size-limit"),
    val("--regex-size-limit"),
];
const ZIP_OPTS: &[Opt] = &[
    code("-TT", "the command zip runs to test the archive"),
    code(
        "--unzip-command",
        "the command zip runs to test the archive",
    ),
    eff("-O", Arity::Next, WRITES),
    eff("--output-file", Arity::Next, WRITES),
    eff(
        "-m",
        Arity::Flag,
        "it deletes the files it adds to the archive",
    ),
    eff(
        "--move",
        Arity::Flag,
        "it deletes the files it adds to the archive",
    ),
    val("-b"),
    val("-n"),
    val("-t"),
    val("-tt"),
    val("-P"),
    val("-Z"),
];
const TCPDUMP_OPTS: &[Opt] = &[
    code("-z", "a command tcpdump runs on each saved file"),
    eff("-w", Arity::Next, WRITES),
    val("-r"),
    val("-i"),
    val("-c"),
    val("-C"),
    val("-G"),
    val("-W"),
    val("-s"),
    val("-E"),
    val("-F"),
    val("-M"),
    val("-T"),
    val("-y"),
    val("-B"),
    val("-j"),
    val("-Z"),
];
const MAKE_OPTS: &[Opt] = &[
    code("-f", "a makefile (its recipes are shell commands)"),
    code("--file", "a makefile (its recipes are shell commands)"),
    code("--makefile", "a makefile (its recipes are shell commands)"),
    code("-E", "makefile text make evaluates"),
    code("--eval", "makefile text make evaluates"),
    eff("-C", Arity::Next, REDIRECTS),
    eff("--directory", Arity::Next, REDIRECTS),
    val("-I"),
    val("--include-dir"),
    val("-o"),
    val("--old-file"),
    val("--assume-old"),
    val("-W"),
    val("--what-if"),
    val("--new-file"),
    val("--assume-new"),
    att("-j"),
    att("--jobs"),
    att("-l"),
    att("--load-average"),
    att("-O"),
    att("--output-sync"),
    att("--debug"),
];
const CMAKE_OPTS: &[Opt] = &[
    code("-P", "a cmake script"),
    code(
        "-E",
        "a command-mode tool, some of which run commands (`cmake -E env`)",
    ),
    code("-C", "an initial cache script cmake runs"),
    load(
        "-D",
        "a cache variable; some (`CMAKE_PROJECT_INCLUDE`, `CMAKE_C_COMPILER_LAUNCHER`) load code or name programs cmake runs",
    ),
    val("-U"),
    val("-S"),
    val("-B"),
    val("-G"),
    val("-T"),
    val("-A"),
    val("--build"),
    val("--install"),
    val("--preset"),
];

// --- Command wrappers: run their operand as a command --------------------------------------
const TIMEOUT_OPTS: &[Opt] = &[val("-s"), val("--signal"), val("-k"), val("--kill-after")];
const NICE_OPTS: &[Opt] = &[val("-n"), val("--adjustment")];
const IONICE_OPTS: &[Opt] = &[
    val("-c"),
    val("--class"),
    val("-n"),
    val("--classdata"),
    val("-p"),
    val("--pid"),
    val("-P"),
    val("--pgid"),
    val("-u"),
    val("--uid"),
];
const STDBUF_OPTS: &[Opt] = &[
    val("-i"),
    val("--input"),
    val("-o"),
    val("--output"),
    val("-e"),
    val("--error"),
];
const CHRT_OPTS: &[Opt] = &[val("-T"), val("-P"), val("-D")];
const PRLIMIT_OPTS: &[Opt] = &[val("-p"), val("--pid"), val("-o"), val("--output")];
const FLOCK_OPTS: &[Opt] = &[
    code("-c", SHELL_CMD),
    code("--command", SHELL_CMD),
    val("-w"),
    val("--timeout"),
    val("-E"),
    val("--conflict-exit-code"),
];
const TIME_OPTS: &[Opt] = &[
    eff("-o", Arity::Next, WRITES),
    eff("--output", Arity::Next, WRITES),
    val("-f"),
    val("--format"),
];
const STRACE_OPTS: &[Opt] = &[
    load(
        "-o",
        "the trace output; `|cmd` or `!cmd` pipes it to a command",
    ),
    load(
        "--output",
        "the trace output; `|cmd` or `!cmd` pipes it to a command",
    ),
    load(
        "-E",
        "an environment variable for the traced command (`LD_PRELOAD` loads code)",
    ),
    load(
        "--env",
        "an environment variable for the traced command (`LD_PRELOAD` loads code)",
    ),
    val("-e"),
    val("-P"),
    val("-p"),
    val("-s"),
    val("-u"),
    val("-a"),
    val("-b"),
    val("-I"),
    val("-O"),
    val("-S"),
    val("-X"),
    val("-U"),
];
const LTRACE_OPTS: &[Opt] = &[
    eff("-o", Arity::Next, WRITES),
    val("-e"),
    val("-p"),
    val("-s"),
    val("-u"),
    val("-a"),
    val("-l"),
    val("-n"),
    val("-A"),
    val("-D"),
    val("-F"),
    val("-w"),
    val("-x"),
];
const FAKEROOT_OPTS: &[Opt] = &[
    load("-l", "a wrapper library fakeroot preloads"),
    load("--lib", "a wrapper library fakeroot preloads"),
    load("--faked", "the daemon binary fakeroot runs"),
    val("-s"),
    val("-i"),
];
const XVFB_RUN_OPTS: &[Opt] = &[
    val("-n"),
    code(
        "-s",
        "arguments xvfb-run splits into words for the X server it starts",
    ),
    code(
        "--server-args",
        "arguments xvfb-run splits into words for the X server it starts",
    ),
    val("-f"),
    val("-e"),
    val("-p"),
    val("-l"),
];

// --- Launchers and code loaders (found through the GTFOBins catalogue) ---------------------
const CHOOM_OPTS: &[Opt] = &[val("-n"), val("--adjust"), val("-p"), val("--pid")];
const SETARCH_OPTS: &[Opt] = &[val("-B"), val("--32bit")];
const CC_WRAPPER: &str = "a command the compiler runs each of its stages through";
const CC_PLUGIN: &str = "a plugin (a library) the compiler loads";
const CC_PROGRAMS: &str = "a folder the compiler runs its stages (`cc1`, `as`, `ld`) from";
const CC_SPECS: &str = "a spec file, whose rules can run programs";
const CC_PASS: &str = "arguments passed to a compiler stage (`-load x.so`, `-plugin x.so`)";
const CC_OPTS: &[Opt] = &[
    code("-wrapper", CC_WRAPPER),
    load("-fplugin", CC_PLUGIN),
    load("-fpass-plugin", CC_PLUGIN),
    code_att("-B", CC_PROGRAMS),
    code("--prefix", CC_PROGRAMS),
    code("-specs", CC_SPECS),
    code("--specs", CC_SPECS),
    code("-Xclang", CC_PASS),
    code("-Xlinker", CC_PASS),
    code("-Xassembler", CC_PASS),
    code("-Xpreprocessor", CC_PASS),
    val("-o"),
    val("-x"),
    val("-I"),
    val("-L"),
    val("-D"),
    val("-U"),
    val("-l"),
    val("-include"),
    val("-MF"),
];
const LD_OPTS: &[Opt] = &[
    load("-plugin", "a plugin (a library) the linker loads"),
    load("--plugin", "a plugin (a library) the linker loads"),
    val("-o"),
    val("-L"),
    val("-l"),
    val("-T"),
];
const BINUTILS_OPTS: &[Opt] = &[load("--plugin", "a plugin (a library) the tool loads")];
const RUSTC_OPTS: &[Opt] = &[
    code_att(
        "-C",
        "a code generation setting (`linker=` runs a program, `codegen-backend=` loads a library)",
    ),
    code(
        "--codegen",
        "a code generation setting (`linker=` runs a program, `codegen-backend=` loads a library)",
    ),
    code_att(
        "-Z",
        "an unstable setting (`codegen-backend=` loads a library)",
    ),
    code("--test-builder", "the program rustdoc runs to build tests"),
    code("--runtool", "the program rustdoc runs tests through"),
    val("-o"),
    val("-L"),
    val("-l"),
    val("--out-dir"),
    val("--edition"),
    val("--crate-type"),
    val("--crate-name"),
    val("--emit"),
    val("--target"),
    val("--explain"),
];
const OPENSSL_LOAD: &str = "an engine or provider (a library) openssl loads";
const OPENSSL_OPTS: &[Opt] = &[
    load("-engine", OPENSSL_LOAD),
    load("-keyengine", OPENSSL_LOAD),
    load("-provider", OPENSSL_LOAD),
    load("-provider-path", OPENSSL_LOAD),
    load("-pre", "an engine command (`SO_PATH:x.so` loads a library)"),
    load(
        "-post",
        "an engine command (`SO_PATH:x.so` loads a library)",
    ),
];
const SSH_KEYGEN_OPTS: &[Opt] = &[load("-D", "a PKCS#11 library ssh-keygen loads")];
const APT_OPTS: &[Opt] = &[
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
const DPKG_SCRIPTS: &str = "a package whose maintainer scripts dpkg runs";
const DPKG_OPTS: &[Opt] = &[
    code("-i", DPKG_SCRIPTS),
    code("--install", DPKG_SCRIPTS),
    code("--unpack", DPKG_SCRIPTS),
    code("-r", DPKG_SCRIPTS),
    code("--remove", DPKG_SCRIPTS),
    code("-P", DPKG_SCRIPTS),
    code("--purge", DPKG_SCRIPTS),
    code("--configure", DPKG_SCRIPTS),
];

/// npm commands that only read (`npm ls`, `npm view`): every other one may run a package's
/// or the workspace's scripts (`exec`, `run`, `test`, `install`, ...).
pub fn is_npm_read_only(operand: &str) -> bool {
    matches!(
        operand,
        "ls" | "list" | "la" | "ll" | "view" | "info" | "show" | "help" | "search" | "outdated"
    )
}

/// Binaries that read further arguments from a response file named `@file` (binutils, gcc,
/// clang, rustc, javac, 7z, ...): the arguments in it, and the file itself, are invisible to
/// ExecTool's layer 4, so an `@` argument is refused for them, as `tar -T` is. A name matches
/// by any of its forms (`gcc-12`), also behind a cross-compiler prefix
/// (`x86_64-linux-gnu-gcc`); a trailing `*` matches as a prefix (`llvm-*`).
pub const RESPONSE_FILE_BINARIES: &[&str] = &[
    "addr2line",
    "ar",
    "as",
    "c++filt",
    "dlltool",
    "dwp",
    "elfedit",
    "gprof",
    "ld",
    "ld.bfd",
    "ld.gold",
    "gold",
    "nm",
    "objcopy",
    "objdump",
    "ranlib",
    "readelf",
    "size",
    "strings",
    "strip",
    "windres",
    "gcc",
    "g++",
    "cc",
    "c++",
    "cpp",
    "gfortran",
    "gccgo",
    "gnat",
    "collect2",
    "lto-wrapper",
    "clang",
    "clang++",
    "clang-cl",
    "clang-cpp",
    "lld",
    "ld.lld",
    "ld64.lld",
    "lld-link",
    "wasm-ld",
    "llvm-*",
    "rustc",
    "rustdoc",
    "javac",
    "java",
    "javadoc",
    "javap",
    "jar",
    "jlink",
    "jpackage",
    "jdeps",
    "kotlinc",
    "scalac",
    "7z",
    "7za",
    "7zr",
    "csc",
    "mcs",
    "swiftc",
    "nvcc",
    "tcc",
    "icc",
    "icx",
];

/// Whether `binary` reads response files ([`RESPONSE_FILE_BINARIES`]).
pub fn reads_response_files(binary: &str) -> bool {
    let forms = crate::policy::name_forms(binary);
    forms.iter().any(|form| {
        RESPONSE_FILE_BINARIES.iter().any(|name| {
            let matches = |text: &str| match name.strip_suffix('*') {
                Some(prefix) => text.starts_with(prefix),
                None => text == *name,
            };
            // `x86_64-linux-gnu-gcc`, `arm-none-eabi-objdump`: the tool after a prefix.
            matches(form)
                || form
                    .char_indices()
                    .filter(|&(_, c)| c == '-')
                    .any(|(i, _)| matches(&form[i + 1..]))
        })
    })
}

/// The code-entry table: every binary that runs code through an option or an
/// operand, plus a few whose options reach outside the working directory where ExecTool's
/// layer 4 cannot see it (`grep -R`). A binary that is not here (`jq`, `cp`: none of them can
/// run a command) has no code-entry site, and neither has one of the getopt tools listed at
/// the end (`wc`, `cat`, `ls`, `head`, ...) only for where a literal `--` ends their options.
///
/// Deliberately without sites: `jq` (its filters cannot run commands), `ed` (its commands come
/// from stdin, which the kernel closes), `ls` (`ls -RL` would list names through a symbolic
/// link, but never a file's content, and `ls -<flags>` with a free slot must keep working),
/// `cp`, `du`, `wc` (ExecTool leaves their symlink and `--files0-from` options alone: see
/// docs/DECISIONS.md). `grep` is here only for `-R`: `-f` reads patterns, not code. Denied
/// binaries (`env`, `xargs`, `nohup`, shells, `busybox`) need no entry: they never run.
pub const CODE_ENTRY: &[Entry] = &[
    Entry {
        names: &["python*", "pypy*", "ipython"],
        options: &[PYTHON_OPTS],
        operands: Operands::Program(SCRIPT),
        stop_after_code: true,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        // tsx and ts-node run TypeScript through node and take its code options.
        names: &["node", "nodejs", "tsx", "ts-node", "ts-node-esm"],
        options: &[NODE_OPTS],
        operands: Operands::Program(SCRIPT),
        complete: false,
        attached_values: false,
        dashdash: false,
        ..BASE
    },
    Entry {
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
    },
    Entry {
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
    },
    Entry {
        names: &["npx", "bunx", "pnpx", "uvx"],
        options: &[PACKAGE_RUNNER_OPTS],
        operands: Operands::Program(PACKAGE_RUNNER),
        complete: false,
        dashdash: false,
        ..BASE
    },
    Entry {
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
    },
    Entry {
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
    },
    Entry {
        names: &["perl"],
        options: &[PERL_OPTS],
        operands: Operands::Program(SCRIPT),
        ..BASE
    },
    Entry {
        names: &["ruby", "erb"],
        options: &[RUBY_OPTS],
        operands: Operands::Program(SCRIPT),
        ..BASE
    },
    Entry {
        names: &["php"],
        options: &[PHP_OPTS],
        operands: Operands::Program(SCRIPT),
        ..BASE
    },
    Entry {
        names: &["lua", "luajit"],
        options: &[LUA_OPTS],
        operands: Operands::Program(SCRIPT),
        ..BASE
    },
    Entry {
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
    },
    Entry {
        names: &["sed", "gsed"],
        options: &[SED_OPTS],
        operands: Operands::Program(SED_SCRIPT),
        permute: true,
        exec_program_ok: Some(is_sed_print_script),
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["rscript"],
        options: &[R_OPTS],
        operands: Operands::Program(SCRIPT),
        ..BASE
    },
    Entry {
        names: &["r"],
        options: &[R_OPTS],
        operands: Operands::AllCode("an R command (`R CMD ...`) or a script (littler `r`)"),
        ..BASE
    },
    Entry {
        names: &["tclsh", "wish", "jimsh"],
        options: &[TCL_OPTS],
        operands: Operands::Program(SCRIPT),
        long_only: true,
        dashdash: false,
        ..BASE
    },
    Entry {
        names: &["expect"],
        options: &[EXPECT_OPTS],
        operands: Operands::Program(SCRIPT),
        ..BASE
    },
    Entry {
        names: &["osascript"],
        options: &[OSASCRIPT_OPTS],
        operands: Operands::Program(SCRIPT),
        dashdash: false,
        ..BASE
    },
    Entry {
        names: &["julia"],
        options: &[JULIA_OPTS],
        operands: Operands::Program(SCRIPT),
        complete: false,
        dashdash: false,
        ..BASE
    },
    Entry {
        names: &["java"],
        options: &[JAVA_OPTS],
        operands: Operands::Program(JAVA_PROGRAM),
        long_only: true,
        complete: false,
        dashdash: false,
        ..BASE
    },
    Entry {
        names: &["dc"],
        options: &[DC_OPTS],
        operands: Operands::AllCode("a file of dc code; its `!` command runs a shell command"),
        dashdash: false,
        ..BASE
    },
    Entry {
        names: &["m4"],
        options: &[M4_OPTS],
        operands: Operands::AllCode("m4 input, whose `syscmd` runs shell commands"),
        permute: true,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["gnuplot"],
        options: &[GNUPLOT_OPTS],
        operands: Operands::AllCode("a gnuplot script (`system` and `!` run shell commands)"),
        dashdash: false,
        ..BASE
    },
    Entry {
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
    },
    Entry {
        names: &["psql"],
        options: &[PSQL_OPTS],
        permute: true,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["mysql", "mariadb"],
        options: &[MYSQL_OPTS],
        permute: true,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["vim", "vi", "view", "ex", "vimdiff", "gvim", "rvim", "evim"],
        options: &[VIM_OPTS],
        plus_code: true,
        permute: true,
        ..BASE
    },
    Entry {
        names: &["nvim"],
        options: &[NVIM_OPTS, VIM_OPTS],
        plus_code: true,
        permute: true,
        ..BASE
    },
    Entry {
        names: &["nano", "rnano"],
        options: &[NANO_OPTS],
        permute: true,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["emacs"],
        options: &[EMACS_OPTS],
        permute: true,
        dashdash: false,
        ..BASE
    },
    Entry {
        names: &["less"],
        options: &[LESS_OPTS],
        plus_code: true,
        permute: true,
        ..BASE
    },
    Entry {
        names: &["man"],
        options: &[MAN_OPTS],
        permute: true,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["gdb"],
        options: &[GDB_OPTS],
        long_only: true,
        permute: true,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["lldb"],
        options: &[LLDB_OPTS],
        permute: true,
        ..BASE
    },
    Entry {
        names: &["grep", "egrep", "fgrep", "rgrep", "ggrep"],
        options: &[GREP_OPTS],
        permute: true,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["find", "gfind", "bfs"],
        options: &[FIND_OPTS],
        long_only: true,
        permute: true,
        dashdash: false,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["git"],
        // The subcommands' remote-command options are judged before the subcommand too
        // (`git --upload-pack=x fetch`): git refuses them there, and so does the policy.
        options: &[GIT_GLOBAL_OPTS, GIT_COMMON_OPTS],
        operands: Operands::Subcommands {
            subs: GIT_SUBS,
            other: Some(&GIT_OTHER),
            why: "the git subcommand (an alias can be `!cmd`)",
            slot_is_data: false,
        },
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["tar", "gtar", "bsdtar"],
        options: &[TAR_OPTS],
        permute: true,
        old_bundle: true,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["rsync"],
        options: &[RSYNC_OPTS],
        permute: true,
        remote_operands: Some(RSYNC_REMOTE),
        ..BASE
    },
    Entry {
        names: &["sort", "gsort"],
        options: &[SORT_OPTS],
        permute: true,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["rg"],
        options: &[RG_OPTS],
        permute: true,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["zip"],
        options: &[ZIP_OPTS],
        permute: true,
        dashdash: false,
        ..BASE
    },
    Entry {
        names: &["tcpdump"],
        options: &[TCPDUMP_OPTS],
        permute: true,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["make", "gmake"],
        options: &[MAKE_OPTS],
        exec_program_ok: Some(is_not_assignment),
        operands: Operands::AllCode(
            "a make operand, which may be a variable assignment (`SHELL=...`) that changes the commands make runs",
        ),
        permute: true,
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["cmake"],
        options: &[CMAKE_OPTS],
        permute: true,
        dashdash: false,
        ..BASE
    },
    // Wrappers: the command they run is checked in its turn.
    Entry {
        names: &["timeout", "gtimeout"],
        options: &[TIMEOUT_OPTS],
        operands: Operands::Command { skip: 1 },
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["nice"],
        options: &[NICE_OPTS],
        operands: Operands::Command { skip: 0 },
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["ionice"],
        options: &[IONICE_OPTS],
        operands: Operands::Command { skip: 0 },
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["stdbuf"],
        options: &[STDBUF_OPTS],
        operands: Operands::Command { skip: 0 },
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["taskset", "chrt"],
        options: &[CHRT_OPTS],
        operands: Operands::Command { skip: 1 },
        ..BASE
    },
    Entry {
        names: &["prlimit"],
        options: &[PRLIMIT_OPTS],
        operands: Operands::Command { skip: 0 },
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["flock"],
        options: &[FLOCK_OPTS],
        operands: Operands::Command { skip: 1 },
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["time"],
        options: &[TIME_OPTS],
        operands: Operands::Command { skip: 0 },
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["strace"],
        options: &[STRACE_OPTS],
        operands: Operands::Command { skip: 0 },
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["ltrace"],
        options: &[LTRACE_OPTS],
        operands: Operands::Command { skip: 0 },
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["fakeroot"],
        options: &[FAKEROOT_OPTS],
        operands: Operands::Command { skip: 0 },
        ..BASE
    },
    Entry {
        names: &["xvfb-run"],
        options: &[XVFB_RUN_OPTS],
        operands: Operands::Command { skip: 0 },
        ..BASE
    },
    Entry {
        names: &[
            "unbuffer",
            "catchsegv",
            "eatmydata",
            "nocache",
            "torsocks",
            "proxychains",
            "proxychains4",
            "ifne",
            "chronic",
            "lckdo",
        ],
        operands: Operands::Command { skip: 0 },
        ..BASE
    },
    Entry {
        names: &["valgrind"],
        options: &[VALGRIND_OPTS],
        operands: Operands::Command { skip: 0 },
        long_only: true,
        ..BASE
    },
    Entry {
        names: &["sshpass"],
        options: &[&[val("-p"), val("-f"), val("-d"), val("-P")]],
        operands: Operands::Command { skip: 0 },
        hyphen_values: true,
        ..BASE
    },
    Entry {
        names: &["dbus-run-session"],
        options: &[&[
            val("--config-file"),
            code(
                "--dbus-daemon",
                "the bus daemon program dbus-run-session runs",
            ),
        ]],
        operands: Operands::Command { skip: 0 },
        ..BASE
    },
    Entry {
        names: &["choom"],
        options: &[CHOOM_OPTS],
        operands: Operands::Command { skip: 0 },
        ..BASE
    },
    Entry {
        // Sandboxes run the command they are given: it is checked in its turn. Their options
        // are many; a token after an unknown one is judged both as its value and as the command.
        names: &["firejail", "bwrap"],
        options: &[&[
            val("--bind"),
            val("--ro-bind"),
            val("--dev-bind"),
            val("--chdir"),
            val("--setenv"),
            val("--unsetenv"),
            val("--tmpfs"),
            val("--symlink"),
            val("--proc"),
            val("--dev"),
            val("--uid"),
            val("--gid"),
            val("--hostname"),
            val("--profile"),
        ]],
        operands: Operands::Command { skip: 0 },
        complete: false,
        ..BASE
    },
    Entry {
        // `faketime TIMESTAMP CMD ARGS`.
        names: &["faketime"],
        options: &[&[val("-m"), val("-f"), val("-p")]],
        operands: Operands::Command { skip: 1 },
        ..BASE
    },
    Entry {
        // `entr [-s] CMD ARGS`: with `-s` the command is run through a shell.
        names: &["entr"],
        operands: Operands::Command { skip: 0 },
        ..BASE
    },
    Entry {
        names: &["fd", "fdfind"],
        options: &[FD_OPTS],
        permute: true,
        complete: false,
        dashdash: false,
        ..BASE
    },
    Entry {
        // Benchmarks and runners whose operands are command lines run through a shell.
        names: &["hyperfine"],
        options: &[HYPERFINE_OPTS],
        operands: Operands::AllCode("a command line hyperfine runs through a shell"),
        permute: true,
        complete: false,
        dashdash: false,
        ..BASE
    },
    Entry {
        names: &["watchexec"],
        options: &[WATCHEXEC_OPTS],
        operands: Operands::AllCode("the command line watchexec runs through a shell"),
        complete: false,
        dashdash: false,
        ..BASE
    },
    Entry {
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
    },
    Entry {
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
    },
    Entry {
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
    },
    Entry {
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
    },
    Entry {
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
    },
    Entry {
        // Programs whose arguments the policy reads only to know where options end (the
        // first literal `--`: GNU getopt and its kin): none of them runs code through an
        // argument, and none is read for a site. A template that gives `--` as an option's
        // value (`cut -d --`) is not one these programs accept anyway.
        names: &[
            "cat",
            "wc",
            "head",
            "tail",
            "ls",
            "cut",
            "uniq",
            "tr",
            "nl",
            "tac",
            "fold",
            "fmt",
            "expand",
            "unexpand",
            "paste",
            "join",
            "comm",
            "diff",
            "cmp",
            "stat",
            "file",
            "du",
            "df",
            "basename",
            "dirname",
            "realpath",
            "readlink",
            "printf",
            "seq",
            "od",
            "base64",
            "md5sum",
            "sha1sum",
            "sha256sum",
            "sha512sum",
            "b2sum",
            "cksum",
            "column",
            "tree",
        ],
        ..BASE
    },
    Entry {
        // `setarch [ARCH] [options] [PROGRAM]`: the architecture may be left out, so any
        // operand may be the program.
        names: &[
            "setarch", "linux32", "linux64", "i386", "x86_64", "uname26", "arm", "aarch64", "ppc",
            "ppc64", "s390", "s390x", "sparc", "sparc64", "mips", "mips64",
        ],
        options: &[SETARCH_OPTS],
        operands: Operands::Command { skip: 0 },
        complete: false,
        ..BASE
    },
    Entry {
        // `perf stat|record|trace ... PROGRAM`: the subcommand, then the program it runs.
        names: &["perf"],
        operands: Operands::Command { skip: 1 },
        complete: false,
        ..BASE
    },
    Entry {
        names: &[
            "gcc",
            "g++",
            "cc",
            "c++",
            "cpp",
            "gfortran",
            "gccgo",
            "clang",
            "clang++",
            "clang-cl",
            "clang-cpp",
            "tcc",
            "icc",
            "icx",
        ],
        options: &[CC_OPTS],
        long_only: true,
        complete: false,
        permute: true,
        ..BASE
    },
    Entry {
        names: &[
            "ld", "ld.bfd", "ld.gold", "gold", "ld.lld", "lld", "ld64.lld", "wasm-ld",
        ],
        options: &[LD_OPTS],
        long_only: true,
        complete: false,
        permute: true,
        ..BASE
    },
    Entry {
        names: &["nm", "ar", "ranlib"],
        options: &[BINUTILS_OPTS],
        complete: false,
        permute: true,
        ..BASE
    },
    Entry {
        names: &["rustc", "rustdoc"],
        options: &[RUSTC_OPTS],
        complete: false,
        permute: true,
        ..BASE
    },
    Entry {
        names: &["openssl"],
        options: &[OPENSSL_OPTS],
        operands: Operands::Subcommands {
            subs: &[Sub {
                names: &["engine"],
                options: &[OPENSSL_OPTS],
                operands: Operands::AllCode("an engine (a library openssl loads)"),
            }],
            other: Some(&Sub {
                names: &[],
                options: &[OPENSSL_OPTS],
                operands: Operands::Data,
            }),
            why: "the openssl command",
            slot_is_data: true,
        },
        long_only: true,
        complete: false,
        permute: true,
        ..BASE
    },
    Entry {
        names: &["ssh-keygen"],
        options: &[SSH_KEYGEN_OPTS],
        complete: false,
        permute: true,
        ..BASE
    },
    Entry {
        names: &["apt-get", "apt", "apt-cache", "apt-config", "apt-mark"],
        options: &[APT_OPTS],
        complete: false,
        permute: true,
        ..BASE
    },
    Entry {
        names: &["dpkg"],
        options: &[DPKG_OPTS],
        complete: false,
        permute: true,
        ..BASE
    },
];

const VALGRIND_OPTS: &[Opt] = &[
    code("--db-command", "the debugger command valgrind runs"),
    eff("--log-file", Arity::Attached, WRITES),
    eff("--xml-file", Arity::Attached, WRITES),
];
const FD_OPTS: &[Opt] = &[
    cmd("-x", "the command fd runs for each file"),
    cmd("--exec", "the command fd runs for each file"),
    cmd("-X", "the command fd runs with all the files"),
    cmd("--exec-batch", "the command fd runs with all the files"),
    val("-e"),
    val("--extension"),
    val("-t"),
    val("--type"),
    val("-d"),
    val("--max-depth"),
    val("--min-depth"),
    val("--exact-depth"),
    val("-E"),
    val("--exclude"),
    val("-S"),
    val("--size"),
    val("--changed-within"),
    val("--changed-before"),
    val("-o"),
    val("--owner"),
    val("--base-directory"),
    val("--search-path"),
    val("-j"),
    val("--threads"),
    val("--max-results"),
    val("--ignore-file"),
    val("-c"),
    val("--color"),
];
const HYPERFINE_OPTS: &[Opt] = &[
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
const WATCHEXEC_OPTS: &[Opt] = &[
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

impl Entry {
    /// Whether the policy reads this binary's arguments only to know where its options end
    /// (a literal `--`): no option or operand of it is a site.
    pub(crate) fn reads_only_dashdash(&self) -> bool {
        self.options.is_empty()
            && matches!(self.operands, Operands::Data)
            && !self.plus_code
            && !self.old_bundle
            && self.remote_operands.is_none()
    }
}

/// The code-entry entry for a binary, matched by its name forms (most specific first).
pub(crate) fn entry_for(forms: &[String]) -> Option<&'static Entry> {
    forms.iter().find_map(|form| {
        CODE_ENTRY.iter().find(|entry| {
            entry.names.iter().any(|name| match name.strip_suffix('*') {
                Some(prefix) => form.starts_with(prefix),
                None => name == form,
            })
        })
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_deny_entry_and_equivalent_has_a_group() {
        for entry in DENIED_BINARIES {
            assert!(deny_group(entry).is_some(), "{entry} has no group");
        }
        for (name, stands_for) in DENIED_EQUIVALENTS {
            assert!(
                deny_group(stands_for).is_some(),
                "{name} stands for {stands_for}"
            );
        }
    }

    #[test]
    fn no_binary_has_two_entries() {
        // The first entry that names a binary wins: a second one would be dead rules.
        let mut seen = std::collections::BTreeSet::new();
        for entry in CODE_ENTRY {
            for name in entry.names {
                assert!(seen.insert(*name), "{name} has two entries");
            }
        }
    }

    use super::*;

    fn all_entry_options(entry: &Entry) -> Vec<&'static Opt> {
        fn subs_of(operands: &Operands) -> Vec<&'static Sub> {
            match *operands {
                Operands::Subcommands { subs, other, .. } => {
                    let mut all: Vec<&'static Sub> = subs.iter().chain(other).collect();
                    for sub in all.clone() {
                        all.extend(subs_of(&sub.operands));
                    }
                    all
                }
                _ => Vec::new(),
            }
        }
        let mut opts: Vec<&'static Opt> = entry.options.iter().flat_map(|l| l.iter()).collect();
        for sub in subs_of(&entry.operands) {
            opts.extend(sub.options.iter().flat_map(|l| l.iter()));
        }
        opts
    }

    #[test]
    fn entry_names_are_lowercase_and_not_denied() {
        // Binaries are matched by their lowercase name forms.
        for entry in CODE_ENTRY {
            for name in entry.names {
                assert_eq!(*name, name.to_ascii_lowercase(), "{name}");
                assert!(
                    !crate::policy::is_denied(name, &[]),
                    "{name} is denied anyway"
                );
            }
        }
    }

    #[test]
    fn every_option_is_spelled_as_an_option_and_says_why() {
        for entry in CODE_ENTRY {
            for opt in all_entry_options(entry) {
                assert!(opt.name.starts_with('-') && opt.name.len() >= 2, "{opt:?}");
                if opt.role != Role::Plain {
                    assert!(!opt.why.is_empty(), "{opt:?} must say why");
                }
            }
        }
    }

    #[test]
    fn no_option_is_listed_twice_in_one_list() {
        // The first listing wins a lookup, so a repeat would silently shadow the second.
        for entry in CODE_ENTRY {
            for list in entry.options {
                for (i, a) in list.iter().enumerate() {
                    assert!(
                        list[i + 1..].iter().all(|b| b.name != a.name),
                        "{} listed twice for {:?}",
                        a.name,
                        entry.names
                    );
                }
            }
        }
    }

    #[test]
    fn every_denied_equivalent_names_a_listed_entry() {
        for (name, stands_for) in DENIED_EQUIVALENTS {
            assert!(
                DENIED_BINARIES.contains(stands_for),
                "{name} → {stands_for}"
            );
            assert!(!DENIED_BINARIES.contains(name), "{name} is listed already");
        }
    }

    #[test]
    fn sed_print_scripts() {
        for ok in ["1p", "12p", "1,5p", "10,200p"] {
            assert!(is_sed_print_script(ok), "{ok}");
        }
        for bad in [
            "p", "1", "1,p", ",5p", "1,5", "1e/x", "1w/x", "1,2,3p", "1pp", "$p", "1~2p",
        ] {
            assert!(!is_sed_print_script(bad), "{bad}");
        }
    }

    #[test]
    fn binaries_find_their_entry_by_any_name_form() {
        let entry = |b: &str| entry_for(&crate::policy::name_forms(b)).map(|e| e.names[0]);
        assert_eq!(entry("/usr/bin/python3.12"), Some("python*"));
        assert_eq!(entry("pypy3"), Some("python*"));
        assert_eq!(entry("Rscript"), Some("rscript"));
        assert_eq!(entry("luajit-2.1"), Some("lua"));
        assert_eq!(entry("gawk"), Some("awk"));
        assert_eq!(entry("grep"), Some("grep"));
        assert_eq!(entry("egrep"), Some("grep"));
        assert_eq!(entry("jq"), None);
    }
}
