"""A scripted model on loopback: the Anthropic Messages API and the OpenAI Responses API,
streamed, as Claude Code and Codex CLI call them.

The script is one tool call: the first request whose tools include a tool named like
`tool` (an MCP tool's name as the client spells it: `mcp__nanotool__grep`, ...) is answered
with a call of it with `arguments`; the request that carries its result is answered with
text. Every request is kept, so a test reads what the client sent the model: the tools as the
model sees them and the tool's result as the model reads it. Any other request (a title, a
quota probe) gets a short text answer.
"""

import gzip
import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Script:
    def __init__(self, tool, arguments):
        self.tool = tool
        self.arguments = arguments
        self.requests = []  # (path, body) of every request
        self.lock = threading.Lock()

    def on_result(self):
        """Called when a request carries the scripted call's result, before it is answered."""

    def tool_name(self, names):
        """The client's name for the scripted tool among `names`, or None."""
        for name in names:
            if name == self.tool or name.endswith("__" + self.tool) or name.endswith("." + self.tool):
                return name
        return None


def _sse(handler, events):
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("cache-control", "no-cache")
    handler.send_header("connection", "close")
    handler.end_headers()
    handler.close_connection = True
    for name, data in events:
        chunk = ""
        if name:
            chunk += f"event: {name}\n"
        chunk += f"data: {json.dumps(data)}\n\n"
        handler.wfile.write(chunk.encode())
        handler.wfile.flush()


def _anthropic_result(messages):
    """The tool_result blocks of the last user message, if any (system messages may follow it)."""
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if not users:
        return []
    content = users[-1].get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def _anthropic(handler, script, body):
    names = [t.get("name", "") for t in body.get("tools") or []]
    tool = script.tool_name(names)
    msg_id = "msg_" + uuid.uuid4().hex[:20]
    model = body.get("model", "scripted")
    events = [("message_start", {"type": "message_start", "message": {
        "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}})]
    if _anthropic_result(body.get("messages") or []):
        script.on_result()
    if tool and not _anthropic_result(body.get("messages") or []):
        events += [
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
                "type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": tool, "input": {}}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(script.arguments)}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ]
        stop = "tool_use"
    else:
        events += [
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "text_delta", "text": "done"}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ]
        stop = "end_turn"
    events += [
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    if body.get("stream"):
        _sse(handler, events)
    else:
        # The same message, whole.
        content = []
        for _, e in events:
            if e["type"] == "content_block_start":
                content.append(dict(e["content_block"]))
            elif e["type"] == "content_block_delta":
                d = e["delta"]
                if d["type"] == "text_delta":
                    content[-1]["text"] += d["text"]
                else:
                    content[-1]["input"] = json.loads(d["partial_json"])
        reply = dict(events[0][1]["message"], content=content, stop_reason=stop)
        data = json.dumps(reply).encode()
        handler.send_response(200)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


def _responses_result(items):
    return [i for i in items or [] if isinstance(i, dict) and i.get("type") == "function_call_output"]


def _responses_tool_names(tools):
    names = []
    for t in tools or []:
        if t.get("type") == "function":
            names.append(t.get("name") or (t.get("function") or {}).get("name", ""))
        elif t.get("type") == "namespace":
            # A namespace of tools (an MCP server's): its tools under the namespace's name.
            for inner in t.get("tools") or []:
                names.append(f"{t.get('name')}.{inner.get('name')}")
    return names


def _responses(handler, script, body):
    tool = script.tool_name(_responses_tool_names(body.get("tools")))
    resp_id = "resp_" + uuid.uuid4().hex[:20]
    base = {"id": resp_id, "object": "response", "model": body.get("model", "scripted"), "output": []}
    events = [("response.created", {"type": "response.created", "response": dict(base, status="in_progress")})]
    if _responses_result(body.get("input")):
        script.on_result()
    if tool and not _responses_result(body.get("input")):
        namespace, _, name = tool.rpartition(".")
        item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:20],
                "call_id": "call_" + uuid.uuid4().hex[:20], "name": name,
                "arguments": json.dumps(script.arguments), "status": "completed"}
        if namespace:
            item["namespace"] = namespace
    else:
        item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:20], "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "done", "annotations": []}]}
    events += [
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": dict(
            base, status="completed", output=[item],
            usage={"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                   "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                   "total_tokens": 15})}),
    ]
    _sse(handler, events)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _body(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("content-encoding") == "gzip":
            raw = gzip.decompress(raw)
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {}

    def do_POST(self):
        body = self._body()
        script = self.server.script
        with script.lock:
            script.requests.append((self.path, body))
        path = self.path.split("?")[0]
        if path.endswith("/messages/count_tokens"):
            self._json({"input_tokens": 10})
        elif path.endswith("/messages"):
            _anthropic(self, script, body)
        elif path.endswith("/responses"):
            _responses(self, script, body)
        else:
            self._json({}, 404)

    def do_GET(self):
        with self.server.script.lock:
            self.server.script.requests.append((self.path, None))
        path = self.path.split("?")[0]
        if path.endswith("/models"):
            self._json({"data": [], "object": "list", "models": []})
        else:
            self._json({}, 404)

    def _json(self, value, status=200):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def serve(script):
    """Starts the model on a free loopback port; returns (server, base URL)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.script = script
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
