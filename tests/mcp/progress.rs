//! Progress of a long call: `notifications/progress` for a request that carries a
//! `progressToken`, counted and ordered (increasing, never after the result), none for a
//! request without a token, none after a cancel; the message holds the last complete output
//! line with misleading characters shown, never raw.

use std::sync::Arc;
use std::time::Duration;

use nanotool::mcp::ServerOptions;
use nanotool::{Tool, ToolContext, ToolOutput};
use serde_json::{Value, json};

use crate::common::{Harness, TestHost, modern, req};

/// Runs its `script` argument with `sh -c` through the kernel (a test tool: the kernel takes
/// any argv; only the template forms refuse a shell).
struct Script;

impl Tool for Script {
    fn name(&self) -> &str {
        "script"
    }
    fn description(&self) -> &str {
        "runs a shell script"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"script": {"type": "string", "description": "sh -c"}}})
    }
    fn call(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        let script = args["script"].as_str().unwrap_or("true").to_owned();
        let argv = ["sh".to_owned(), "-c".to_owned(), script];
        let result = match ctx.cancel {
            Some(cancel) => ctx.kernel.run_cancellable(&argv, cancel),
            None => ctx.kernel.run(&argv),
        };
        ToolOutput {
            text: result.output.clone(),
            output_at: Some(0),
            is_error: result.exit_code != 0,
            code: None,
            exit_meaning: None,
            exec: Some(result),
            argv: None,
        }
    }
}

fn harness() -> Harness {
    let kernel = nanotool::CommandExecKernel::new(nanotool::KernelSettings::default()).unwrap();
    let tools: Vec<Arc<dyn Tool>> = vec![Arc::new(Script)];
    Harness::start(
        Arc::new(TestHost { tools, kernel }),
        ServerOptions::default(),
    )
}

fn call(id: &str, script: &str, token: Option<Value>) -> Value {
    let mut m = modern(
        json!(id),
        "tools/call",
        json!({"name": "script", "arguments": {"script": script}}),
    );
    if let Some(token) = token {
        m["params"]["_meta"]["progressToken"] = token;
    }
    m
}

fn is_progress(v: &Value) -> bool {
    v["method"] == "notifications/progress"
}

#[test]
fn a_call_with_a_token_reports_progress_in_order_and_never_after_its_result() {
    let mut h = harness();
    // A line with a bidi override, then a quiet second; four seconds in all.
    let script = r"echo first; sleep 1.5; printf 'evil\342\200\256txt\n'; sleep 2.5; echo done";
    h.send(call("long", script, Some(json!("tok-1"))));
    let mut seen = Vec::new();
    let result = loop {
        let m = h.recv();
        if is_progress(&m) {
            seen.push(m);
        } else {
            break m;
        }
    };
    assert_eq!(result["id"], "long", "{result}");
    assert_eq!(result["result"]["isError"], false, "{result}");
    assert!(
        seen.len() >= 2,
        "too few notifications in a 4 s call: {seen:?}"
    );
    let mut last = -1;
    for n in &seen {
        assert_eq!(n["params"]["progressToken"], "tok-1", "{n}");
        assert!(n.get("id").is_none(), "a notification has no id: {n}");
        let p = n["params"]["progress"].as_i64().expect("a number");
        assert!(p > last, "progress must increase: {seen:?}");
        last = p;
        let message = n["params"]["message"].as_str().unwrap();
        assert!(message.starts_with("running for "), "{message}");
        assert!(
            !message.contains('\u{202e}'),
            "a raw bidi override reached the model"
        );
    }
    assert!(
        seen.iter().any(|n| n["params"]["message"]
            .as_str()
            .unwrap()
            .ends_with("last line: evilU+202Etxt")),
        "the last line is shown with its override escaped: {seen:?}"
    );
    // Nothing follows the result.
    assert_eq!(h.try_recv(Duration::from_millis(2500)), None);
}

#[test]
fn a_call_without_a_token_gets_only_its_result() {
    let mut h = harness();
    h.send(call("quiet", "echo a; sleep 2.5; echo b", None));
    let m = h.recv();
    assert_eq!(m["id"], "quiet", "the first message is the result: {m}");
    // A token that is neither a string nor a number is no token either.
    h.send(call("odd", "sleep 2.5", Some(json!({"a": 1}))));
    let m = h.recv();
    assert_eq!(m["id"], "odd", "{m}");
    assert_eq!(h.try_recv(Duration::from_millis(1500)), None);
}

#[test]
fn no_progress_after_a_cancel() {
    let mut h = harness();
    h.send(call("c", "echo start; sleep 60", Some(json!(7))));
    let first = h.recv();
    assert!(is_progress(&first), "{first}");
    assert_eq!(first["params"]["progressToken"], 7);
    h.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "c"}}));
    // The ping's answer is written after the cancel was handled; notifications may come
    // before it, none after it, and no result for the cancelled call.
    h.send(req(
        json!("p"),
        "ping",
        json!({"_meta": crate::common::modern_meta()}),
    ));
    loop {
        let m = h.recv();
        if m["id"] == "p" {
            break;
        }
        assert!(
            is_progress(&m),
            "only progress may come before the ping's answer: {m}"
        );
    }
    assert_eq!(h.try_recv(Duration::from_millis(2500)), None);
}
