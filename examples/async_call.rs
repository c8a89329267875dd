//! nanotool tools in a tokio program: `Toolbox::call_async` runs each call off the runtime's
//! threads; a timeout around the future drops it, which kills the command's process group; the
//! call's cancel handle ends it with an output the model can read.
//!
//! `cargo run --example async_call`

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
    let mut toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings {
        cwd: env!("CARGO_MANIFEST_DIR").into(),
        ..KernelSettings::default()
    })?);
    toolbox.register(CountLines::tool())?;
    toolbox.register(Wait::tool())?;
    let toolbox = Arc::new(toolbox);

    // A call as a future; on tokio's blocking pool here, a thread of its own by default.
    let out = toolbox
        .call_async_with("count_lines", json!({"file": "Cargo.toml"}), |job| {
            tokio::task::spawn_blocking(job);
        })
        .await?;
    println!("count_lines:\n{}\n", out.text);

    // A hung call under a timeout: when the timeout fires, the future is dropped, and dropping
    // it kills `sleep` and anything it started.
    let started = Instant::now();
    let call = toolbox.call_async("wait", json!({"seconds": 587}));
    match tokio::time::timeout(Duration::from_millis(300), call).await {
        Ok(out) => return Err(format!("the 587 s wait returned: {out:?}").into()),
        Err(_) => println!(
            "wait 587 s: timed out after {} ms; the future was dropped, the command killed\n",
            started.elapsed().as_millis()
        ),
    }

    // The same through the call's cancel handle: the output says what happened.
    let call = toolbox.call_async("wait", json!({"seconds": 60}));
    let cancel = call.cancel_handle().clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let out = call.await?;
    println!(
        "wait 60 s, cancelled: is_error={}\n{}",
        out.is_error, out.text
    );
    assert!(out.text.starts_with("exit: 130\ncancelled"));
    Ok(())
}
