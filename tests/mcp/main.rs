//! The MCP server's tests, one file per class, with one `common` module:
//!
//! | module | what it tests |
//! |---|---|
//! | `protocol` | in-process: both eras, framing and malformed input, errors, paging, result shapes |
//! | `calls` | in-process: concurrency, cancellation, EOF, unique ids, memory budgets, the log pipe |
//! | `binary` | `nanotool serve` end to end: stdout purity, signals, killing commands, not dumpable |
//! | `python_sdk` | `nanotool serve` driven by the official MCP Python SDK, both eras |
//! | `rmcp_adapter` | `adapters::rmcp` driven by rmcp and the Python SDK (feature `rmcp`) |
//! | `common` | hand-made tools and host, the in-process harness, JSON-RPC helpers, the SDK clients' runner |

mod binary;
mod calls;
mod common;
mod progress;
mod protocol;
mod python_sdk;
#[cfg(feature = "rmcp")]
mod rmcp_adapter;
