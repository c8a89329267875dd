//! The shape of the code-entry table: an [`Entry`] per binary, its options ([`Opt`], with an
//! [`Arity`] and a [`Role`]), its operands ([`Operands`], [`Sub`]); the defaults every entry
//! starts from (`BASE`), the short constructors the family files write their options with,
//! and the `why` texts several families share.

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

/// The defaults an entry starts from (`..BASE`): operands are data, GNU-style options, `--` ends them.
pub(super) const BASE: Entry = Entry {
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

/// An option whose next argument is code the binary runs (`python3 -c <code>`).
pub(super) const fn code(name: &'static str, why: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Next,
        role: Role::Code,
        why,
    }
}
/// An option whose next argument is code loaded beside the program, which still follows (`node -r <mod> SCRIPT`).
pub(super) const fn load(name: &'static str, why: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Next,
        role: Role::Load,
        why,
    }
}
/// An option whose attached value is code loaded beside the program (`perl -MFoo SCRIPT`).
pub(super) const fn load_att(name: &'static str, why: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Attached,
        role: Role::Load,
        why,
    }
}
/// An option whose attached value is code the binary runs (`-e<code>`, value in the same token).
pub(super) const fn code_att(name: &'static str, why: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Attached,
        role: Role::Code,
        why,
    }
}
/// An option followed by a command the binary runs, up to a literal `;` or `+` (`find -exec`, `gdb --args`).
pub(super) const fn cmd(name: &'static str, why: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Command,
        role: Role::Code,
        why,
    }
}
/// An option with an effect beyond reading (writes a file, changes a folder), taking its value by `arity`.
pub(super) const fn eff(name: &'static str, arity: Arity, why: &'static str) -> Opt {
    Opt {
        name,
        arity,
        role: Role::Effect,
        why,
    }
}
/// An option whose next argument names a remote place the binary reaches over the network.
pub(super) const fn remote(name: &'static str, why: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Next,
        role: Role::Remote,
        why,
    }
}
/// A flag that makes the binary only check the program's syntax (`perl -c`): its operand is read, not run.
pub(super) const fn check(name: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Flag,
        role: Role::Check,
        why: "it only checks the program's syntax: the program is read, not run",
    }
}
/// A flag that makes the binary a test runner (`python3 -m pytest`): its operands are test files, not a program.
pub(super) const fn test_runner(name: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Flag,
        role: Role::Check,
        why: "it runs the test files its operands name, as a test runner does (`pytest <path>`): \
              no operand is a program given to run",
    }
}
/// A plain option that takes the next argument as its value (listed so the value is not read as an operand).
pub(super) const fn val(name: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Next,
        role: Role::Plain,
        why: "",
    }
}
/// A plain option whose value is attached to it, in the same token.
pub(super) const fn att(name: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Attached,
        role: Role::Plain,
        why: "",
    }
}
/// A plain option followed by an optional number in the same token, after which the bundle goes on (perl's `-l[octal]`).
pub(super) const fn digits(name: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Digits,
        role: Role::Plain,
        why: "",
    }
}
/// A plain option that takes no value.
pub(super) const fn flag(name: &'static str) -> Opt {
    Opt {
        name,
        arity: Arity::Flag,
        role: Role::Plain,
        why: "",
    }
}

pub(super) const CODE: &str = "the code the interpreter runs";
pub(super) const SCRIPT: &str = "the program the interpreter runs (its first operand)";
pub(super) const SHELL_CMD: &str = "a command line run through a shell";
pub(super) const LOAD_PATH: &str = "a folder the interpreter loads modules from, before its own: a module there replaces the one the program uses";
pub(super) const WRITES: &str = "it writes to a file named in free text";
pub(super) const NAMES_FROM_FILE: &str = "it reads the names of the files to act on from a file, where free text cannot confine them to the working directory";
pub(super) const REDIRECTS: &str = "it changes the folder later names are resolved from, which free text cannot confine; run from the working directory and name paths from it";
