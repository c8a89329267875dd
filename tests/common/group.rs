//! Watching a command's process group from outside, through /proc: the tests that drop or
//! cancel a call check that its group is gone (`tests/async_call.rs`, and the rig adapter's
//! tests, which include this file by path).

use std::path::Path;
use std::time::{Duration, Instant};

/// How long a wait here may take before the test fails as hung.
const WATCHDOG: Duration = Duration::from_secs(20);

/// (state, pgrp) of a process, from /proc/<pid>/stat.
pub fn proc_stat(pid: i32) -> Option<(char, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// Live (neither zombie nor dead) processes in group `pgid`.
pub fn group_members(pgid: i32) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| matches!(proc_stat(pid), Some((s, g)) if g == pgid && s != 'Z' && s != 'X'))
        .collect()
}

/// Waits for the `pids` file a test's `hang` tool writes in `dir`: (leader = pgid, member).
pub fn wait_for_pids(dir: &Path) -> (i32, i32) {
    let file = dir.join("pids");
    let until = Instant::now() + WATCHDOG;
    loop {
        // The file may exist before its line is written: wait for both numbers.
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let pids: Vec<i32> = text
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
        if let [pgid, member] = pids[..] {
            return (pgid, member);
        }
        assert!(Instant::now() < until, "the command never started");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits (hang detector) until no live process is left in group `pgid`.
pub fn assert_group_dies(pgid: i32) {
    let until = Instant::now() + WATCHDOG;
    loop {
        let members = group_members(pgid);
        if members.is_empty() {
            return;
        }
        assert!(
            Instant::now() < until,
            "process group {pgid} still has live members {members:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
