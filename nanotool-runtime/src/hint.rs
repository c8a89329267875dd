//! What error messages share: "did you mean" suggestions (one edit distance, one ranking of
//! close names, one way to say it), the kind of a JSON value, and a list of names in
//! backticks. Every form and front end suggests through here, so the CLI, the MCP server, a
//! descriptor's loader and a call's validation name the same candidates for the same typo.
//!
//! ```
//! use nanotool_runtime::hint::{closest, did_you_mean};
//!
//! let names = ["grep", "find", "sed_print"];
//! assert_eq!(closest("gerp", names), ["grep"]);
//! assert_eq!(did_you_mean(&closest("sed", names)).unwrap(), "did you mean `sed_print`?");
//! assert!(closest("zzzzzz", names).is_empty());
//! ```

use serde_json::Value;

/// The longest name a tool can have (`^[A-Za-z0-9_-]{1,64}$`).
pub const MAX_TOOL_NAME_CHARS: usize = 64;

/// How many names a suggestion offers at the most.
pub const MAX_SUGGESTIONS: usize = 3;

/// The candidates closest to `wanted`, best first, at most [`MAX_SUGGESTIONS`]: those that
/// share a prefix or a substring with it (case folded), and those within a small edit
/// distance (a third of the longer name, at least one).
///
/// The work is bounded by the candidates, not by `wanted`: a `wanted` longer than any
/// candidate can be ([`MAX_TOOL_NAME_CHARS`], or the longest candidate if longer) gets no
/// suggestions and no comparison at all.
pub fn closest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    let longest = candidates
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(MAX_TOOL_NAME_CHARS);
    // A char is at most 4 bytes: the byte test first, so a huge name is never walked.
    if wanted.len() > 4 * longest || wanted.chars().count() > longest {
        return Vec::new();
    }
    let wanted_lc = wanted.to_lowercase();
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|name| {
            let lc = name.to_lowercase();
            let distance = edit_distance(&wanted_lc, &lc);
            let related = !wanted_lc.is_empty()
                && (lc.starts_with(&wanted_lc)
                    || wanted_lc.starts_with(&lc)
                    || lc.contains(&wanted_lc)
                    || wanted_lc.contains(&lc));
            let limit = (wanted_lc.chars().count().max(lc.chars().count()) / 3).max(1);
            if related {
                Some((distance.min(limit), name))
            } else if distance <= limit {
                Some((distance, name))
            } else {
                None
            }
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, n)| n)
        .collect()
}

/// `did you mean `a`?` for one name, `did you mean one of `a`, `b`?` for more, `None` for
/// none.
pub fn did_you_mean<S: AsRef<str>>(names: &[S]) -> Option<String> {
    match names {
        [] => None,
        [one] => Some(format!("did you mean `{}`?", one.as_ref())),
        many => Some(format!("did you mean one of {}?", backticked(many))),
    }
}

/// Names in backticks, separated by commas: `` `a`, `b` ``.
pub fn backticked<S: AsRef<str>>(names: &[S]) -> String {
    names
        .iter()
        .map(|n| format!("`{}`", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The kind of a JSON value, as an error message says it: `null`, `a boolean`, `a number`,
/// `a string`, `an array`, `an object`.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A path as written, with what it became when it starts with `~`: the folder and the `HOME`
/// it was read from, as a process started by an MCP client may have another `HOME` than the
/// user's shell (`` `~/.rustup` (`/root/.rustup`; `~` is HOME=/root) ``). A path without `~`
/// is shown as written.
///
/// ```
/// use nanotool_runtime::hint::resolved_path;
/// use std::path::Path;
///
/// let home = Some(Path::new("/home/ann"));
/// assert_eq!(
///     resolved_path("~/.cargo", Path::new("/home/ann/.cargo"), home),
///     "`~/.cargo` (`/home/ann/.cargo`; `~` is HOME=/home/ann)"
/// );
/// assert_eq!(resolved_path("/opt/go", Path::new("/opt/go"), home), "`/opt/go`");
/// ```
pub fn resolved_path(
    text: &str,
    resolved: &std::path::Path,
    home: Option<&std::path::Path>,
) -> String {
    match home {
        Some(home) if text.starts_with('~') => format!(
            "`{text}` (`{}`; `~` is HOME={})",
            resolved.display(),
            home.display()
        ),
        _ if text.starts_with('~') => format!("`{text}` (HOME is not set)"),
        _ => format!("`{text}`"),
    }
}

/// Optimal string alignment distance, case folded: insertions, deletions, substitutions and
/// swaps of neighbours (`gerp` is one step from `grep`).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_prefers_near_misses() {
        let names = ["grep", "find", "sed_print"];
        assert_eq!(closest("gerp", names), vec!["grep"]);
        assert_eq!(closest("sed", names), vec!["sed_print"]);
        assert!(closest("zzzzzz", names).is_empty());
    }

    #[test]
    fn a_name_longer_than_any_tool_name_gets_no_suggestion() {
        let long = "g".repeat(MAX_TOOL_NAME_CHARS + 1);
        assert!(closest(&long, ["g", "gg"]).is_empty());
    }

    #[test]
    fn distances() {
        assert_eq!(edit_distance("gerp", "grep"), 1);
        assert_eq!(edit_distance("Path", "pth"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn phrasing() {
        assert_eq!(did_you_mean::<&str>(&[]), None);
        assert_eq!(
            did_you_mean(&["a", "b"]).unwrap(),
            "did you mean one of `a`, `b`?"
        );
    }
}
