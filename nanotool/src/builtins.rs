//! The built-in tools every host has (see docs/ARCHITECTURE.md), written with `#[command_tool]` like any
//! user's tool: [`Grep`], [`Find`] and [`SedPrint`]; [`all`] gives them as [`Tool`]s.
//!
//! ```
//! use nanotool::builtins::{self, Grep};
//! use nanotool::{CommandStruct, Tool, WorkPath};
//!
//! let names: Vec<String> = builtins::all().iter().map(|t| t.name().to_owned()).collect();
//! assert_eq!(names, ["grep", "find", "sed_print"]);
//!
//! let call = Grep { pattern: "fn_main".into(), path: WorkPath::from(".") };
//! let argv = call.argv(std::path::Path::new(".")).unwrap();
//! assert_eq!(argv.as_slice(), ["grep", "-rn", "--exclude-dir=.git", "fn_main", "."]);
//! ```

use crate::{CommandStruct, Tool, WorkPath, command_tool};
use std::sync::Arc;

/// Search file contents in the workspace, recursively, and print each matching line with its
/// file name and line number (`grep -rn`, skipping `.git` folders). Exit code 1 means nothing
/// matched.
#[command_tool(
    "grep -rn --exclude-dir=.git <pattern> <path>",
    exit_codes(1 = "no match")
)]
#[derive(Debug, Clone, PartialEq)]
pub struct Grep {
    /// The text or basic regular expression to search for
    pub pattern: String,
    /// The directory or file to search, relative to the workspace (default: the whole workspace)
    #[slot(default = ".")]
    pub path: WorkPath,
}

/// Find files in the workspace whose name matches a glob (`find <path> -name <pattern>`), and
/// print their paths.
#[command_tool("find <path> -name <pattern>")]
#[derive(Debug, Clone, PartialEq)]
pub struct Find {
    /// The directory to search, relative to the workspace (default: the whole workspace)
    #[slot(default = ".")]
    pub path: WorkPath,
    /// The file name glob to match, such as `*.rs` or `Cargo.toml`
    pub pattern: String,
}

/// Print a range of lines of one file (`sed -n <range>p <path>`).
#[command_tool("sed -n <range>p <path>")]
#[derive(Debug, Clone, PartialEq)]
pub struct SedPrint {
    /// The lines to print: one line number (`12`) or a range (`10,20`)
    #[slot(pattern = r"^\d+(,\d+)?$")]
    pub range: String,
    /// The file to print from, relative to the workspace
    pub path: WorkPath,
}

/// Every built-in tool, in a fixed order: `grep`, `find`, `sed_print`.
pub fn all() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(Grep::tool()),
        Arc::new(Find::tool()),
        Arc::new(SedPrint::tool()),
    ]
}
