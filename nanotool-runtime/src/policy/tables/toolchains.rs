//! The code-entry rows of compilers, linkers and tools that load plugins or engines (cc, ld, rustc, openssl, ssh-keygen); each entry beside its options.

use super::*;

pub(super) const GCC: Entry = Entry {
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
};

pub(super) const CC_WRAPPER: &str = "a command the compiler runs each of its stages through";

pub(super) const CC_PLUGIN: &str = "a plugin (a library) the compiler loads";

pub(super) const CC_PROGRAMS: &str =
    "a folder the compiler runs its stages (`cc1`, `as`, `ld`) from";

pub(super) const CC_SPECS: &str = "a spec file, whose rules can run programs";

pub(super) const CC_PASS: &str =
    "arguments passed to a compiler stage (`-load x.so`, `-plugin x.so`)";

pub(super) const CC_OPTS: &[Opt] = &[
    code("-wrapper", CC_WRAPPER),
    load("-fplugin", CC_PLUGIN),
    load("-fpass-plugin", CC_PLUGIN),
    code("-B", CC_PROGRAMS),
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

pub(super) const LD: Entry = Entry {
    names: &[
        "ld", "ld.bfd", "ld.gold", "gold", "ld.lld", "lld", "ld64.lld", "wasm-ld",
    ],
    options: &[LD_OPTS],
    long_only: true,
    complete: false,
    permute: true,
    ..BASE
};

pub(super) const LD_OPTS: &[Opt] = &[
    load("-plugin", "a plugin (a library) the linker loads"),
    load("--plugin", "a plugin (a library) the linker loads"),
    val("-o"),
    val("-L"),
    val("-l"),
    val("-T"),
];

pub(super) const NM: Entry = Entry {
    names: &["nm", "ar", "ranlib"],
    options: &[BINUTILS_OPTS],
    complete: false,
    permute: true,
    ..BASE
};

pub(super) const BINUTILS_OPTS: &[Opt] = &[load("--plugin", "a plugin (a library) the tool loads")];

pub(super) const RUSTC: Entry = Entry {
    names: &["rustc", "rustdoc"],
    options: &[RUSTC_OPTS],
    complete: false,
    permute: true,
    ..BASE
};

pub(super) const RUSTC_OPTS: &[Opt] = &[
    code(
        "-C",
        "a code generation setting (`linker=` runs a program, `codegen-backend=` loads a library)",
    ),
    code(
        "--codegen",
        "a code generation setting (`linker=` runs a program, `codegen-backend=` loads a library)",
    ),
    code(
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

pub(super) const OPENSSL: Entry = Entry {
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
};

pub(super) const OPENSSL_LOAD: &str = "an engine or provider (a library) openssl loads";

pub(super) const OPENSSL_OPTS: &[Opt] = &[
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

pub(super) const SSH_KEYGEN: Entry = Entry {
    names: &["ssh-keygen"],
    options: &[SSH_KEYGEN_OPTS],
    complete: false,
    permute: true,
    ..BASE
};

pub(super) const SSH_KEYGEN_OPTS: &[Opt] = &[load("-D", "a PKCS#11 library ssh-keygen loads")];

/// What the entries of this file must and must not match, run through the real policy by
/// `examples`' test: a template whose free slot stands where code goes (`Match`, with the
/// site), a template that passes with every slot free (`NotMatch`), and free-text commands
/// ExecTool refuses (`ExecMatch`) or lets through (`ExecNotMatch`).
#[cfg(test)]
pub(super) const EXAMPLES: &[super::examples::Example] = {
    use super::examples::*;
    &[
        // GCC
        Match("gcc -wrapper <w> a.c", "w", ValueOf("-wrapper")),
        Match("gcc -B <dir> a.c", "dir", ValueOf("-B")),
        Match("cc -B<dir> a.c", "dir", At(OptionName)),
        ExecMatch("gcc -wrapper x a.c"),
        ExecNotMatch("gcc -c a.c -o a.o"),
        // LD
        Match("ld -plugin <p> a.o", "p", ValueOf("-plugin")),
        ExecNotMatch("ld -o a a.o"),
        // NM
        Match("nm --plugin <p> a.o", "p", ValueOf("--plugin")),
        ExecNotMatch("nm a.o"),
        // RUSTC
        Match("rustc -C<x> a.rs", "x", ValueOf("-C")),
        Match("rustc -C <x> a.rs", "x", ValueOf("-C")),
        Match("rustc -Z <x> a.rs", "x", ValueOf("-Z")),
        Match("rustdoc -C <x> a.rs", "x", ValueOf("-C")),
        ExecMatch("rustc -Z codegen-backend=./x.so a.rs"),
        ExecNotMatch("rustc --explain E0001"),
        // OPENSSL
        Match(
            "openssl x509 -engine <e> -in c.pem",
            "e",
            ValueOf("-engine"),
        ),
        ExecNotMatch("openssl dgst -sha256 x"),
        // SSH_KEYGEN
        Match("ssh-keygen -D <lib>", "lib", ValueOf("-D")),
        ExecNotMatch("ssh-keygen -l -f key.pub"),
    ]
};
