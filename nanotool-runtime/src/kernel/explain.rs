//! The line that explains a refusal the sandbox may have caused: when a confined command fails
//! and its output shows a refusal (`Permission denied`, `Read-only file system`, `Operation
//! not permitted`, a missing `/proc`), the result carries one line saying what this tool may
//! not do and how its author or host could allow it. The output cannot prove the sandbox was
//! the cause (a file's own mode says `Permission denied` too), so the line says "may".
//!
//! One exit status counts as a refusal shown: 243, which is `EACCES` as libuv numbers it
//! (-13) and what npm and other Node programs exit with when an uncaught `EACCES` ends them
//! — npm does so before it has set up its own error output, so nothing else would show.

use super::sandbox::Access;

/// What kind of refusal an output shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// `Read-only file system`, `EROFS`.
    ReadOnly,
    /// `Permission denied`, `EACCES`, `Errno 13`.
    Denied,
    /// `Operation not permitted`, `EPERM`, `Errno 1`.
    NotPermitted,
    /// A program that found no `/proc`.
    Proc,
}

/// The exit status of a Node program ended by an uncaught `EACCES` (`process.exit(err.errno)`
/// with libuv's -13).
const EXIT_NODE_EACCES: i32 = 256 - libc::EACCES;

/// The refusals `output` shows, first seen first.
fn refusals(output: &str) -> Vec<Refusal> {
    let mut found = Vec::new();
    let mut see = |r| {
        if !found.contains(&r) {
            found.push(r);
        }
    };
    for line in output.lines() {
        if line.contains("Read-only file system") || line.contains("EROFS") {
            see(Refusal::ReadOnly);
        }
        if line.contains("Permission denied")
            || line.contains("EACCES")
            || line.contains("Errno 13]")
        {
            see(Refusal::Denied);
        }
        if line.contains("Operation not permitted")
            || line.contains("EPERM")
            || line.contains("Errno 1]")
        {
            see(Refusal::NotPermitted);
        }
        if line.contains("mount -t proc")
            || line.contains("/proc/") && line.contains("No such file")
        {
            see(Refusal::Proc);
        }
    }
    found
}

/// The explanation line for a confined command of profile `access` that failed with
/// `exit_code` and `output`, or `None` when neither shows a refusal the sandbox could have
/// caused.
pub(super) fn sandbox_note(output: &str, exit_code: i32, access: Access) -> Option<String> {
    let mut found = refusals(output);
    let mut shown_by = "its output shows";
    if exit_code == EXIT_NODE_EACCES && !found.contains(&Refusal::Denied) {
        found.push(Refusal::Denied);
        shown_by = "its exit 243 (how a Node program such as npm ends on an uncaught `EACCES`, permission denied) shows";
    }
    if found.is_empty() {
        return None;
    }
    let mut may_not: Vec<String> = Vec::new();
    let mut push = |what: String| {
        if !may_not.contains(&what) {
            may_not.push(what);
        }
    };
    let offline = !access.network && !access.local_network;
    for refusal in &found {
        match refusal {
            Refusal::ReadOnly | Refusal::Denied => {
                if !access.writes {
                    push("write in the workspace (its author can declare `\"writes\": true`)".into());
                }
                push(
                    "read or write outside the workspace and its private home and temp dir (the host can add a path with `--sandbox-read DIR` or `--sandbox-write DIR`)"
                        .into(),
                );
                if *refusal == Refusal::Denied && offline {
                    push(network_item());
                }
            }
            Refusal::NotPermitted => {
                if offline {
                    push(network_item());
                }
                push("use unix sockets, signal or trace processes outside its call, or change modes and owners (nothing allows these)".into());
            }
            Refusal::Proc => push(
                "see other processes: /proc is closed to commands, since it would show the agent's environment and memory (nothing allows it; such a tool cannot be confined)"
                    .into(),
            ),
        }
    }
    Some(format!(
        "sandbox: this command ran confined and {shown_by} a refusal the sandbox may have caused; this tool may not {}",
        may_not.join("; nor ")
    ))
}

fn network_item() -> String {
    "use the network, not even 127.0.0.1 (its author can declare `\"network\": \"local\"` for a private loopback of its own, or `\"network\": true` for TCP and UDP anywhere)".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_names_what_would_allow_it() {
        let read_only = Access::READ_ONLY;
        let note = sandbox_note(
            "error: failed to create .ruff_cache: Permission denied (os error 13)",
            1,
            read_only,
        )
        .unwrap();
        assert!(note.contains("\"writes\": true"), "{note}");
        assert!(note.contains("--sandbox-read DIR"), "{note}");
        assert!(note.contains("may have caused"), "{note}");
        let writes = Access {
            writes: true,
            ..Access::READ_ONLY
        };
        let note =
            sandbox_note("OSError: [Errno 30] Read-only file system: '/x'", 1, writes).unwrap();
        assert!(!note.contains("\"writes\""), "{note}");
        let note = sandbox_note(
            "PermissionError: [Errno 13] Permission denied",
            1,
            read_only,
        )
        .unwrap();
        assert!(note.contains("\"network\": \"local\""), "{note}");
        let note = sandbox_note("Error, do this: mount -t proc proc /proc", 1, read_only).unwrap();
        assert!(note.contains("/proc"), "{note}");
        assert_eq!(
            sandbox_note("FAILED tests/test_x.py::t - AssertionError", 1, read_only),
            None
        );
        assert_eq!(sandbox_note("", 1, writes), None);
    }

    #[test]
    fn a_node_program_that_died_of_eacces_silently_is_explained() {
        let read_only = Access::READ_ONLY;
        let note = sandbox_note("", 243, read_only).unwrap();
        assert!(note.contains("--sandbox-read DIR"), "{note}");
        assert!(note.contains("exit 243"), "{note}");
        assert_eq!(sandbox_note("", 1, read_only), None);
        assert_eq!(sandbox_note("", 255, read_only), None);
    }
}
