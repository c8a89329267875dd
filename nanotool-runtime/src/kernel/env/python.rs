//! Whether a Python command gets `PYTHONSAFEPATH=1`, decided from its argv (the template the
//! policy checked, rendered): a program of the standard library keeps a workspace's planted
//! module from shadowing what it imports; the project's own code keeps its folder on the
//! module path.
//!
//! - `python3 -m <module>` of the standard library (`json.tool`, `http.server`, `zipfile`):
//!   safe path, so a planted `json.py` never runs — except the standard modules that exist to
//!   run the project's code (`unittest`, `doctest`, `pdb`, `cProfile`, `profile`, `trace`,
//!   `runpy`, `timeit`), which need its modules importable and run its code anyway;
//! - `python3 -m <module>` of anything else: the project's own package (`myapp`), or a runner
//!   of the project's code (`pytest`): the working directory stays first. Installed tools
//!   that run none of the project's code ([`INSTALLED_TOOLS`]: `pip`, `black`, `mypy`, ...)
//!   get the safe path, so a planted `pip/` does not stand in for them;
//! - `python3 <script>`: the script is the project's, its folder stays first (a sibling
//!   import works);
//! - `python3 -c <code>`, no program at all (stdin): the code is the author's, not the
//!   project's: safe path.

/// Whether `program` (a basename) is a Python interpreter: `python`, `python3`,
/// `python3.11`, `pypy3`.
pub(crate) fn is_python(program: &[u8]) -> bool {
    let rest = program
        .strip_prefix(b"python")
        .or_else(|| program.strip_prefix(b"pypy"));
    rest.is_some_and(|r| r.iter().all(|c| c.is_ascii_digit() || *c == b'.'))
}

/// Modules of the standard library (Python 3.11's `sys.stdlib_module_names`, private ones
/// left out).
pub const STDLIB_MODULES: &[&str] = &[
    "abc",
    "aifc",
    "antigravity",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "bdb",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cgi",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "crypt",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "distutils",
    "doctest",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "idlelib",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
];

/// Modules of the standard library that run the project's code: its tests, its scripts
/// under a debugger or profiler. The working directory stays on their path.
pub const STDLIB_RUNNERS: &[&str] = &[
    "unittest", "doctest", "pdb", "cProfile", "profile", "trace", "runpy", "timeit",
];

/// Installed tools run with `-m` that run none of the project's code: they get the safe
/// path, so a workspace's package of the same name does not stand in for them.
pub const INSTALLED_TOOLS: &[&str] = &[
    "pip",
    "pipx",
    "build",
    "twine",
    "wheel",
    "setuptools",
    "virtualenv",
    "black",
    "isort",
    "ruff",
    "mypy",
    "flake8",
    "pycodestyle",
    "pyflakes",
    "pydocstyle",
    "pylint",
    "poetry",
];

/// Options of the interpreter that take the next argument as their value.
const VALUE_OPTIONS: &[u8] = b"WX";

/// Whether a Python command with arguments `args` (after argv\[0\]) runs with
/// `PYTHONSAFEPATH=1`.
pub(crate) fn safe_path<S: AsRef<str>>(args: &[S]) -> bool {
    let mut i = 0;
    while let Some(arg) = args.get(i).map(AsRef::as_ref) {
        if arg == "-" || !arg.starts_with('-') {
            // A script (its folder stays first), or the program on stdin.
            return arg == "-";
        }
        if arg == "--" {
            return args.get(i + 1).is_none_or(|a| a.as_ref() == "-");
        }
        if arg.starts_with("--") {
            // `--check-hash-based-pycs <mode>` is the one long option with a value.
            i += if arg == "--check-hash-based-pycs" {
                2
            } else {
                1
            };
            continue;
        }
        // A bundle of short options: `-u`, `-Bm`, `-mjson.tool`, `-W error`, `-c...`.
        let letters = &arg.as_bytes()[1..];
        for (at, letter) in letters.iter().enumerate() {
            match letter {
                b'c' => return true,
                b'm' => {
                    let attached = &arg[2 + at..];
                    let module = if attached.is_empty() {
                        args.get(i + 1).map(AsRef::as_ref).unwrap_or("")
                    } else {
                        attached
                    };
                    return module_safe_path(module);
                }
                l if VALUE_OPTIONS.contains(l) => {
                    if at + 1 == letters.len() {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
        i += 1;
    }
    // No program: the interactive interpreter or stdin.
    true
}

/// Whether `python3 -m <module>` runs with the safe path.
fn module_safe_path(module: &str) -> bool {
    let top = module.split('.').next().unwrap_or("");
    if STDLIB_RUNNERS.contains(&top) {
        return false;
    }
    STDLIB_MODULES.contains(&top) || INSTALLED_TOOLS.contains(&top) || top.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_safe_path_follows_what_the_command_runs() {
        for (argv, want) in [
            (&["-m", "json.tool", "x.json"][..], true),
            (&["-mjson.tool"][..], true),
            (&["-u", "-m", "http.server"][..], true),
            (&["-Bm", "zipfile", "-l", "a.zip"][..], true),
            (&["-m", "pip", "list"][..], true),
            (&["-c", "import json"][..], true),
            (&[][..], true),
            (&["-"][..], true),
            (&["-m", "unittest", "-v", "tests.test_x"][..], false),
            (&["-m", "pytest", "-q"][..], false),
            (&["-m", "myapp"][..], false),
            (&["scripts/report.py", "-m", "json"][..], false),
            (&["-W", "error", "scripts/x.py"][..], false),
            (&["-X", "dev", "-m", "json.tool"][..], true),
            (&["-Werror", "-m", "unittest"][..], false),
            (&["--", "x.py"][..], false),
        ] {
            assert_eq!(safe_path(argv), want, "{argv:?}");
        }
    }

    #[test]
    fn pythons_are_recognised() {
        for (name, want) in [
            ("python", true),
            ("python3", true),
            ("python3.11", true),
            ("pypy3", true),
            ("python3-config", false),
            ("pythonista", false),
            ("ipython", false),
        ] {
            assert_eq!(is_python(name.as_bytes()), want, "{name}");
        }
    }
}
