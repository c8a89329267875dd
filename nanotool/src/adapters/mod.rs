//! nanotool tools inside the Rust agent frameworks, each behind its own feature (off by
//! default): `rmcp` (an MCP server built on the official Rust SDK) and `rig` (rig's dynamic
//! tools in a rig `ToolSet`). Every call goes through [`Toolbox::call_async`](crate::Toolbox::call_async) (so
//! through [`Toolbox::call`](crate::Toolbox::call): the host's deny list holds), and dropping
//! or cancelling the framework's call kills the command's process group.

#[cfg(feature = "rig")]
pub mod rig;
#[cfg(feature = "rmcp")]
pub mod rmcp;
