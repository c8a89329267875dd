"""`nanotool serve` driven by the agent CLIs people use (Claude Code, Codex CLI), each talking
to a scripted model on loopback (model_server.py). The assertions are on what reaches the
model: the tools as it sees them, each result as it reads it, and on what the user sees.

    python3 tests/clients/run.py NANOTOOL CLAUDE CODEX

Prints one line per check (`ok` or `FAIL`), then `clients: N passed, N failed`; exits 1 on
any failure. scripts/test-clients installs the clients and runs this.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import model_server

HERE = os.path.dirname(os.path.abspath(__file__))


def sleeping(marker):
    """Whether a process `sleep MARKER` runs (any user's, any namespace this one sees)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv[:2] == [b"sleep", str(marker).encode()] or (
            len(argv) >= 2 and argv[0].endswith(b"/sleep") and argv[1] == str(marker).encode()
        ):
            return True
    return False


class Setup:
    """A project folder to search, a work folder with descriptors and a config, a client home."""

    def __init__(self, config=None, serve_flags=()):
        self.serve_flags = list(serve_flags)
        self.root = tempfile.mkdtemp(prefix="nanotool-clients.")
        self.project = os.path.join(self.root, "project")
        self.work = os.path.join(self.root, "work")
        self.home = os.path.join(self.root, "home")
        os.makedirs(os.path.join(self.project, "src"))
        os.makedirs(os.path.join(self.work, "tools"))
        os.makedirs(self.home)
        with open(os.path.join(self.project, "src", "main.rs"), "w") as f:
            f.write("// the entry point\nfn main() {\n    println!(\"hello \\\"world\\\"\");\n}\n")
        with open(os.path.join(self.project, "notes.txt"), "w") as f:
            f.write("".join(f"note line {i}\n" for i in range(1, 201)))
        for src in os.listdir(os.path.join(HERE, "tools")):
            shutil.copy(os.path.join(HERE, "tools", src), os.path.join(self.work, "tools", src))
        if config is not None:
            with open(os.path.join(self.work, "config.json"), "w") as f:
                f.write(config)

    def server_args(self):
        return ["serve", "--work", self.work, "--cwd", self.project] + self.serve_flags

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


class Outcome:
    """What one client run left: the model's requests, the client's output and its logs."""

    def __init__(self, script, returncode, stdout, stderr, logs):
        self.script = script
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.logs = logs


class Claude:
    name = "claude-code"

    def __init__(self, binary):
        self.binary = binary

    def run(self, nanotool, setup, script, prompt, tool_timeout_s=None, wait=120):
        server, url = model_server.serve(script)
        config = os.path.join(setup.root, "mcp.json")
        with open(config, "w") as f:
            json.dump({"mcpServers": {"nanotool": {"command": nanotool, "args": setup.server_args()}}}, f)
        env = dict(
            os.environ,
            HOME=setup.home,
            ANTHROPIC_BASE_URL=url,
            ANTHROPIC_API_KEY="scripted",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_TELEMETRY="1",
            # The tools in the first request (not behind its ToolSearch), the server
            # connected before it.
            ENABLE_TOOL_SEARCH="false",
            MCP_CONNECTION_NONBLOCKING="false",
        )
        if tool_timeout_s is not None:
            env["MCP_TOOL_TIMEOUT"] = str(int(tool_timeout_s * 1000))
        argv = [self.binary, "-p", prompt, "--mcp-config", config, "--strict-mcp-config",
                "--allowedTools", "mcp__nanotool", "--output-format", "json", "--bare", "--debug"]
        try:
            return _run(argv, setup.project, env, script, wait, lambda: _files_under(setup.home))
        finally:
            server.shutdown()


class Codex:
    name = "codex"

    def __init__(self, binary):
        self.binary = binary

    def run(self, nanotool, setup, script, prompt, tool_timeout_s=None, wait=120):
        server, url = model_server.serve(script)
        codex_home = os.path.join(setup.home, ".codex")
        os.makedirs(codex_home, exist_ok=True)
        args = ", ".join(json.dumps(a) for a in setup.server_args())
        extra = f"tool_timeout_sec = {tool_timeout_s}\n" if tool_timeout_s is not None else ""
        with open(os.path.join(codex_home, "config.toml"), "w") as f:
            f.write(
                'model = "scripted"\nmodel_provider = "scripted"\napproval_policy = "never"\n'
                f'[model_providers.scripted]\nname = "scripted"\nbase_url = "{url}/v1"\n'
                'wire_api = "responses"\n'
                f'[mcp_servers.nanotool]\ncommand = {json.dumps(nanotool)}\nargs = [{args}]\n{extra}'
            )
        env = dict(os.environ, HOME=setup.home, CODEX_HOME=codex_home)
        argv = [self.binary, "exec", "--skip-git-repo-check", prompt]
        try:
            return _run(argv, setup.project, env, script, wait, lambda: _files_under(codex_home))
        finally:
            server.shutdown()


def _files_under(folder):
    """The text of every log-like file under `folder`, joined."""
    text = []
    for dirpath, _, files in os.walk(folder):
        for name in files:
            if name.endswith((".txt", ".jsonl", ".log")):
                try:
                    with open(os.path.join(dirpath, name), errors="replace") as f:
                        text.append(f.read())
                except OSError:
                    pass
    return "\n".join(text)


def _run(argv, cwd, env, script, wait, logs):
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=err, start_new_session=True)
        try:
            code = proc.wait(wait)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            code = "timed out"
        out.seek(0)
        err.seek(0)
        return Outcome(script, code, out.read(), err.read(), logs())


# What the model read: one tool result as text, and whether the client marked it an error.


def result_of(client, outcome):
    """(text, is_error) of the scripted call's result as the model received it, or None."""
    for _, body in outcome.script.requests:
        if not body:
            continue
        if client.name == "claude-code":
            for message in body.get("messages") or []:
                content = message.get("content")
                if message.get("role") != "user" or not isinstance(content, list):
                    continue
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        inner = block.get("content")
                        if isinstance(inner, list):
                            inner = "".join(b.get("text", "") for b in inner if isinstance(b, dict))
                        return inner or "", bool(block.get("is_error"))
        else:
            for item in body.get("input") or []:
                if isinstance(item, dict) and item.get("type") == "function_call_output":
                    output = item.get("output")
                    if isinstance(output, list):
                        output = "\n".join(b.get("text", "") for b in output if isinstance(b, dict))
                    return output or "", None
    return None


def tools_of(client, outcome):
    """The nanotool tools of the first request that had them: {name: (description, schema)}."""
    for _, body in outcome.script.requests:
        if not body:
            continue
        found = {}
        for tool in body.get("tools") or []:
            if client.name == "claude-code" and tool.get("name", "").startswith("mcp__nanotool__"):
                found[tool["name"][len("mcp__nanotool__"):]] = (tool.get("description"), tool.get("input_schema"))
            elif tool.get("type") == "namespace" and tool.get("name") == "mcp__nanotool":
                for inner in tool.get("tools") or []:
                    found[inner["name"]] = (inner.get("description"), inner.get("parameters"))
        if found:
            return found
    return {}


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, label, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"ok   {label}")
        else:
            self.failed += 1
            print(f"FAIL {label}: {detail}")
        sys.stdout.flush()


def scenario_tools_and_call(checks, client, nanotool):
    """The tools as the model sees them, then a call whose output is read as lines."""
    setup = Setup()
    try:
        script = model_server.Script("grep", {"pattern": "l", "path": "."})
        out = client.run(nanotool, setup, script, "which lines have an l?")
        label = f"{client.name}: "
        tools = tools_of(client, out)
        checks.check(label + "the model is offered the built-in and descriptor tools",
                     {"grep", "find", "sed_print", "count_lines", "nap"} <= set(tools),
                     f"offered {sorted(tools)}; client said {out.stderr[-1500:]!r}")
        desc, schema = tools.get("grep", (None, None))
        checks.check(label + "grep's schema reaches the model: its slots, the required one, the description",
                     bool(schema) and set(schema.get("properties", {})) == {"pattern", "path"}
                     and schema.get("required") == ["pattern"] and "grep -rn" in (desc or ""),
                     f"got {json.dumps(schema)} / {desc!r}")
        # What the client keeps of the slots' constraints (nanotool checks every argument
        # against its own schema whatever the client passes on): said, not asserted.
        kept = {key for _, (_, schema) in tools.items() if schema
                for prop in (schema.get("properties") or {}).values() for key in prop}
        dropped = sorted({"default", "minimum", "maximum", "pattern", "enum"} - kept)
        print(f"     ({client.name} passes the model slot keys {sorted(kept)}; drops {dropped or 'none'})")
        result = result_of(client, out)
        checks.check(label + "the call's result reaches the model", result is not None,
                     f"requests: {len(out.script.requests)}; stderr {out.stderr[-1500:]!r}")
        if result is None:
            return
        text, is_error = result
        lines = text.split("\n")
        missing = [i for i in range(1, 201)
                   if not any(line.endswith(f"notes.txt:{i}:note line {i}") for line in lines)]
        quoted = 'main.rs:3:    println!("hello \\"world\\"");'
        checks.check(label + "the output is read as lines: 200 lines of a file, one per line, quotes as written",
                     not missing and any(line.endswith(quoted) for line in lines),
                     f"lines {missing[:5]}... not found as lines, or {quoted!r} not found, in {text[:600]!r}")
        checks.check(label + "the exit status is read first, the output not wrapped in JSON",
                     "exit: 0" in lines[:3] and '"output"' not in text and '"exit_code"' not in text,
                     f"the model read {text[:600]!r}")
        checks.check(label + "a successful call is not an error", is_error in (False, None), f"is_error {is_error}")
    finally:
        setup.close()


def scenario_result_size(checks, client, nanotool):
    """What the model reads of a 200-line output: characters with nanotool's default (text)
    against `serve --structured-content` (the clients then show the model that JSON)."""
    sizes = {}
    for flags in ((), ("--structured-content",)):
        setup = Setup(serve_flags=flags)
        try:
            script = model_server.Script("sed_print", {"range": "1,200", "path": "notes.txt"})
            result = result_of(client, client.run(nanotool, setup, script, "print the notes"))
            sizes[flags] = result[0] if result else None
        finally:
            setup.close()
    text, structured = sizes[()], sizes[("--structured-content",)]
    if text is not None and structured is not None:
        print(f"     ({client.name} hands the model {len(text)} characters for 200 lines, "
              f"{len(structured)} with --structured-content: {len(text) / len(structured):.2f}x)")
    checks.check(f"{client.name}: a 200-line output costs the model fewer characters as text than as JSON, "
                 "and only the JSON escapes its newlines",
                 text is not None and structured is not None and len(text) < len(structured)
                 and "\\n" not in text and "\\n" in structured,
                 f"text {text and text[:200]!r}, structured {structured and structured[:200]!r}")


def scenario_no_match(checks, client, nanotool):
    """grep's status 1 is an answer: said in the text, not an error."""
    setup = Setup()
    try:
        script = model_server.Script("grep", {"pattern": "no-such-text-anywhere", "path": "."})
        out = client.run(nanotool, setup, script, "is there any mention of it?")
        result = result_of(client, out)
        label = f"{client.name}: grep finding nothing "
        checks.check(label + "reads as `exit: 1 (no match)` and is not an error",
                     result is not None and "exit: 1 (no match)" in result[0] and result[1] in (False, None),
                     f"the model read {result!r}")
    finally:
        setup.close()


def scenario_refusal(checks, client, nanotool):
    """A path outside the workspace is refused; the model reads nanotool's reason and code."""
    setup = Setup()
    try:
        script = model_server.Script("sed_print", {"range": "1,5", "path": "/etc/passwd"})
        out = client.run(nanotool, setup, script, "show me the users")
        result = result_of(client, out)
        label = f"{client.name}: a refusal "
        checks.check(label + "reaches the model as nanotool's text, with its code, as an error where the client marks errors",
                     result is not None and "error 614: argument `path`" in result[0] and "/etc/passwd" in result[0]
                     and "root:" not in result[0] and result[1] in (True, None),
                     f"the model read {result!r}")
    finally:
        setup.close()


def scenario_server_timeout(checks, client, nanotool):
    """nanotool's own timeout (the tool's 2 s): the model reads that the command timed out."""
    setup = Setup()
    try:
        marker = 41 + os.getpid() % 1000
        script = model_server.Script("nap_briefly", {"seconds": marker})
        out = client.run(nanotool, setup, script, "wait a little")
        result = result_of(client, out)
        label = f"{client.name}: nanotool's timeout "
        checks.check(label + "is read by the model as a timeout, and the command is gone",
                     result is not None and "timed out" in result[0] and not sleeping(marker),
                     f"the model read {result!r}")
    finally:
        setup.close()


def scenario_client_cancel(checks, client, nanotool):
    """The client's own tool timeout (3 s): it cancels the call and nanotool kills the command
    before the client goes on (checked while the client waits for the model's next answer)."""
    setup = Setup()
    try:
        marker = 1041 + os.getpid() % 1000
        seen = {}

        class CancelScript(model_server.Script):
            def on_result(self):
                # The client sent the model the call's failure: the command must die now, while
                # the client (and so nanotool's stdin) is still open.
                deadline = time.monotonic() + 10
                while sleeping(marker) and time.monotonic() < deadline:
                    time.sleep(0.1)
                seen["alive"] = sleeping(marker)

        script = CancelScript("nap", {"seconds": marker})
        out = client.run(nanotool, setup, script, "wait a long time", tool_timeout_s=3)
        result = result_of(client, out)
        label = f"{client.name}: the client's own timeout "
        checks.check(label + "reaches the model as a failed call", result is not None,
                     f"stderr {out.stderr[-1500:]!r}")
        checks.check(label + "cancels the call: nanotool kills the command while the client runs on",
                     seen.get("alive") is False, f"sleep {marker} still running: {seen}")
    finally:
        if sleeping(marker):
            subprocess.run(["pkill", "-f", f"^sleep {marker}$"])
        setup.close()


def scenario_bad_config(checks, client, nanotool):
    """A config with one bad entry: the tools are all there, and the user sees the error."""
    setup = Setup(config='{"timeout": "soon", "max_output": 20000}')
    try:
        script = model_server.Script("count_lines", {"file": "notes.txt"})
        out = client.run(nanotool, setup, script, "how long are the notes?")
        tools = tools_of(client, out)
        result = result_of(client, out)
        label = f"{client.name}: a config with a bad entry "
        checks.check(label + "still serves every tool", {"grep", "count_lines", "nap"} <= set(tools),
                     f"offered {sorted(tools)}")
        checks.check(label + "still runs calls", result is not None and "200" in result[0],
                     f"the model read {result!r}")
        said = "config.json`: `timeout`: is a string"
        where = [name for name, text in (("its output", out.stdout + out.stderr), ("its logs", out.logs))
                 if said in text]
        print(f"     ({client.name} shows the config error in {' and '.join(where) or 'nothing'})")
        checks.check(label + "is shown to the user, naming the file and the key", bool(where),
                     f"neither the client's output nor its logs name it ({len(out.logs)} bytes of logs)")
    finally:
        setup.close()


SCENARIOS = [scenario_tools_and_call, scenario_result_size, scenario_no_match, scenario_refusal, scenario_server_timeout,
             scenario_client_cancel, scenario_bad_config]


def main():
    nanotool, claude, codex = (os.path.abspath(p) for p in sys.argv[1:4])
    only = sys.argv[4:]
    checks = Checks()
    for client in (Claude(claude), Codex(codex)):
        for scenario in SCENARIOS:
            if only and scenario.__name__.removeprefix("scenario_") not in only:
                continue
            try:
                scenario(checks, client, nanotool)
            except Exception as error:  # a harness fault is a failure, named
                checks.check(f"{client.name}: {scenario.__name__}", False, repr(error))
    print(f"clients: {checks.passed} passed, {checks.failed} failed")
    sys.exit(1 if checks.failed else 0)


if __name__ == "__main__":
    main()
