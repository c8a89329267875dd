//! The code-entry rows of editors, pagers and debuggers whose commands can run a shell; each entry beside its options.

use super::*;

pub(super) const VIM: Entry = Entry {
    names: &["vim", "vi", "view", "ex", "vimdiff", "gvim", "rvim", "evim"],
    options: &[VIM_OPTS],
    plus_code: true,
    permute: true,
    ..BASE
};

// --- Editors, pagers, debuggers --------------------------------------------------------------
pub(super) const VIM_OPTS: &[Opt] = &[
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

pub(super) const NVIM: Entry = Entry {
    names: &["nvim"],
    options: &[NVIM_OPTS, VIM_OPTS],
    plus_code: true,
    permute: true,
    ..BASE
};

/// Neovim adds `-l` (a Lua script it runs) to vim's options.
pub(super) const NVIM_OPTS: &[Opt] = &[
    code("-l", "a Lua script nvim runs"),
    code("--listen", "an address nvim listens on for commands"),
    val("--server"),
];

pub(super) const NANO: Entry = Entry {
    names: &["nano", "rnano"],
    options: &[NANO_OPTS],
    permute: true,
    hyphen_values: true,
    ..BASE
};

pub(super) const NANO_OPTS: &[Opt] = &[
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

pub(super) const EMACS: Entry = Entry {
    names: &["emacs"],
    options: &[EMACS_OPTS],
    permute: true,
    dashdash: false,
    ..BASE
};

pub(super) const EMACS_OPTS: &[Opt] = &[
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

pub(super) const LESS: Entry = Entry {
    names: &["less"],
    options: &[LESS_OPTS],
    plus_code: true,
    permute: true,
    ..BASE
};

pub(super) const LESS_OPTS: &[Opt] = &[
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

pub(super) const MAN: Entry = Entry {
    names: &["man"],
    options: &[MAN_OPTS],
    permute: true,
    hyphen_values: true,
    ..BASE
};

pub(super) const MAN_OPTS: &[Opt] = &[
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

pub(super) const GDB: Entry = Entry {
    names: &["gdb"],
    options: &[GDB_OPTS],
    long_only: true,
    permute: true,
    hyphen_values: true,
    ..BASE
};

pub(super) const GDB_OPTS: &[Opt] = &[
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

pub(super) const LLDB: Entry = Entry {
    names: &["lldb"],
    options: &[LLDB_OPTS],
    permute: true,
    ..BASE
};

pub(super) const LLDB_OPTS: &[Opt] = &[
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

/// What the entries of this file must and must not match, run through the real policy by
/// `examples`' test: a template whose free slot stands where code goes (`Match`, with the
/// site), a template that passes with every slot free (`NotMatch`), and free-text commands
/// ExecTool refuses (`ExecMatch`) or lets through (`ExecNotMatch`).
#[cfg(test)]
pub(super) const EXAMPLES: &[super::examples::Example] = {
    use super::examples::*;
    &[
        // VIM
        Match("vim --remote-send <keys>", "keys", ValueOf("--remote-send")),
        Match("vim --remote-expr <expr>", "expr", ValueOf("--remote-expr")),
        // NVIM
        Match("nvim -l <script>", "script", ValueOf("-l")),
        Match("nvim --headless -c <cmd>", "cmd", ValueOf("-c")),
        // NANO
        Match(
            "nano --speller <prog> notes.txt",
            "prog",
            ValueOf("--speller"),
        ),
        // EMACS
        Match("emacs -eval <code>", "code", ValueOf("-eval")),
        Match("emacs -batch -load <file>", "file", ValueOf("-load")),
        // LESS
        Match(
            "less --lesskey-content=<text> notes.txt",
            "text",
            ValueOf("--lesskey-content"),
        ),
        Match("less +<x> notes.txt", "x", At(PlusCommand)),
        NotMatch("less -- <file>"),
        NotMatch("less notes.txt"),
        // MAN
        Match("man -P <pager> ls", "pager", ValueOf("-P")),
        NotMatch("man <page>"),
        // GDB
        Match("gdb -batch -ex <x> ./prog", "x", ValueOf("-ex")),
        Match("gdb -batch --ex=<x> ./prog", "x", ValueOf("-ex")),
        // LLDB
        Match("lldb -o <cmd> ./a.out", "cmd", ValueOf("-o")),
    ]
};
