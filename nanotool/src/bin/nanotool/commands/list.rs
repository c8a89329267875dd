//! `nanotool list`: the tools with their descriptions (or as JSON), and the sandbox status.

use serde_json::{Value, json};

use nanotool::Toolbox;

use crate::assembly::warn_unreadable;
use crate::report::{Failure, print_json, write_stdout};

pub(crate) fn run(toolbox: &Toolbox, json: bool) -> Result<u8, Failure> {
    let tools = toolbox.tools();
    if json {
        let status = toolbox.kernel().sandbox_status();
        // What holds for every tool alike: the line, and each promise that does not hold.
        let sandbox = json!({
            "status": status.to_string(),
            "enforced": status.enforced(),
            "not_confined": status
                .not_holding()
                .iter()
                .map(|p| json!({"what": p.what, "needs": p.needs, "agent_safety": p.agent_safety}))
                .collect::<Vec<_>>(),
        });
        let items: Vec<Value> = tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name(),
                    "description": t.description(),
                    "input_schema": t.input_schema(),
                    "writes": t.access().writes,
                    "network": t.access().network,
                    "sandbox": sandbox,
                })
            })
            .collect();
        return print_json(&Value::Array(items));
    }
    let width = tools.iter().map(|t| t.name().len()).max().unwrap_or(0);
    let mut text = String::new();
    for t in tools {
        let description = t
            .description()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        text.push_str(&format!("{:width$}  {description}\n", t.name()));
    }
    if tools.is_empty() {
        text.push_str("no tools\n");
    }
    text.push_str(&format!("{}\n", toolbox.kernel().sandbox_status()));
    text.push_str(&format!("{}\n", toolbox.kernel().limits_status()));
    write_stdout(&text)?;
    warn_unreadable(toolbox);
    Ok(0)
}
