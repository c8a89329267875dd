//! pass: enum value query.
use nanotool::{CommandStruct, SlotEnum, WorkPath, command_tool};

/// Canned queries: the author's text, spaces, quotes and `;` included.
#[derive(SlotEnum)]
pub enum Query {
    /// The tables.
    #[slot(value = "SELECT name FROM sqlite_master WHERE type = 'table';")]
    V0,
    /// A check.
    #[slot(value = "PRAGMA integrity_check;")]
    V1,
}

/// Runs a command.
#[command_tool("sqlite3 -readonly <db> <query>")]
pub struct EnumValueQuery {
    /// The db
    pub db: WorkPath,
    /// The query
    pub query: Query,
}

pub fn main() {
    let spec = EnumValueQuery::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "sqlite3 -readonly <db> <query>");
    let call = EnumValueQuery { db: WorkPath::from("app.db"), query: Query::V0 };
    let argv = call.argv(std::path::Path::new(".")).unwrap();
    assert_eq!(
        argv.as_slice(),
        ["sqlite3", "-readonly", "./app.db", "SELECT name FROM sqlite_master WHERE type = 'table';"]
    );
}
