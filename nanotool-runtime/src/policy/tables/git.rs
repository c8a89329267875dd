//! The code-entry rows of git: its global options, its subcommands, and what each may run or write; each entry beside its options.

use super::*;

pub(super) const GIT: Entry = Entry {
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
};

pub(super) const GIT_CONFIG_WHY: &str =
    "a configuration setting (`alias.x=!cmd`, `core.pager`, `core.fsmonitor` run commands)";

pub(super) const GIT_CONFIG_VALUE: &str = "a configuration value written for later git commands (`alias.x=!cmd`, `core.pager`, `core.fsmonitor` run commands)";

pub(super) const GIT_GLOBAL_OPTS: &[Opt] = &[
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

pub(super) const GIT_COMMON_OPTS: &[Opt] = &[
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

pub(super) const GIT_SUBS: &[Sub] = &[
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
pub(super) const GIT_LOG_OPTS: &[Opt] = &[
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

pub(super) const GIT_OTHER: Sub = Sub {
    names: &[],
    options: &[GIT_COMMON_OPTS],
    operands: Operands::Data,
};

/// What the entries of this file must and must not match, run through the real policy by
/// `examples`' test: a template whose free slot stands where code goes (`Match`, with the
/// site), a template that passes with every slot free (`NotMatch`), and free-text commands
/// ExecTool refuses (`ExecMatch`) or lets through (`ExecNotMatch`).
#[cfg(test)]
pub(super) const EXAMPLES: &[super::examples::Example] = {
    use super::examples::*;
    &[
        // GIT
        Match("git <sub> --oneline", "sub", At(Subcommand)),
        Match("git -c <cfg> log", "cfg", ValueOf("-c")),
        Match(
            "git send-email --to-cmd <cmd> HEAD~1",
            "cmd",
            ValueOf("--to-cmd"),
        ),
        Match("git instaweb --httpd <cmd>", "cmd", ValueOf("--httpd")),
        NotMatch("git log -n <count>"),
        NotMatch("git log --format=<fmt> -n 3"),
        ExecMatch("git log --no-merges --output"),
        ExecNotMatch("git log -n 3"),
    ]
};
