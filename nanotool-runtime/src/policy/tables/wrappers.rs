//! The code-entry rows of wrappers that run the command they are given (timeout, nice, strace, firejail...): the command is checked in its turn; each entry beside its options.

use super::*;

// Wrappers: the command they run is checked in its turn.
pub(super) const TIMEOUT: Entry = Entry {
    names: &["timeout", "gtimeout"],
    options: &[TIMEOUT_OPTS],
    operands: Operands::Command { skip: 1 },
    hyphen_values: true,
    ..BASE
};

// --- Command wrappers: run their operand as a command --------------------------------------
pub(super) const TIMEOUT_OPTS: &[Opt] =
    &[val("-s"), val("--signal"), val("-k"), val("--kill-after")];

pub(super) const NICE: Entry = Entry {
    names: &["nice"],
    options: &[NICE_OPTS],
    operands: Operands::Command { skip: 0 },
    hyphen_values: true,
    ..BASE
};

pub(super) const NICE_OPTS: &[Opt] = &[val("-n"), val("--adjustment")];

pub(super) const IONICE: Entry = Entry {
    names: &["ionice"],
    options: &[IONICE_OPTS],
    operands: Operands::Command { skip: 0 },
    hyphen_values: true,
    ..BASE
};

pub(super) const IONICE_OPTS: &[Opt] = &[
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

pub(super) const STDBUF: Entry = Entry {
    names: &["stdbuf"],
    options: &[STDBUF_OPTS],
    operands: Operands::Command { skip: 0 },
    hyphen_values: true,
    ..BASE
};

pub(super) const STDBUF_OPTS: &[Opt] = &[
    val("-i"),
    val("--input"),
    val("-o"),
    val("--output"),
    val("-e"),
    val("--error"),
];

pub(super) const TASKSET: Entry = Entry {
    names: &["taskset", "chrt"],
    options: &[CHRT_OPTS],
    operands: Operands::Command { skip: 1 },
    ..BASE
};

pub(super) const CHRT_OPTS: &[Opt] = &[val("-T"), val("-P"), val("-D")];

pub(super) const PRLIMIT: Entry = Entry {
    names: &["prlimit"],
    options: &[PRLIMIT_OPTS],
    operands: Operands::Command { skip: 0 },
    hyphen_values: true,
    ..BASE
};

pub(super) const PRLIMIT_OPTS: &[Opt] = &[val("-p"), val("--pid"), val("-o"), val("--output")];

pub(super) const FLOCK: Entry = Entry {
    names: &["flock"],
    options: &[FLOCK_OPTS],
    operands: Operands::Command { skip: 1 },
    hyphen_values: true,
    ..BASE
};

pub(super) const FLOCK_OPTS: &[Opt] = &[
    code("-c", SHELL_CMD),
    code("--command", SHELL_CMD),
    val("-w"),
    val("--timeout"),
    val("-E"),
    val("--conflict-exit-code"),
];

pub(super) const TIME: Entry = Entry {
    names: &["time"],
    options: &[TIME_OPTS],
    operands: Operands::Command { skip: 0 },
    hyphen_values: true,
    ..BASE
};

pub(super) const TIME_OPTS: &[Opt] = &[
    eff("-o", Arity::Next, WRITES),
    eff("--output", Arity::Next, WRITES),
    val("-f"),
    val("--format"),
];

pub(super) const STRACE: Entry = Entry {
    names: &["strace"],
    options: &[STRACE_OPTS],
    operands: Operands::Command { skip: 0 },
    hyphen_values: true,
    ..BASE
};

pub(super) const STRACE_OPTS: &[Opt] = &[
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

pub(super) const LTRACE: Entry = Entry {
    names: &["ltrace"],
    options: &[LTRACE_OPTS],
    operands: Operands::Command { skip: 0 },
    hyphen_values: true,
    ..BASE
};

pub(super) const LTRACE_OPTS: &[Opt] = &[
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

pub(super) const FAKEROOT: Entry = Entry {
    names: &["fakeroot"],
    options: &[FAKEROOT_OPTS],
    operands: Operands::Command { skip: 0 },
    ..BASE
};

pub(super) const FAKEROOT_OPTS: &[Opt] = &[
    load("-l", "a wrapper library fakeroot preloads"),
    load("--lib", "a wrapper library fakeroot preloads"),
    load("--faked", "the daemon binary fakeroot runs"),
    val("-s"),
    val("-i"),
];

pub(super) const XVFB_RUN: Entry = Entry {
    names: &["xvfb-run"],
    options: &[XVFB_RUN_OPTS],
    operands: Operands::Command { skip: 0 },
    ..BASE
};

pub(super) const XVFB_RUN_OPTS: &[Opt] = &[
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

pub(super) const UNBUFFER: Entry = Entry {
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
};

pub(super) const VALGRIND: Entry = Entry {
    names: &["valgrind"],
    options: &[VALGRIND_OPTS],
    operands: Operands::Command { skip: 0 },
    long_only: true,
    ..BASE
};

pub(super) const VALGRIND_OPTS: &[Opt] = &[
    code("--db-command", "the debugger command valgrind runs"),
    eff("--log-file", Arity::Attached, WRITES),
    eff("--xml-file", Arity::Attached, WRITES),
];

pub(super) const SSHPASS: Entry = Entry {
    names: &["sshpass"],
    options: &[&[val("-p"), val("-f"), val("-d"), val("-P")]],
    operands: Operands::Command { skip: 0 },
    hyphen_values: true,
    ..BASE
};

pub(super) const DBUS_RUN_SESSION: Entry = Entry {
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
};

pub(super) const CHOOM: Entry = Entry {
    names: &["choom"],
    options: &[CHOOM_OPTS],
    operands: Operands::Command { skip: 0 },
    ..BASE
};

// --- Launchers and code loaders (found through the GTFOBins catalogue) ---------------------
pub(super) const CHOOM_OPTS: &[Opt] = &[val("-n"), val("--adjust"), val("-p"), val("--pid")];

pub(super) const FIREJAIL: Entry = Entry {
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
};

pub(super) const FAKETIME: Entry = Entry {
    // `faketime TIMESTAMP CMD ARGS`.
    names: &["faketime"],
    options: &[&[val("-m"), val("-f"), val("-p")]],
    operands: Operands::Command { skip: 1 },
    ..BASE
};

pub(super) const ENTR: Entry = Entry {
    // `entr [-s] CMD ARGS`: with `-s` the command is run through a shell.
    names: &["entr"],
    operands: Operands::Command { skip: 0 },
    ..BASE
};

pub(super) const SETARCH: Entry = Entry {
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
};

pub(super) const SETARCH_OPTS: &[Opt] = &[val("-B"), val("--32bit")];

pub(super) const PERF: Entry = Entry {
    // `perf stat|record|trace ... PROGRAM`: the subcommand, then the program it runs.
    names: &["perf"],
    operands: Operands::Command { skip: 1 },
    complete: false,
    ..BASE
};

/// What the entries of this file must and must not match, run through the real policy by
/// `examples`' test: a template whose free slot stands where code goes (`Match`, with the
/// site), a template that passes with every slot free (`NotMatch`), and free-text commands
/// ExecTool refuses (`ExecMatch`) or lets through (`ExecNotMatch`).
#[cfg(test)]
pub(super) const EXAMPLES: &[super::examples::Example] = {
    use super::examples::*;
    &[
        // TIMEOUT
        Match("timeout 5 <cmd>", "cmd", At(Command)),
        Match("timeout -s KILL 5 python3 -c <x>", "x", ValueOf("-c")),
        NotMatch("timeout 5 grep -rn <pattern> ."),
        NotMatch("timeout <secs> make test"),
        ExecMatch("timeout 5 grep x f"),
        // NICE
        NotMatch("nice -n <n> make test"),
        ExecMatch("nice -n 5 git log"),
        // IONICE
        Match(
            "ionice -c 3 nice -n 19 python3 <script>",
            "script",
            At(Program),
        ),
        // STDBUF
        Match("stdbuf -oL <cmd>", "cmd", At(Command)),
        // TASKSET
        Match("taskset 1 <cmd>", "cmd", At(Command)),
        // PRLIMIT
        Match("prlimit <cmd>", "cmd", At(Command)),
        // FLOCK
        Match("flock lock -c <x>", "x", ValueOf("-c")),
        // TIME
        Match("time -o out <cmd>", "cmd", At(Command)),
        // STRACE
        Match("strace -o <x> ls", "x", ValueOf("-o")),
        Match("strace -f <cmd>", "cmd", At(Command)),
        // LTRACE
        Match("ltrace <cmd>", "cmd", At(Command)),
        ExecMatch("ltrace -o out ls"),
        // FAKEROOT
        Match("fakeroot -l <lib> make", "lib", ValueOf("-l")),
        // XVFB_RUN
        Match("xvfb-run -s <args> ./app", "args", ValueOf("-s")),
        // UNBUFFER
        Match("chronic python3 <script>", "script", At(Program)),
        // VALGRIND
        Match(
            "valgrind --db-command=<cmd> ./app",
            "cmd",
            ValueOf("--db-command"),
        ),
        Match("valgrind --leak-check=full <cmd>", "cmd", At(Command)),
        NotMatch("valgrind --leak-check=full ./prog <arg>"),
        // SSHPASS
        Match("sshpass -p x <cmd>", "cmd", At(Command)),
        // DBUS_RUN_SESSION
        Match("dbus-run-session -- <cmd>", "cmd", At(Command)),
        // CHOOM
        Match("choom -n 5 <cmd>", "cmd", At(Command)),
        // FIREJAIL
        Match("firejail --private <cmd>", "cmd", At(Command)),
        // FAKETIME
        Match("faketime 2020-01-01 <cmd>", "cmd", At(Command)),
        // ENTR
        Match("entr -s <cmd>", "cmd", At(Command)),
        // SETARCH
        Match("linux32 <cmd>", "cmd", At(Command)),
        // PERF
        Match("perf stat <cmd>", "cmd", At(Command)),
        NotMatch("perf stat ls <dir>"),
    ]
};
