//! `adapters::rig`: nanotool tools called through rig's `ToolSet`, without any model. The
//! definitions carry the MCP input schema; each row of the error mapping answers what the
//! module documents; a bad call reads the same 614 text as over `nanotool serve`; an unknown
//! name is rig's own not-found error, with nanotool's suggestions; dropping rig's future kills
//! the command's process group; a panicking tool never takes down the runtime.
//!
//! Waits are hang detectors (generous watchdogs that fail the test), never timing claims.

use nanotool::adapters::rig::rig_agent::tool::ToolSet;
use nanotool::adapters::rig::rig_core::message::ToolName;
use nanotool::adapters::rig::rig_core::tool::{
    DynamicTool, ToolContext as RigContext, ToolErrorKind, ToolOutput as RigOutput, ToolResult,
};
use nanotool::adapters::rig::{
    add_tools, dynamic_tool, dynamic_tools, error_of, result_of, tool_set, with_suggestions,
};
use nanotool::{
    Access, CallError, CommandExecKernel, CommandSpec, CommandTool, KernelSettings, SlotKind,
    SlotSpec, Tool, ToolContext, ToolOutput, Toolbox,
};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// A death or a result that has not come after this long is a hang.
#[path = "../../tests/common/group.rs"]
mod group;
use group::{assert_group_dies, proc_stat, wait_for_pids};

const WATCHDOG: Duration = Duration::from_secs(20);

/// A tool that runs `argv` in the kernel, as a command that writes in its folder.
struct Runs {
    name: &'static str,
    argv: &'static [&'static str],
}

impl Tool for Runs {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "Run a fixed command"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn access(&self) -> Access {
        Access {
            writes: true,
            network: false,
            ..Access::READ_ONLY
        }
    }
    fn call(&self, _args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        let argv: Vec<String> = self.argv.iter().map(|s| (*s).to_owned()).collect();
        ToolOutput::from_exec(ctx.kernel.run_as(&argv, self.access(), ctx.cancel))
    }
}

/// Starts a group member in the background, writes the leader's and the member's pids to
/// `pids` (the leader's `$$` is the group's id), then sleeps: only a cancel or a timeout ends
/// it.
const HANG: Runs = Runs {
    name: "hang",
    argv: &[
        "sh",
        "-c",
        "sleep 100 & echo $$ $! > pids.tmp; mv pids.tmp pids; sleep 100",
    ],
};

/// A tool that panics.
struct Panics;

impl Tool for Panics {
    fn name(&self) -> &str {
        "panics"
    }
    fn description(&self) -> &str {
        "Panic"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn call(&self, _args: &Value, _ctx: &ToolContext<'_>) -> ToolOutput {
        panic!("the tool broke");
    }
}

fn toolbox_in(dir: &Path, timeout: Duration) -> Toolbox {
    let kernel = CommandExecKernel::new(KernelSettings {
        cwd: dir.to_path_buf(),
        timeout,
        ..KernelSettings::default()
    })
    .unwrap();
    let mut toolbox = Toolbox::new(kernel);
    toolbox
        .register(CommandTool::new(
            CommandSpec::new(
                "count_lines",
                "Count the lines of a file",
                "wc -l <file>",
                vec![SlotSpec::new("file", SlotKind::Path, "The file")],
            )
            .unwrap(),
        ))
        .unwrap();
    toolbox.register(HANG).unwrap();
    toolbox.register(Panics).unwrap();
    toolbox
        .register(Runs {
            name: "fails",
            argv: &["sh", "-c", "echo oops; exit 3"],
        })
        .unwrap();
    toolbox
        .register(Runs {
            name: "missing",
            argv: &["nanotool-test-no-such-binary"],
        })
        .unwrap();
    toolbox
}

fn fixture() -> (tempfile::TempDir, Arc<Toolbox>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("three.txt"), "a\nb\nc\n").unwrap();
    let toolbox = Arc::new(toolbox_in(dir.path(), Duration::from_secs(30)));
    (dir, toolbox)
}

async fn execute(set: &ToolSet, name: &str, args: Value) -> ToolResult {
    set.execute(name, args.to_string(), &mut RigContext::new())
        .await
}

fn text(result: &ToolResult) -> &str {
    result.output().as_text().expect("a text output")
}

// --- definitions ---

#[test]
fn the_tool_set_lists_every_tool_with_the_mcp_input_schema() {
    let (_dir, toolbox) = fixture();
    let set = tool_set(Arc::clone(&toolbox));
    let mcp = toolbox.mcp_tools();
    let definitions = set.tool_definitions();
    assert_eq!(definitions.len(), mcp.len());
    let names: Vec<&str> = set.names().collect();
    assert_eq!(
        names,
        ["count_lines", "hang", "panics", "fails", "missing"],
        "the toolbox's order"
    );
    for (definition, mcp) in definitions.iter().zip(&mcp) {
        assert_eq!(definition.name.to_string(), mcp["name"].as_str().unwrap());
        assert_eq!(definition.description, mcp["description"].as_str().unwrap());
        assert_eq!(definition.parameters, mcp["inputSchema"]);
    }
    assert_eq!(
        definitions[0].parameters["properties"]["file"]["type"],
        "string"
    );
}

#[test]
fn add_tools_keeps_the_hosts_own_tools() {
    let (_dir, toolbox) = fixture();
    let mut set = ToolSet::default();
    set.add_dynamic_tool(DynamicTool::new(
        ToolName::new("echo").unwrap(),
        "Echo the arguments",
        json!({"type": "object"}),
        |args| Box::pin(async move { Ok(RigOutput::json(args)) }),
    ));
    let added = add_tools(&mut set, Arc::clone(&toolbox));
    assert_eq!(added, ["count_lines", "hang", "panics", "fails", "missing"]);
    let names: Vec<&str> = set.names().collect();
    assert_eq!(
        names,
        ["echo", "count_lines", "hang", "panics", "fails", "missing"]
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let echo = execute(&set, "echo", json!({"x": 1})).await;
        assert_eq!(echo.output().as_json(), Some(&json!({"x": 1})));
        let count = execute(&set, "count_lines", json!({"file": "three.txt"})).await;
        assert!(count.is_success(), "{count:?}");
    });
}

#[test]
fn dynamic_tool_of_an_unknown_name_has_nanotools_suggestions() {
    let (_dir, toolbox) = fixture();
    let error = dynamic_tool(&toolbox, "count_line").unwrap_err();
    assert_eq!(error.suggestions, ["count_lines"]);
    assert_eq!(dynamic_tools(&toolbox).len(), toolbox.tools().len());
}

// --- the mapping, row by row ---

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn success_is_the_text_nanotool_serve_shows() {
    let (_dir, toolbox) = fixture();
    let set = tool_set(Arc::clone(&toolbox));
    let args = json!({"file": "three.txt"});
    let result = execute(&set, "count_lines", args.clone()).await;
    assert!(result.is_success(), "{result:?}");
    let served = toolbox.call("count_lines", &args, None).unwrap();
    assert_eq!(text(&result), served.text);
    assert!(text(&result).starts_with("exit: 0\n"), "{}", text(&result));
    assert!(text(&result).contains("3 ./three.txt"), "{}", text(&result));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_read_the_same_614_text_as_nanotool_serve_and_are_retryable() {
    let (_dir, toolbox) = fixture();
    let set = tool_set(Arc::clone(&toolbox));
    for args in [
        json!({"file": "/etc/shadow"}),
        json!({"file": "../outside"}),
        json!({}),
        json!({"file": "three.txt", "extra": 1}),
        json!({"file": 3}),
        json!([1]),
    ] {
        let result = execute(&set, "count_lines", args.clone()).await;
        // What `nanotool serve` answers: `Toolbox::call`'s output, as MCP text.
        let served = toolbox.call("count_lines", &args, None).unwrap();
        assert_eq!(served.code, Some(614), "{args}: {}", served.text);
        assert!(result.is_error(), "{args}: {result:?}");
        assert_eq!(text(&result), served.text, "{args}");
        assert!(text(&result).starts_with("error 614: "), "{args}");
        let error = result.error().unwrap();
        assert_eq!(error.kind(), ToolErrorKind::InvalidArgs, "{args}");
        assert_eq!(error.retryable(), Some(true), "{args}");
        assert_eq!(error.code(), Some("614"), "{args}");
        assert_eq!(error.message(), served.text, "{args}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hosts_deny_list_holds_through_rig() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("three.txt"), "a\nb\nc\n").unwrap();
    let mut toolbox = toolbox_in(dir.path(), Duration::from_secs(30));
    toolbox.deny_binaries(["wc"]);
    let toolbox = Arc::new(toolbox);
    let set = tool_set(Arc::clone(&toolbox));
    let args = json!({"file": "three.txt"});
    let result = execute(&set, "count_lines", args.clone()).await;
    let served = toolbox.call("count_lines", &args, None).unwrap();
    assert_eq!(served.code, Some(614), "{}", served.text);
    assert_eq!(text(&result), served.text);
    assert!(text(&result).contains("wc"), "{}", text(&result));
    assert_eq!(result.error().unwrap().retryable(), Some(true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_command_is_an_error_with_its_exit_code_and_output() {
    let (_dir, toolbox) = fixture();
    let set = tool_set(Arc::clone(&toolbox));
    let result = execute(&set, "fails", json!({})).await;
    assert_command_error(&result, 3, "output: oops", ToolErrorKind::Other);
}

/// `result` is rig's not-retryable error of kind `kind` for a command that ended with
/// `exit`, its model-visible text nanotool's (starting `exit: <exit>`, holding `words`),
/// its code the exit code.
fn assert_command_error(result: &ToolResult, exit: i32, words: &str, kind: ToolErrorKind) {
    assert!(result.is_error(), "{result:?}");
    let text = text(result);
    assert!(text.starts_with(&format!("exit: {exit}\n")), "{text}");
    assert!(text.contains(words), "{text}");
    let error = result.error().unwrap();
    assert_eq!(error.kind(), kind);
    assert_eq!(error.retryable(), Some(false));
    assert_eq!(error.code(), Some(exit.to_string().as_str()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_that_could_not_start_is_not_retryable() {
    let (_dir, toolbox) = fixture();
    let set = tool_set(Arc::clone(&toolbox));
    let result = execute(&set, "missing", json!({})).await;
    assert_command_error(&result, 127, "could not start", ToolErrorKind::Other);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_command_is_a_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let toolbox = Arc::new(toolbox_in(dir.path(), Duration::from_millis(300)));
    let set = tool_set(Arc::clone(&toolbox));
    let result = tokio::time::timeout(WATCHDOG, execute(&set, "hang", json!({})))
        .await
        .expect("the kernel's timeout ends the call");
    assert_command_error(&result, 124, "timed out after", ToolErrorKind::Timeout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_command_is_cancelled() {
    // rig has no handle on a running call but its future (dropped: nothing answers), so the
    // cancelled output comes from nanotool's own cancel handle.
    let (dir, toolbox) = fixture();
    let call = toolbox.call_async("hang", json!({}));
    let path = dir.path().to_path_buf();
    tokio::task::spawn_blocking(move || wait_for_pids(&path))
        .await
        .unwrap();
    call.cancel_handle().cancel();
    let output = tokio::time::timeout(WATCHDOG, call)
        .await
        .expect("a cancel ends the call")
        .unwrap();
    let error = result_of(&output).unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::Cancelled);
    assert_eq!(error.retryable(), Some(false));
    assert_eq!(error.code(), Some("130"));
    assert_eq!(error.model_feedback(), Some(output.text.as_str()));
    assert!(
        output.text.starts_with("exit: 130\ncancelled\n"),
        "{}",
        output.text
    );
}

#[test]
fn the_rows_without_a_command() {
    // A tool that failed without running a command and without a code.
    let failed = ToolOutput::failed("the tool cannot run: no config".into());
    let error = result_of(&failed).unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::Other);
    assert_eq!(error.retryable(), Some(false));
    assert_eq!(
        error.model_feedback(),
        Some("the tool cannot run: no config")
    );
    // A code other than 614 is no refusal to retry.
    let coded = ToolOutput {
        code: Some(613),
        ..ToolOutput::failed("error 613: bad descriptor".into())
    };
    let error = result_of(&coded).unwrap_err();
    assert_eq!(error.kind(), ToolErrorKind::Other);
    assert_eq!(error.retryable(), Some(false));
    assert_eq!(error.code(), Some("613"));
    // A call whose worker never ran: nothing ran, so it may be tried again.
    let error = error_of(&CallError::NotRun { tool: "t".into() });
    assert_eq!(error.kind(), ToolErrorKind::Other);
    assert_eq!(error.retryable(), Some(true));
    assert_eq!(error.code(), Some("not_run"));
    assert!(
        error
            .model_feedback()
            .unwrap()
            .starts_with("tool `t` was never run")
    );
    // An unknown name met by a DynamicTool's own call: not found, with suggestions.
    let (_dir, toolbox) = fixture();
    let unknown = toolbox.position("count_line").unwrap_err();
    let error = error_of(&CallError::UnknownTool(unknown));
    assert_eq!(error.kind(), ToolErrorKind::NotFound);
    assert_eq!(
        error.model_feedback(),
        Some("unknown tool `count_line`; did you mean `count_lines`?")
    );
}

// --- unknown names ---

#[tokio::test(flavor = "current_thread")]
async fn an_unknown_tool_is_rigs_not_found_with_nanotools_suggestions() {
    let (_dir, toolbox) = fixture();
    let set = tool_set(Arc::clone(&toolbox));
    let result = execute(&set, "count_line", json!({})).await;
    let error = result.error().expect("rig answers an error").clone();
    assert_eq!(error.kind(), ToolErrorKind::NotFound);
    let result = with_suggestions(&toolbox, "count_line", result);
    assert_eq!(
        text(&result),
        "tool `count_line` not found; did you mean `count_lines`?"
    );
    // Still rig's own error: its kind, its message, its policy.
    let suggested = result.error().unwrap();
    assert_eq!(suggested.kind(), ToolErrorKind::NotFound);
    assert_eq!(suggested.message(), error.message());
    assert_eq!(suggested.retryable(), error.retryable());

    // Nothing close: rig's answer as it is.
    let result = execute(&set, "zzzzzzzzzz", json!({})).await;
    let before = text(&result).to_owned();
    let result = with_suggestions(&toolbox, "zzzzzzzzzz", result);
    assert_eq!(text(&result), before);
    // Any other result is untouched.
    let ok = execute(&set, "count_lines", json!({"file": "three.txt"})).await;
    let ok = with_suggestions(&toolbox, "count_lines", ok);
    assert!(ok.is_success());
}

// --- panics and cancellation ---

#[tokio::test(flavor = "current_thread")]
async fn a_panicking_tool_is_an_error_and_the_runtime_goes_on() {
    let (_dir, toolbox) = fixture();
    let set = tool_set(Arc::clone(&toolbox));
    let result = execute(&set, "panics", json!({})).await;
    assert_eq!(text(&result), "tool `panics` panicked: the tool broke");
    let error = result.error().unwrap();
    assert_eq!(error.kind(), ToolErrorKind::Other);
    assert_eq!(error.code(), Some("panicked"));
    assert_eq!(error.retryable(), Some(false));
    // The same (only) runtime thread runs tasks and further calls.
    assert_eq!(tokio::spawn(async { 7 }).await.unwrap(), 7);
    let again = execute(&set, "count_lines", json!({"file": "three.txt"})).await;
    assert!(again.is_success(), "{again:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_rigs_future_kills_the_process_group() {
    let (dir, toolbox) = fixture();
    let set = tool_set(Arc::clone(&toolbox));
    let path = dir.path().to_path_buf();
    let mut pids = tokio::task::spawn_blocking(move || wait_for_pids(&path));
    let mut call = Box::pin(execute(&set, "hang", json!({})));
    // Drop the call once its command has started (it writes its pids), however long that
    // takes on a busy machine.
    let (pgid, member) = tokio::select! {
        _ = &mut call => panic!("the hanging call returned"),
        started = &mut pids => started.unwrap(),
    };
    drop(call);
    tokio::task::spawn_blocking(move || assert_group_dies(pgid))
        .await
        .unwrap();
    // The background member is dead too (a zombie at most: `kill(-pgid, 0)` still finds a
    // zombie until whoever adopted it reaps it, so it is not the test).
    assert!(proc_stat(member).is_none_or(|(s, _)| s == 'Z' || s == 'X'));
}
