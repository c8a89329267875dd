//! Which descriptors declare `writes`, kept between processes, so that a call in a work folder
//! commands could reach loads the one descriptor it uses.
//!
//! The trust check asks who may write the work folder, and a descriptor that declares `writes`
//! is one: without this record a call there reads every descriptor to learn it. A full load
//! writes the record: a SHA-256 of every entry of the descriptor folder with its `stat`
//! (device, inode, size, modification and change times), and the tools that declare `writes`.
//! A later call that finds the same entries with the same `stat` takes the writers from the
//! record; any difference (a file added, removed, renamed or written: on a local file system a
//! write sets the change time, which no program can set back) loads everything again.
//!
//! A record is not written while any entry had changed within two seconds before the listing
//! (a file written in the same tick of the file system's clock as the `stat` would keep its
//! times: git's "racily clean" case), nor when the folder lists otherwise after the full load. Records live beside the approvals (`$XDG_STATE_HOME/nanotool/writers/`), out of
//! every command's reach, or are not used at all; past 256 of them the oldest half goes.

use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use super::{hex, write_whole};

/// How recent a change keeps a record from being written.
const RACY: Duration = Duration::from_secs(2);

/// Records kept before the oldest half is removed.
const KEPT: usize = 256;

/// The entries of a descriptor folder as a record compares them: a SHA-256 of each entry's
/// name and `stat`, in name order, and the newest change among them.
pub(crate) struct Listing {
    /// The folder, as listed (its real path).
    dir: PathBuf,
    digest: String,
    newest_change: SystemTime,
    /// When the listing began.
    taken: SystemTime,
}

impl Listing {
    /// The folder listed (its real path).
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Reads `dir`'s entries and their `stat` (not following links); `None` when the folder or
/// an entry cannot be read.
pub(crate) fn listing(dir: &Path) -> Option<Listing> {
    let taken = SystemTime::now();
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).ok()? {
        let entry = entry.ok()?;
        entries.push((entry.file_name(), entry.metadata().ok()?));
    }
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut newest_change = SystemTime::UNIX_EPOCH;
    let mut hash = Sha256::new();
    for (name, m) in &entries {
        let change = SystemTime::UNIX_EPOCH
            + Duration::new(
                u64::try_from(m.ctime()).ok()?,
                u32::try_from(m.ctime_nsec()).ok()?,
            );
        newest_change = newest_change.max(change).max(m.modified().ok()?);
        // A name holds no NUL: the byte ends it, and the numbers after it have a fixed width.
        hash.update(name.as_bytes());
        hash.update([0]);
        for n in [m.dev(), m.ino(), m.size()] {
            hash.update(n.to_le_bytes());
        }
        for n in [m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec()] {
            hash.update(n.to_le_bytes());
        }
    }
    Some(Listing {
        dir: dir.to_path_buf(),
        digest: hex(&hash.finalize()),
        newest_change,
        taken,
    })
}

/// The first line of a record of `dir`: the format and the folder.
fn header(dir: &Path) -> String {
    format!(
        "# nanotool {} writers of {}",
        env!("CARGO_PKG_VERSION"),
        dir.display()
    )
}

/// The record file of the descriptor folder `dir` (canonical) in `records`.
fn file_of(records: &Path, dir: &Path) -> PathBuf {
    records.join(hex(&Sha256::digest(dir.as_os_str().as_bytes())))
}

/// The tools of the folder `now` lists that declare `writes`, as recorded, when `now` is what
/// the record saw; `None` without a record or when anything differs.
pub(crate) fn recorded_writers(records: &Path, now: &Listing) -> Option<Vec<String>> {
    let dir = &now.dir;
    let text = std::fs::read_to_string(file_of(records, dir)).ok()?;
    let mut lines = text.lines();
    if lines.next()? != header(dir) || lines.next()?.strip_prefix("entries ")? != now.digest {
        return None;
    }
    lines
        .map(|line| line.strip_prefix("writes ").map(str::to_owned))
        .collect()
}

/// Records `writers` (the tools that declare `writes`) for the folder as `seen` listed it
/// before the descriptors were read, unless an entry had changed within two seconds of that
/// listing (a later change could keep its times), or the folder now lists otherwise (it
/// changed, or its path leads elsewhere, while the descriptors were read). A record that
/// cannot be written is left out: the next call loads everything again.
pub(crate) fn record(records: &Path, seen: &Listing, writers: &[String]) {
    let racy = seen
        .taken
        .duration_since(seen.newest_change)
        .map_or(true, |age| age < RACY);
    let changed = || listing(&seen.dir).is_none_or(|now| now.digest != seen.digest);
    if racy || writers.iter().any(|w| w.contains('\n')) || changed() {
        return;
    }
    let dir = &seen.dir;
    let mut text = format!("{}\nentries {}\n", header(dir), seen.digest);
    for tool in writers {
        let _ = writeln!(text, "writes {tool}");
    }
    if std::fs::create_dir_all(records).is_err() {
        return;
    }
    prune(records);
    let _ = write_whole(&file_of(records, dir), &text);
}

/// Past [`KEPT`] records, removes the oldest half.
fn prune(records: &Path) {
    let Ok(entries) = std::fs::read_dir(records) else {
        return;
    };
    let mut files: Vec<(SystemTime, PathBuf)> = entries
        .flatten()
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if files.len() < KEPT {
        return;
    }
    files.sort();
    for (_, path) in &files[..files.len() / 2] {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` folders with two descriptors each, their times two seconds and more in the past.
    fn settled(n: usize) -> Vec<tempfile::TempDir> {
        let dirs: Vec<_> = (0..n)
            .map(|_| {
                let dir = tempfile::tempdir().unwrap();
                for name in ["a.tool.json", "b.tool.json"] {
                    std::fs::write(dir.path().join(name), "{}").unwrap();
                }
                dir
            })
            .collect();
        std::thread::sleep(RACY + Duration::from_millis(100));
        dirs
    }

    #[test]
    fn a_record_holds_while_nothing_in_the_folder_changes() {
        let (dir, records) = (settled(1).remove(0), tempfile::tempdir().unwrap());
        let seen = listing(dir.path()).unwrap();
        assert_eq!(recorded_writers(records.path(), &seen), None);
        record(records.path(), &seen, &["b".to_owned()]);
        let now = listing(dir.path()).unwrap();
        assert_eq!(
            recorded_writers(records.path(), &now),
            Some(vec!["b".to_owned()])
        );
        // Another folder has no record.
        let other = tempfile::tempdir().unwrap();
        let theirs = listing(other.path()).unwrap();
        assert_eq!(recorded_writers(records.path(), &theirs), None);
    }

    #[test]
    fn any_change_to_an_entry_drops_the_record() {
        type Edit = (&'static str, fn(&Path));
        let edits: [Edit; 4] = [
            ("a file added", |d| {
                std::fs::write(d.join("c.tool.json"), "{}").unwrap()
            }),
            ("a file removed", |d| {
                std::fs::remove_file(d.join("a.tool.json")).unwrap()
            }),
            ("a file renamed", |d| {
                std::fs::rename(d.join("a.tool.json"), d.join("z.tool.json")).unwrap()
            }),
            // Same size, its modification time put back: the change time still moves.
            ("a file rewritten in place", |d| {
                let f = d.join("a.tool.json");
                let before = std::fs::metadata(&f).unwrap().modified().unwrap();
                std::fs::write(&f, "[]").unwrap();
                std::fs::File::options()
                    .write(true)
                    .open(&f)
                    .unwrap()
                    .set_modified(before)
                    .unwrap();
            }),
        ];
        for ((what, edit), dir) in edits.into_iter().zip(settled(4)) {
            let records = tempfile::tempdir().unwrap();
            let seen = listing(dir.path()).unwrap();
            record(records.path(), &seen, &[]);
            assert!(recorded_writers(records.path(), &listing(dir.path()).unwrap()).is_some());
            edit(dir.path());
            let now = listing(dir.path()).unwrap();
            assert_eq!(recorded_writers(records.path(), &now), None, "{what}");
        }
    }

    #[test]
    fn a_folder_that_just_changed_is_not_recorded() {
        let (dir, records) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::write(dir.path().join("a.tool.json"), "{}").unwrap();
        let seen = listing(dir.path()).unwrap();
        record(records.path(), &seen, &[]);
        assert_eq!(
            recorded_writers(records.path(), &listing(dir.path()).unwrap()),
            None
        );
    }

    #[test]
    fn a_folder_that_changed_while_it_was_read_is_not_recorded() {
        let (dir, records) = (settled(1).remove(0), tempfile::tempdir().unwrap());
        let seen = listing(dir.path()).unwrap();
        std::fs::write(dir.path().join("c.tool.json"), "{}").unwrap();
        record(records.path(), &seen, &[]);
        assert_eq!(recorded_writers(records.path(), &seen), None);
        let now = listing(dir.path()).unwrap();
        assert_eq!(recorded_writers(records.path(), &now), None);
    }

    #[test]
    fn past_the_limit_the_oldest_half_of_the_records_goes() {
        let records = tempfile::tempdir().unwrap();
        for i in 0..KEPT {
            std::fs::write(records.path().join(format!("r{i}")), "").unwrap();
        }
        prune(records.path());
        let left = std::fs::read_dir(records.path()).unwrap().count();
        assert_eq!(left, KEPT - KEPT / 2);
    }
}
