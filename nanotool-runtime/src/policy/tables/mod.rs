//! The policy's data: the deny list, the binaries that stand for the same danger, and the
//! code-entry table.
//!
//! Everything here is a table, documented entry by entry (each code-entry option carries a
//! `why`, the text a refusal shows); the logic that reads the tables lives in the parent
//! module. The code-entry rows live one file per family of tools (`interpreters`, `runners`,
//! `editors`, `git`, `walkers`, `wrappers`, `toolchains`, `plain`), each [`Entry`] beside the
//! options it reads; [`CODE_ENTRY`] names them in order. The shape of an entry ([`Entry`],
//! [`Opt`], [`Operands`]) and the constructors the rows are written with are in `entry`;
//! the family files take them through a deliberate glob (`use super::*;`), the one glob
//! import outside test modules, so a row reads as data.
//! Each family file ends with its `EXAMPLES`: templates and free-text commands its entries
//! must and must not match, which a test (`examples`) runs through the real policy; every
//! entry has some, and one it must match unless the policy reads nothing of it but `--`.
//!
//! To teach the policy a binary, add an entry to its family's file, listing every option that
//! takes a separate value (an unlisted option is read as a flag), name it in [`CODE_ENTRY`],
//! and give it examples.

mod editors;
mod entry;
#[cfg(test)]
mod examples;
mod git;
mod interpreters;
mod plain;
mod runners;
mod toolchains;
mod walkers;
mod wrappers;

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
    "process listing", "it lists processes through /proc, which confined commands never see (it would show them the agent's environment and memory), so every call would fail":
        ["ps", "top", "htop", "atop", "btop", "pgrep", "pidof", "pstree"];
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

// The data DSL's prelude: the family files write `use super::*;` on purpose, so a row reads
// as data (`code("-c", CODE)`, `val("--max-count")`, `..BASE`) rather than as a path. The
// glob brings in the entry types and the constructors and `why` texts of `entry` (each with
// one doc line there); everywhere outside these tables imports are explicit.
use entry::*;
pub use entry::{Arity, Entry, Operands, Opt, Role, Sub};

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
    interpreters::PYTHON,
    interpreters::NODE,
    interpreters::DENO,
    interpreters::BUN,
    runners::NPX,
    runners::NPM,
    runners::YARN,
    interpreters::PERL,
    interpreters::RUBY,
    interpreters::PHP,
    interpreters::LUA,
    interpreters::AWK,
    interpreters::SED,
    interpreters::RSCRIPT,
    interpreters::R,
    interpreters::TCLSH,
    interpreters::EXPECT,
    interpreters::OSASCRIPT,
    interpreters::JULIA,
    interpreters::JAVA,
    interpreters::DC,
    interpreters::M4,
    interpreters::GNUPLOT,
    interpreters::SQLITE3,
    interpreters::PSQL,
    interpreters::MYSQL,
    editors::VIM,
    editors::NVIM,
    editors::NANO,
    editors::EMACS,
    editors::LESS,
    editors::MAN,
    editors::GDB,
    editors::LLDB,
    walkers::GREP,
    walkers::FIND,
    git::GIT,
    walkers::TAR,
    walkers::RSYNC,
    walkers::SORT,
    walkers::RG,
    walkers::ZIP,
    walkers::TCPDUMP,
    walkers::MAKE,
    walkers::CMAKE,
    wrappers::TIMEOUT,
    wrappers::NICE,
    wrappers::IONICE,
    wrappers::STDBUF,
    wrappers::TASKSET,
    wrappers::PRLIMIT,
    wrappers::FLOCK,
    wrappers::TIME,
    wrappers::STRACE,
    wrappers::LTRACE,
    wrappers::FAKEROOT,
    wrappers::XVFB_RUN,
    wrappers::UNBUFFER,
    wrappers::VALGRIND,
    wrappers::SSHPASS,
    wrappers::DBUS_RUN_SESSION,
    wrappers::CHOOM,
    wrappers::FIREJAIL,
    wrappers::FAKETIME,
    wrappers::ENTR,
    walkers::FD,
    runners::HYPERFINE,
    runners::WATCHEXEC,
    runners::CONCURRENTLY,
    runners::NODEMON,
    runners::JUST,
    runners::CARGO,
    runners::GO,
    plain::CAT,
    wrappers::SETARCH,
    wrappers::PERF,
    toolchains::GCC,
    toolchains::LD,
    toolchains::NM,
    toolchains::RUSTC,
    toolchains::OPENSSL,
    toolchains::SSH_KEYGEN,
    runners::APT_GET,
    runners::DPKG,
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
