//! nanotool tools as rig tools: a rig `ToolSet` with a tool of the host's own (`echo`) plus
//! nanotool's, called by name as an agent would, without any model. A refused call is an error
//! the model reads and may retry; an unknown name is rig's not-found with nanotool's
//! suggestions; a timeout around rig's future drops it, which kills the command.
//!
//! `cargo run -p nanotool --features rig --example rig_tools`

use nanotool::adapters::rig::rig_agent::tool::ToolSet;
use nanotool::adapters::rig::rig_core::message::ToolName;
use nanotool::adapters::rig::rig_core::tool::{DynamicTool, ToolContext, ToolOutput};
use nanotool::adapters::rig::{add_tools, with_suggestions};
use nanotool::{CommandExecKernel, CommandStruct, KernelSettings, Toolbox, WorkPath, command_tool};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Count the lines of a file in the workspace.
#[command_tool("wc -l <file>")]
pub struct CountLines {
    /// The file, relative to the workspace
    pub file: WorkPath,
}

/// Wait for a number of seconds (a stand-in for a slow build or test run).
#[command_tool("sleep <seconds>", name = "wait")]
pub struct Wait {
    /// How long to wait
    #[slot(minimum = 1, maximum = 600)]
    pub seconds: u32,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings::default())?);
    toolbox.register(CountLines::tool())?;
    toolbox.register(Wait::tool())?;
    let toolbox = Arc::new(toolbox);

    // The host's own tool, then nanotool's, in one set.
    let mut tools = ToolSet::default();
    tools.add_dynamic_tool(DynamicTool::new(
        ToolName::new("echo")?,
        "Echo the arguments",
        json!({"type": "object"}),
        |args| Box::pin(async move { Ok(ToolOutput::json(args)) }),
    ));
    add_tools(&mut tools, Arc::clone(&toolbox));
    println!("tools: {}", tools.names().collect::<Vec<_>>().join(", "));
    for definition in tools.tool_definitions() {
        println!("  {}: {}", definition.name, definition.parameters);
    }

    let mut context = ToolContext::new();
    let result = tools
        .execute("count_lines", r#"{"file": "Cargo.toml"}"#, &mut context)
        .await;
    println!(
        "\ncount_lines: {}\n{}",
        result.status_name(),
        result.output().as_text().unwrap_or_default()
    );

    // A refused call: the model reads nanotool's 614 text, marked retryable.
    let result = tools
        .execute("count_lines", r#"{"file": "/etc/passwd"}"#, &mut context)
        .await;
    let error = result.error().ok_or("the call was not refused")?;
    println!(
        "\nrefused: kind={} retryable={:?} code={:?}\n{}",
        error.kind(),
        error.retryable(),
        error.code(),
        result.output().as_text().unwrap_or_default()
    );

    // An unknown name: rig's own not-found, with nanotool's suggestions.
    let result = tools.execute("count_line", "{}", &mut context).await;
    let result = with_suggestions(&toolbox, "count_line", result);
    println!(
        "\nunknown: {}",
        result.output().as_text().unwrap_or_default()
    );

    // A timeout around rig's future: dropping it kills `sleep`.
    let started = Instant::now();
    let call = tools.execute("wait", r#"{"seconds": 593}"#, &mut context);
    match tokio::time::timeout(Duration::from_millis(300), call).await {
        Ok(result) => return Err(format!("the 593 s wait returned: {result:?}").into()),
        Err(_) => println!(
            "\nwait 593 s: timed out after {} ms; the future was dropped, the command killed",
            started.elapsed().as_millis()
        ),
    }
    Ok(())
}
