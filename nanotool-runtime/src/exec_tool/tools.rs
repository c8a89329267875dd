//! Layer 4 for the binaries whose own subcommands decide what they do: git (subcommands that
//! delete, serve or connect out, repositories on other machines, `git config` writes) and the
//! package managers npm, pnpm and yarn (only the commands that read).

use super::{ExecLayer, ExecRefusal};
use crate::policy;

/// git subcommands ExecTool refuses outright, and why.
pub const GIT_REFUSED_SUBCOMMANDS: &[(&[&str], &str)] = &[
    (
        &["clean"],
        "it deletes untracked files, which no history can bring back",
    ),
    (
        &["gc", "prune", "prune-packed"],
        "it deletes objects from the repository",
    ),
    (
        &[
            "daemon",
            "instaweb",
            "http-backend",
            "credential-cache",
            "credential-cache--daemon",
            "fsmonitor--daemon",
            "upload-pack",
            "receive-pack",
            "upload-archive",
            "shell",
        ],
        "it starts a server, or serves the repository to another program",
    ),
    (
        &[
            "send-email",
            "imap-send",
            "svn",
            "p4",
            "cvsimport",
            "cvsserver",
            "cvsexportcommit",
            "archimport",
        ],
        "it connects to another machine",
    ),
    (
        &["maintenance"],
        "it registers the repository in the user's configuration and schedules jobs (cron, \
         systemd) outside the working directory",
    ),
    (
        &["credential", "credential-store"],
        "it runs credential helpers, or reads and writes the user's stored credentials",
    ),
    (&["hook"], "it runs the repository's hooks"),
];

/// git subcommands whose first operand (or `--remote`/`--repo` value) is a repository that may
/// be another machine's.
const GIT_TRANSPORT_SUBCOMMANDS: &[&str] = &[
    "clone",
    "fetch",
    "pull",
    "push",
    "ls-remote",
    "archive",
    "fetch-pack",
    "send-pack",
    "remote",
    "submodule",
];

/// `git config` options that write configuration, or read or write it outside the repository.
const GIT_CONFIG_WRITES: &[&str] = &[
    "--global",
    "--system",
    "--add",
    "--unset",
    "--unset-all",
    "--replace-all",
    "--rename-section",
    "--remove-section",
    "--edit",
];

/// git global options that take the next token as their value.
const GIT_VALUE_OPTIONS: &[&str] = &[
    "-c",
    "-C",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "--config-env",
    "--attr-source",
];

/// Whether `operand` names a repository on another machine (or through a transport helper):
/// `scheme://...`, `transport::address`, `[host:port]:path`, or scp-like `host:path` (a `:`
/// before any `/`).
pub(super) fn is_remote_repository(operand: &str) -> bool {
    if operand.contains("://") || operand.contains("::") || operand.starts_with('[') {
        return true;
    }
    match (operand.find(':'), operand.find('/')) {
        (Some(colon), Some(slash)) => colon < slash,
        (Some(_), None) => true,
        _ => false,
    }
}

/// Layer 4 for npm, pnpm and yarn: only the commands that read (`ls`, `view`, ...). Every
/// other one may run a package's or the workspace's scripts (`npm install` with no operand
/// runs the workspace's own lifecycle scripts), which free text cannot see.
pub(super) fn package_manager_rules(binary: &str, args: &[String]) -> Result<(), ExecRefusal> {
    let command = args.iter().find(|a| !a.starts_with('-'));
    match command {
        Some(command) if policy::tables::is_npm_read_only(command) => Ok(()),
        Some(command) => Err(ExecRefusal::new(
            ExecLayer::ArgumentRules,
            format!(
                "`{binary} {command}` is refused: all but a few commands that only read (`ls`, \
                 `view`, `outdated`, ...) may run a package's or the workspace's scripts"
            ),
        )),
        None => Ok(()),
    }
}

/// Layer 4 for git: subcommands that delete, serve, connect or write outside the working
/// directory; repositories on other machines; `git config` writes.
pub(super) fn git_rules(args: &[String]) -> Result<(), ExecRefusal> {
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        if GIT_VALUE_OPTIONS.contains(&args[i].as_str()) {
            i += 1;
        }
        i += 1;
    }
    let Some(sub) = args.get(i) else {
        return Ok(());
    };
    let rest = &args[i + 1..];
    if let Some((_, why)) = GIT_REFUSED_SUBCOMMANDS
        .iter()
        .find(|(names, _)| names.contains(&sub.as_str()))
    {
        return Err(ExecRefusal::new(
            ExecLayer::ArgumentRules,
            format!("`git {sub}` is refused: {why}"),
        ));
    }
    let operands: Vec<&String> = rest.iter().filter(|a| !a.starts_with('-')).collect();
    if sub == "worktree"
        && let Some(step) = operands.first()
        && matches!(step.as_str(), "remove" | "prune")
    {
        return Err(ExecRefusal::new(
            ExecLayer::ArgumentRules,
            format!("`git worktree {step}` is refused: it deletes files"),
        ));
    }
    if GIT_TRANSPORT_SUBCOMMANDS.contains(&sub.as_str()) {
        // `remote add NAME URL`, `submodule add URL`: every operand; else the first.
        let candidates: Vec<&str> = if matches!(sub.as_str(), "remote" | "submodule") {
            operands.iter().map(|s| s.as_str()).collect()
        } else {
            operands.first().map(|s| s.as_str()).into_iter().collect()
        };
        let values = rest.iter().filter_map(|a| {
            a.strip_prefix("--remote=")
                .or_else(|| a.strip_prefix("--repo="))
        });
        if let Some(remote) = candidates
            .into_iter()
            .chain(values)
            .find(|c| is_remote_repository(c))
        {
            return Err(ExecRefusal::new(
                ExecLayer::ArgumentRules,
                format!(
                    "`{remote}` names a repository on another machine (a URL, `host:path` or \
                     `transport::address`), which git would connect to; name a repository in \
                     the working directory or a configured remote"
                ),
            ));
        }
        if rest.iter().any(|a| a == "--remote" || a == "--repo") {
            return Err(ExecRefusal::new(
                ExecLayer::ArgumentRules,
                "write `--remote=<repository>` with `=`, so that the repository can be checked",
            ));
        }
    }
    if sub == "config" {
        let write = rest.iter().find(|a| {
            let name = a.split('=').next().unwrap_or(a);
            // parse-options accepts any unambiguous abbreviation (`--glob`, `--unset-a`).
            (name.len() > 3 && GIT_CONFIG_WRITES.iter().any(|w| w.starts_with(name)))
                || name == "-e"
        });
        let step = operands.first().filter(|s| {
            matches!(
                s.as_str(),
                "set" | "unset" | "rename-section" | "remove-section" | "edit"
            )
        });
        if let Some(what) = write.or(step.copied()) {
            return Err(ExecRefusal::new(
                ExecLayer::ArgumentRules,
                format!(
                    "`git config {what}` is refused: it writes git's configuration (in `.git/` or \
                     the user's home), which decides what later git commands run; read it with \
                     `git config --get <key>` or `git config --list`"
                ),
            ));
        }
    }
    Ok(())
}
