//! The policy's data: the deny list and the binaries that stand for the same danger.
//!
//! Everything here is a table, documented entry by entry; the logic that reads the tables
//! lives in the parent module.

/// Binaries no template may run, whatever the host says (DESIGN §4), exactly as DESIGN lists
/// them. `mkfs*` is the one prefix rule: `mkfs`, `mkfs.ext4`, `mkfs.vfat`, ... are all denied.
///
/// | group | entries | why |
/// |---|---|---|
/// | destroyers | `rm` `rmdir` `shred` `dd` `mkfs*` `truncate` | delete or overwrite data beyond repair |
/// | privilege | `sudo` `su` `doas` `pkexec` | run a command as another (root) user |
/// | shells and runners | `sh` `bash` `zsh` `dash` `ksh` `fish` `csh` `tcsh` `env` `xargs` `nohup` `busybox` `eval` `exec` | run an arbitrary command line given as data |
/// | network | `curl` `wget` `nc` `ncat` `netcat` `socat` `ssh` `scp` `sftp` `telnet` | move workspace data off the machine, or fetch code |
/// | system | `kill` `pkill` `killall` `chmod` `chown` `chgrp` `mount` `umount` `reboot` `shutdown` `halt` `poweroff` `crontab` | change the machine beyond the workspace |
pub const DENIED_BINARIES: &[&str] = &[
    // destroyers
    "rm", "rmdir", "shred", "dd", "mkfs*", "truncate", //
    // privilege
    "sudo", "su", "doas", "pkexec", //
    // shells and command runners
    "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "env", "xargs", "nohup", "busybox",
    "eval", "exec", //
    // network exfiltration
    "curl", "wget", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "telnet", //
    // system
    "kill", "pkill", "killall", "chmod", "chown", "chgrp", "mount", "umount", "reboot", "shutdown",
    "halt", "poweroff", "crontab",
];

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
    // Destroyers under another name.
    ("unlink", "rm"),
    ("srm", "shred"),
    ("wipe", "shred"),
    ("wipefs", "mkfs*"),
    ("mke2fs", "mkfs*"),
    ("mkswap", "mkfs*"),
];

/// Why an entry of [`DENIED_BINARIES`] is denied, for error messages.
pub(crate) fn deny_reason(entry: &str) -> &'static str {
    match entry {
        "rm" | "rmdir" | "shred" | "dd" | "mkfs*" | "truncate" => {
            "it deletes or overwrites data beyond repair"
        }
        "sudo" | "su" | "doas" | "pkexec" => "it runs commands as another user",
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" | "csh" | "tcsh" | "env" | "xargs"
        | "nohup" | "busybox" | "eval" | "exec" => {
            "it runs an arbitrary command line given as data"
        }
        "curl" | "wget" | "nc" | "ncat" | "netcat" | "socat" | "ssh" | "scp" | "sftp"
        | "telnet" => "it moves data over the network",
        _ => "it changes the machine beyond the workspace",
    }
}
