//! One module per subcommand; each has a `run` that returns the exit status.

pub(crate) mod call;
pub(crate) mod check;
pub(crate) mod list;
pub(crate) mod schema;
pub(crate) mod serve;
