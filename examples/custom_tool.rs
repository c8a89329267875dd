//! A user-defined command tool: typed fields, an enum, a default and a pattern, run through
//! the kernel; then an injection attempt, refused before anything runs.
//!
//! `cargo run --example custom_tool`

use nanotool::{
    CommandExecKernel, CommandStruct, KernelSettings, SlotEnum, Tool, ToolContext, WorkPath,
    command_tool,
};
use serde_json::json;

/// Which end of the file to show.
#[derive(SlotEnum, Debug, Clone, Copy)]
pub enum End {
    /// The first lines (`head`).
    #[slot(value = "-n")]
    Lines,
    /// The first bytes.
    #[slot(value = "-c")]
    Bytes,
}

/// Show the start of a file in the workspace, by lines or by bytes.
#[command_tool("head <unit> <count> <file>", name = "show_start")]
pub struct ShowStart {
    /// Count lines (`-n`) or bytes (`-c`)
    #[slot(default = "-n")]
    pub unit: End,
    /// How many lines or bytes to show
    #[slot(minimum = 1, maximum = 500)]
    pub count: u32,
    /// The file to show, relative to the workspace
    #[slot(default = "Cargo.toml")]
    pub file: WorkPath,
}

/// Print lines of a file by number: one line (`7`) or a range (`3,9`).
#[command_tool("sed -n <range>p <file>", name = "print_range")]
pub struct PrintRange {
    /// A line number or `start,end`
    #[slot(pattern = r"^\d+(,\d+)?$")]
    pub range: String,
    /// The file to print from
    pub file: WorkPath,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let kernel = CommandExecKernel::new(KernelSettings {
        cwd: env!("CARGO_MANIFEST_DIR").into(),
        ..KernelSettings::default()
    })?;

    // A typed call: the values go through the same validation as a JSON call.
    let result = ShowStart {
        unit: End::Lines,
        count: 3,
        file: WorkPath::from("Cargo.toml"),
    }
    .run(&kernel)?;
    println!("show_start (typed):\n{}\n", result.text());

    // A JSON call, as a model would make it, through the `Tool` trait.
    let ctx = ToolContext {
        kernel: &kernel,
        cancel: None,
    };
    let tool = PrintRange::tool();
    println!("schema: {}\n", tool.input_schema());
    let out = tool.call(&json!({"range": "1,2", "file": "Cargo.toml"}), &ctx);
    println!("print_range (JSON):\n{}\n", out.text);

    // An injection: GNU sed's `e` command would run a program. The pattern refuses it.
    let out = tool.call(&json!({"range": "1e id", "file": "Cargo.toml"}), &ctx);
    println!(
        "print_range (injection): is_error={} code={:?}\n{}",
        out.is_error, out.code, out.text
    );
    assert!(out.is_error && out.exec.is_none());
    Ok(())
}
