//! The protocol, in-process against hand-made tools: both eras (`initialize`,
//! `server/discover`, the per-request `_meta`), framing and malformed input, errors,
//! `tools/list` paging, the shape of `tools/call` results, and answers that stay small
//! whatever a client sends.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use nanotool::mcp::ServerOptions;
use serde_json::{Value, json};

use crate::common::{
    Harness, MODERN, Probe, error_code, host, legacy_harness, modern, reply_len, req,
};

#[test]
fn initialize_echoes_a_known_version_and_offers_the_latest_otherwise() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    let r = h.request(req(
        json!(1),
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}}),
    ));
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(r["result"]["capabilities"], json!({"tools": {}}));
    assert_eq!(r["result"]["serverInfo"]["name"], "nanotool");
    let r = h.request(req(
        json!(2),
        "initialize",
        json!({"protocolVersion": "1999-01-01", "capabilities": {}}),
    ));
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    let r = h.request(req(json!("p"), "ping", Value::Null));
    assert_eq!(r, json!({"jsonrpc": "2.0", "id": "p", "result": {}}));
}

#[test]
fn discover_answers_with_versions_capabilities_and_cache_hints() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    let r = h.request(modern(json!(1), "server/discover", Value::Null));
    let result = &r["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["supportedVersions"], json!([MODERN]));
    assert_eq!(result["capabilities"], json!({"tools": {}}));
    assert!(result["ttlMs"].as_u64().is_some());
    assert!(["public", "private"].contains(&result["cacheScope"].as_str().unwrap()));
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "nanotool"
    );
}

#[test]
fn modern_requests_need_meta_and_a_known_version() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    // No _meta and no initialize: -32602, saying what to add.
    let r = h.request(req(json!(1), "tools/list", Value::Null));
    assert_eq!(error_code(&r), -32602);
    let message = r["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("io.modelcontextprotocol/protocolVersion"),
        "{message}"
    );
    // server/discover without _meta: -32602 too.
    let r = h.request(req(json!(2), "server/discover", Value::Null));
    assert_eq!(error_code(&r), -32602);
    // A version without capabilities: -32602.
    let r = h.request(req(
        json!(3),
        "tools/list",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}),
    ));
    assert_eq!(error_code(&r), -32602);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("clientCapabilities")
    );
    // An unknown version: -32022 with what we speak and what was asked.
    let r = h.request(req(
        json!(4),
        "tools/list",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}),
    ));
    assert_eq!(error_code(&r), -32022);
    assert_eq!(
        r["error"]["data"],
        json!({"supported": [MODERN], "requested": "2099-01-01"})
    );
    // A handshake-era version is not served per request either.
    let r = h.request(req(
        json!(5),
        "server/discover",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25", "io.modelcontextprotocol/clientCapabilities": {}}}),
    ));
    assert_eq!(error_code(&r), -32022);
}

#[test]
fn malformed_frames_get_errors_and_the_server_keeps_serving() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    for (bad, code) in [
        (&b"{not json\n"[..], -32700),
        (b"\xff\xfe\n", -32700),
        (
            b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n",
            -32600,
        ),
        (b"42\n", -32600),
        (b"{\"id\":1,\"method\":\"ping\"}\n", -32600),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1}\n", -32600),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"ping\"}\n",
            -32600,
        ),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}\n", -32600),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":[1]}\n",
            -32602,
        ),
    ] {
        h.send_raw(bad);
        let r = h.recv();
        assert_eq!(
            error_code(&r),
            code,
            "for {:?}: {r}",
            String::from_utf8_lossy(bad)
        );
        assert!(!r["error"]["message"].as_str().unwrap().is_empty());
    }
    // Blank lines are ignored; the server still answers.
    h.send_raw(b"\n\r\n   \n");
    let r = h.request(req(json!(10), "ping", Value::Null));
    assert_eq!(r["id"], 10);
    assert_eq!(r["result"], json!({}));
}

#[test]
fn unknown_methods_are_method_not_found_and_notifications_get_no_answer() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    for method in [
        "resources/list",
        "prompts/list",
        "logging/setLevel",
        "subscriptions/listen",
        "nope",
    ] {
        let r = h.request(modern(json!(method), method, Value::Null));
        assert_eq!(error_code(&r), -32601, "{method}: {r}");
        assert_eq!(r["id"], method);
    }
    // Unknown notifications and a cancel for nothing: silence, then the next answer.
    h.send(json!({"jsonrpc": "2.0", "method": "notifications/whatever"}));
    h.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12345}}));
    h.send(json!({"jsonrpc": "2.0", "id": 5, "result": {}}));
    let r = h.request(req(json!(6), "ping", Value::Null));
    assert_eq!(r["id"], 6);
}

#[test]
fn oversized_lines_are_refused_without_ending_the_session() {
    let probe = Arc::new(Probe::default());
    let options = ServerOptions {
        max_line_bytes: 1024,
        ..ServerOptions::default()
    };
    let mut h = Harness::start(host(&probe, 0), options);
    // 64 KiB in pieces, no newline until the end.
    for _ in 0..64 {
        h.send_raw(&[b'x'; 1024]);
    }
    h.send_raw(b"\n");
    let r = h.recv();
    assert_eq!(error_code(&r), -32600);
    assert_eq!(r["id"], Value::Null);
    assert!(r["error"]["message"].as_str().unwrap().contains("1024"));
    let r = h.request(req(json!(1), "ping", Value::Null));
    assert_eq!(r["id"], 1);
    // An id before the limit is read, so the sender's request completes.
    for id in [json!("big-1"), json!(42)] {
        let head = format!(
            "{{\"jsonrpc\": \"2.0\", \"id\": {id}, \"method\": \"tools/call\", \"params\": {{\"arguments\": {{\"text\": \""
        );
        h.send_raw(head.as_bytes());
        h.send_raw(&[b'x'; 4096]);
        h.send_raw(b"\"}}}\n");
        let r = h.recv();
        assert_eq!(error_code(&r), -32600, "{r}");
        assert_eq!(r["id"], id, "{r}");
    }
    // An "id" nested in params, or after the limit, is not the request's id.
    let nested = format!(
        "{{\"params\": {{\"id\": 5, \"x\": \"{}\"}}, \"id\": 6}}\n",
        "y".repeat(2000)
    );
    h.send_raw(nested.as_bytes());
    let r = h.recv();
    assert_eq!(r["id"], Value::Null, "{r}");
}

#[test]
fn tools_list_pages_in_a_fixed_order_with_an_opaque_cursor() {
    let probe = Arc::new(Probe::default());
    let options = ServerOptions {
        page_size: 4,
        ..ServerOptions::default()
    };
    let mut h = Harness::start(host(&probe, 9), options);
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut params = json!({});
        if let Some(c) = &cursor {
            params["cursor"] = json!(c);
        }
        let r = h.request(modern(json!(pages), "tools/list", params));
        let result = &r["result"];
        assert_eq!(result["resultType"], "complete");
        assert!(result["ttlMs"].as_u64().is_some(), "{result}");
        assert!(result["cacheScope"].is_string());
        let tools = result["tools"].as_array().unwrap();
        assert!(tools.len() <= 4);
        for t in tools {
            names.push(t["name"].as_str().unwrap().to_owned());
            assert_eq!(t["inputSchema"]["type"], "object");
            // Results carry no `structuredContent` by default: no schema promises one.
            assert!(t.get("outputSchema").is_none(), "{t}");
        }
        pages += 1;
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, 4);
    let mut expected = vec!["echo", "refuse", "block", "overlap", "explode"]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
    expected.extend((0..9).map(|i| format!("extra_{i:02}")));
    assert_eq!(names, expected);
    // The same first page twice.
    let a = h.request(modern(json!("a"), "tools/list", Value::Null));
    let b = h.request(modern(json!("b"), "tools/list", Value::Null));
    assert_eq!(a["result"]["tools"], b["result"]["tools"]);
    // Bad cursors: -32602 saying what to send.
    for bad in [
        json!("nonsense"),
        json!("nt1.ff.0000000000000000"),
        json!(17),
        json!(""),
    ] {
        let r = h.request(modern(json!("bad"), "tools/list", json!({"cursor": bad})));
        assert_eq!(error_code(&r), -32602, "{bad}: {r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("nextCursor")
        );
    }
}

#[test]
fn legacy_results_carry_no_modern_fields() {
    let probe = Arc::new(Probe::default());
    let mut h = legacy_harness(&probe);
    let r = h.request(req(json!(1), "tools/list", Value::Null));
    assert!(r["result"]["tools"].is_array());
    assert!(r["result"].get("resultType").is_none());
    assert!(r["result"].get("ttlMs").is_none());
    let r = h.request(req(
        json!(2),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    ));
    assert_eq!(r["result"]["isError"], false);
    assert!(r["result"].get("resultType").is_none());
    // A request that repeats the negotiated version in `_meta` keeps the handshake rules.
    let r = h.request(req(
        json!(3),
        "tools/list",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25"}}),
    ));
    assert!(r["result"]["tools"].is_array(), "{r}");
    assert!(r["result"].get("resultType").is_none(), "{r}");
}

#[test]
fn tools_call_results_errors_and_refusals() {
    let probe = Arc::new(Probe::default());
    // By default a result is its text: the exit status and the output as lines, nothing
    // JSON-escaped for a client to show the model instead.
    let mut plain = Harness::start(host(&probe, 0), ServerOptions::default());
    let r = plain.request(modern(
        json!(1),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    ));
    assert_eq!(
        r["result"]["content"],
        json!([{"type": "text", "text": "exit: 0\noutput: {\"text\":\"hi\"}"}])
    );
    assert_eq!(r["result"]["isError"], false);
    assert!(r["result"].get("structuredContent").is_none(), "{r}");
    let r = plain.request(modern(json!(2), "tools/list", json!({})));
    assert!(r["result"]["tools"][0].get("outputSchema").is_none(), "{r}");
    // Asked for, structured results come beside the text, with their schema.
    let structured = ServerOptions {
        structured_content: true,
        ..ServerOptions::default()
    };
    let mut h = Harness::start(host(&probe, 0), structured);
    let r = h.request(modern(json!(0), "tools/list", json!({})));
    assert_eq!(
        r["result"]["tools"][0]["outputSchema"]["required"],
        json!(["exit_code", "output", "truncated", "timed_out", "confined"])
    );
    // A good call: text content and structured content matching the output schema.
    let r = h.request(modern(
        json!(1),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    ));
    let result = &r["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["isError"], false);
    assert_eq!(result["content"][0]["type"], "text");
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("hi")
    );
    assert_eq!(
        result["structuredContent"],
        json!({"exit_code": 0, "output": "{\"text\":\"hi\"}", "truncated": false, "timed_out": false, "confined": false})
    );
    // Arguments left out: an empty object.
    let r = h.request(modern(json!(2), "tools/call", json!({"name": "echo"})));
    assert_eq!(r["result"]["structuredContent"]["output"], "{}");
    // A refusal: isError, the 614 text, no structured content.
    let r = h.request(modern(
        json!(3),
        "tools/call",
        json!({"name": "refuse", "arguments": {"text": "x"}}),
    ));
    assert_eq!(r["result"]["isError"], true);
    assert!(
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("614")
    );
    assert!(r["result"].get("structuredContent").is_none());
    // Unknown tool: -32602 with the closest names.
    let r = h.request(modern(json!(4), "tools/call", json!({"name": "ecko"})));
    assert_eq!(error_code(&r), -32602);
    assert!(r["error"]["message"].as_str().unwrap().contains("`echo`"));
    assert_eq!(r["error"]["data"]["closest"], json!(["echo"]));
    // Bad params: -32602 each, saying what to write.
    for params in [
        json!({}),
        json!({"name": 5}),
        json!({"name": "echo", "arguments": [1, 2]}),
        json!({"name": "echo", "arguments": "text=hi"}),
    ] {
        let r = h.request(modern(json!(5), "tools/call", params.clone()));
        assert_eq!(error_code(&r), -32602, "{params}: {r}");
    }
    // A tool that panics: an internal error for that call, and the server lives on.
    let r = h.request(modern(json!(6), "tools/call", json!({"name": "explode"})));
    assert_eq!(error_code(&r), -32603);
    let r = h.request(modern(json!(7), "tools/call", json!({"name": "echo"})));
    assert_eq!(r["result"]["isError"], false);
}

#[test]
fn an_unknown_tool_name_of_four_million_characters_gets_a_short_answer_and_no_suggestions() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 40), ServerOptions::default());
    let name = "x".repeat(4_000_000);
    h.send(modern(json!(1), "tools/call", json!({"name": name})));
    // A ping right behind it is answered too.
    h.send(req(json!("p"), "ping", Value::Null));
    let r = h.recv();
    assert_eq!(r["id"], 1, "{}", &r.to_string()[..200.min(reply_len(&r))]);
    assert_eq!(error_code(&r), -32602);
    assert!(
        reply_len(&r) < 16 * 1024,
        "the reply echoes the name whole: {} bytes",
        reply_len(&r)
    );
    assert_eq!(r["error"]["data"]["closest"], json!([]));
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("4000000"), "{message}");
    let r = h.recv();
    assert_eq!(r["id"], "p");
    // A name longer than any tool name can be gets no suggestions, even when it contains one.
    let r = h.request(modern(
        json!(2),
        "tools/call",
        json!({"name": format!("echo{}", "o".repeat(100))}),
    ));
    assert_eq!(r["error"]["data"]["closest"], json!([]), "{r}");
    // A near miss still gets its suggestion.
    let r = h.request(modern(json!(3), "tools/call", json!({"name": "ecoh"})));
    assert_eq!(r["error"]["data"]["closest"], json!(["echo"]), "{r}");
    assert_eq!(probe.calls.load(Ordering::SeqCst), 0);
}

#[test]
fn suggestion_work_is_bounded_by_the_longest_tool_name() {
    // Cheap whatever the length: no edit distance over a name longer than any tool's.
    let names = ["grep", "find", "sed_print"];
    let long = "g".repeat(1_000_000);
    assert!(nanotool_runtime::hint::closest(&long, names).is_empty());
    assert!(nanotool_runtime::hint::closest(&format!("grep{}", "x".repeat(70)), names).is_empty());
    assert_eq!(nanotool_runtime::hint::closest("gerp", names), vec!["grep"]);
}

#[test]
fn a_frame_with_a_duplicate_key_is_refused_and_runs_nothing() {
    let probe = Arc::new(Probe::default());
    let mut h = Harness::start(host(&probe, 0), ServerOptions::default());
    h.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"method\":\"tools/list\"}\n");
    let r = h.recv();
    assert_eq!(error_code(&r), -32600, "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("`method`"), "{message}");
    assert!(message.contains("twice"), "{message}");
    // Nested too: two tool names, or two values of one argument.
    h.send_raw(
        format!(
            "{}\n",
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","name":"refuse","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#
        )
        .as_bytes(),
    );
    assert_eq!(error_code(&h.recv()), -32600);
    h.send_raw(
        format!(
            "{}\n",
            r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","text":"b"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#
        )
        .as_bytes(),
    );
    assert_eq!(error_code(&h.recv()), -32600);
    assert_eq!(probe.calls.load(Ordering::SeqCst), 0);
    // The session goes on.
    let r = h.request(req(json!(12), "ping", Value::Null));
    assert_eq!(r["result"], json!({}));
}
