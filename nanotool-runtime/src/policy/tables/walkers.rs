//! The code-entry rows of programs that walk folders or run a command for what they find (grep, find, fd, tar, rsync, sort, rg, zip, tcpdump, make, cmake); each entry beside its options.

use super::*;

pub(super) const GREP: Entry = Entry {
    names: &["grep", "egrep", "fgrep", "rgrep", "ggrep"],
    options: &[GREP_OPTS],
    permute: true,
    hyphen_values: true,
    ..BASE
};

pub(super) const FOLLOWS: &str = "it follows symbolic links as it walks folders, so a link inside the working directory takes it outside, where free text cannot confine it";

// --- grep: no code entry, but `-R` walks through symbolic links --------------------------------
pub(super) const GREP_OPTS: &[Opt] = &[
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

pub(super) const FIND: Entry = Entry {
    names: &["find", "gfind", "bfs"],
    options: &[FIND_OPTS],
    long_only: true,
    permute: true,
    dashdash: false,
    hyphen_values: true,
    ..BASE
};

// --- Launchers: find, git, tar, rsync, sort, rg, zip, tcpdump, make, cmake -------------------
pub(super) const FIND_OPTS: &[Opt] = &[
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

pub(super) const TAR: Entry = Entry {
    names: &["tar", "gtar", "bsdtar"],
    options: &[TAR_OPTS],
    permute: true,
    old_bundle: true,
    hyphen_values: true,
    ..BASE
};

pub(super) const RENAMES: &str = "its expression renames the files it writes (symbolic link targets too), so a name can end up outside the working directory";

pub(super) const TAR_REMOTE: &str = "an archive on another machine when a `:` comes before any `/` (`host:file`), which tar reaches by running a remote shell; write a local name with a `/` before any `:` (`./a:b.tar`)";

pub(super) const TAR_OPTS: &[Opt] = &[
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

pub(super) const RSYNC: Entry = Entry {
    names: &["rsync"],
    options: &[RSYNC_OPTS],
    permute: true,
    remote_operands: Some(RSYNC_REMOTE),
    ..BASE
};

pub(super) const DELETES: &str = "it deletes files";

pub(super) const RSYNC_DELETES: &str = "it deletes files on the receiving side";

pub(super) const RSYNC_FOLLOWS: &str =
    "it copies the files symbolic links point to, inside the working directory or not";

pub(super) const RSYNC_REMOTE: &str = "a remote location (`host:path`, `host::module`, `rsync://host/...`: a `:` before any `/`), which rsync reaches by running ssh or connecting over the network; write a local path with a `/` before any `:` (`./a:b`)";

pub(super) const RSYNC_OPTS: &[Opt] = &[
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

pub(super) const SORT: Entry = Entry {
    names: &["sort", "gsort"],
    options: &[SORT_OPTS],
    permute: true,
    hyphen_values: true,
    ..BASE
};

pub(super) const SORT_OPTS: &[Opt] = &[
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

pub(super) const RG: Entry = Entry {
    names: &["rg"],
    options: &[RG_OPTS],
    permute: true,
    hyphen_values: true,
    ..BASE
};

pub(super) const RG_OPTS: &[Opt] = &[
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

pub(super) const ZIP: Entry = Entry {
    names: &["zip"],
    options: &[ZIP_OPTS],
    permute: true,
    dashdash: false,
    ..BASE
};

pub(super) const ZIP_OPTS: &[Opt] = &[
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

pub(super) const TCPDUMP: Entry = Entry {
    names: &["tcpdump"],
    options: &[TCPDUMP_OPTS],
    permute: true,
    hyphen_values: true,
    ..BASE
};

pub(super) const TCPDUMP_OPTS: &[Opt] = &[
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

pub(super) const MAKE: Entry = Entry {
    names: &["make", "gmake"],
    options: &[MAKE_OPTS],
    exec_program_ok: Some(is_not_assignment),
    operands: Operands::AllCode(
        "a make operand, which may be a variable assignment (`SHELL=...`) that changes the commands make runs",
    ),
    permute: true,
    hyphen_values: true,
    ..BASE
};

pub(super) const MAKE_OPTS: &[Opt] = &[
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

pub(super) const CMAKE: Entry = Entry {
    names: &["cmake"],
    options: &[CMAKE_OPTS],
    permute: true,
    dashdash: false,
    ..BASE
};

pub(super) const CMAKE_OPTS: &[Opt] = &[
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

pub(super) const FD: Entry = Entry {
    names: &["fd", "fdfind"],
    options: &[FD_OPTS],
    permute: true,
    complete: false,
    dashdash: false,
    ..BASE
};

pub(super) const FD_OPTS: &[Opt] = &[
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

/// What the entries of this file must and must not match, run through the real policy by
/// `examples`' test: a template whose free slot stands where code goes (`Match`, with the
/// site), a template that passes with every slot free (`NotMatch`), and free-text commands
/// ExecTool refuses (`ExecMatch`) or lets through (`ExecNotMatch`).
#[cfg(test)]
pub(super) const EXAMPLES: &[super::examples::Example] = {
    use super::examples::*;
    &[
        // GREP
        Match("grep -<flags> <pattern> .", "flags", At(OptionName)),
        NotMatch("grep -rn <pattern> <path>"),
        ExecMatch("grep -R x ."),
        ExecNotMatch("grep -r x ."),
        // FIND
        Match("find -- <dir> -exec <cmd> {{}} +", "cmd", At(Command)),
        Match("find <path> -exec <cmd> +", "cmd", At(Command)),
        NotMatch("find <path> -name <pattern>"),
        NotMatch("find <path> -delete"),
        ExecMatch("find . -delete"),
        ExecNotMatch("find . -name x"),
        // TAR
        Match("tar -czf <archive> <dir>", "archive", ValueOf("-f")),
        Match("tar xzf <archive>", "archive", ValueOf("-f")),
        NotMatch("tar -xf backups/<name>"),
        NotMatch("tar -xf host:<name>"),
        ExecMatch("tar --to-command=sh -xf a"),
        ExecNotMatch("tar -tzf a.tar.gz"),
        // RSYNC
        Match("rsync -a <src> <dst>", "src", At(Operand)),
        Match("rsync -a ./<src> <dst>", "dst", At(Operand)),
        NotMatch("rsync -a ./<src> backup/"),
        ExecMatch("rsync -e ssh a b"),
        ExecNotMatch("rsync -a src dst"),
        // SORT
        Match(
            "sort --compress-program=<x> f",
            "x",
            ValueOf("--compress-program"),
        ),
        Match("sort --compress <x> f", "x", ValueOf("--compress-program")),
        NotMatch("sort -o <out> <file>"),
        NotMatch("sort -k <key> <file>"),
        ExecMatch("sort -o out f"),
        ExecNotMatch("sort -n f"),
        // RG
        Match("rg --pre <x> pattern", "x", ValueOf("--pre")),
        Match("rg --pre=<x> pattern", "x", ValueOf("--pre")),
        NotMatch("rg -n <pattern> <path>"),
        NotMatch("rg --pre-glob <glob> <pattern>"),
        ExecMatch("rg --pre cat x"),
        ExecNotMatch("rg foo src"),
        // ZIP
        Match("zip -TT <x> a.zip f", "x", ValueOf("-TT")),
        Match("zip -TT<x> a.zip f", "x", ValueOf("-TT")),
        NotMatch("zip -r <archive> <dir>"),
        ExecMatch("zip -TT x a.zip f"),
        // TCPDUMP
        Match("tcpdump -z <x> -w out", "x", ValueOf("-z")),
        // MAKE
        Match("make <target>", "target", At(Operand)),
        Match("make CFLAGS=<flags> all", "flags", At(Operand)),
        NotMatch("make -C <dir> test"),
        ExecMatch("make SHELL=/tmp/x test"),
        ExecNotMatch("make"),
        // CMAKE
        Match("cmake -D <var> -S . -B build", "var", ValueOf("-D")),
        Match(
            "cmake -DCMAKE_BUILD_TYPE=<type> -S . -B build",
            "type",
            ValueOf("-D"),
        ),
        // FD
        Match("fd -e rs -x <cmd>", "cmd", At(Command)),
        NotMatch("fd -e rs -x wc -l"),
        NotMatch("fd -e <ext> <pattern> <dir>"),
    ]
};
