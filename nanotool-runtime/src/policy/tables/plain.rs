//! The code-entry rows of programs read only to know where their options end (GNU getopt and its kin); each entry beside its options.

use super::*;

pub(super) const CAT: Entry = Entry {
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
};

/// What the entries of this file must and must not match, run through the real policy by
/// `examples`' test: a template whose free slot stands where code goes (`Match`, with the
/// site), a template that passes with every slot free (`NotMatch`), and free-text commands
/// ExecTool refuses (`ExecMatch`) or lets through (`ExecNotMatch`).
#[cfg(test)]
pub(super) const EXAMPLES: &[super::examples::Example] = {
    use super::examples::*;
    &[
        // CAT
        NotMatch("cat <file>"),
        NotMatch("wc -l <file>"),
        ExecNotMatch("ls -la"),
    ]
};
