//! `nanotool schema`: the tool definitions as JSON, in one provider's format.

use nanotool::Toolbox;
use serde_json::Value;

use crate::cli::Format;
use crate::report::{Failure, print_json};

pub(crate) fn run(toolbox: &Toolbox, format: Format) -> Result<u8, Failure> {
    let defs = match format {
        Format::Mcp => toolbox.mcp_tools(),
        Format::Openai => toolbox.openai_tools(false),
        Format::Anthropic => toolbox.anthropic_tools(),
    };
    print_json(&Value::Array(defs))
}
