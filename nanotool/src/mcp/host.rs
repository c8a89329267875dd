//! What a server serves: the [`ToolHost`] trait (the tools, and how one of them is called),
//! and its implementation for a [`Toolbox`].

use std::sync::Arc;

use nanotool_runtime::{CancelHandle, Tool, ToolOutput, Toolbox, export};
use serde_json::Value;

/// The tools a server offers, and how one of them is called.
///
/// [`Toolbox`] implements it; a host with its own registry may too.
pub trait ToolHost: Send + Sync {
    /// Every tool, in a fixed order (the order `tools/list` pages through).
    fn tools(&self) -> &[Arc<dyn Tool>];
    /// Where the tool named `name` stands in [`ToolHost::tools`] (by default, a scan): the
    /// one lookup of a call.
    fn position(&self, name: &str) -> Option<usize> {
        self.tools().iter().position(|t| t.name() == name)
    }
    /// Runs one call of the tool at `index` in [`ToolHost::tools`]; `cancel` fires when the
    /// client cancels it.
    fn call(&self, index: usize, args: &Value, cancel: &CancelHandle) -> ToolOutput;
    /// The MCP definitions of [`ToolHost::tools`], in the same order (by default each with
    /// the `outputSchema` of a command's result: [`export::mcp_definition`]).
    fn definitions(&self) -> Vec<Value> {
        self.tools()
            .iter()
            .map(|t| export::mcp_definition(t.as_ref(), true))
            .collect()
    }
}

impl ToolHost for Toolbox {
    fn tools(&self) -> &[Arc<dyn Tool>] {
        Toolbox::tools(self)
    }

    fn position(&self, name: &str) -> Option<usize> {
        Toolbox::position(self, name).ok()
    }

    fn call(&self, index: usize, args: &Value, cancel: &CancelHandle) -> ToolOutput {
        // Through the toolbox, which also applies its deny list at call time.
        Toolbox::call_at(self, index, args, Some(cancel))
    }

    fn definitions(&self) -> Vec<Value> {
        self.mcp_tools()
    }
}
