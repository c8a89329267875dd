"""Drives the rmcp example server (examples/rmcp_server.rs) with the official MCP Python SDK.

Usage: rmcp_client.py SERVER_BIN SERVER_MODE CWD TOOLS_DIR CLIENT_MODE

SERVER_MODE is `plain` (nanotool's ToolboxServer) or `merged` (a server's own router with
nanotool's routes merged in). CLIENT_MODE is `legacy` (the 2025-11-25 `initialize` handshake)
or `auto` (`server/discover`, then 2026-07-28 per request). Exits non-zero with a message on
the first failed check.
"""

import os
import sys
import time

import anyio
from mcp import Client, MCPError, StdioServerParameters

PATIENCE = 20.0  # seconds before a wait counts as a hang; never a measurement


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def processes():
    """(pid, ppid, argv) of every live process we can see."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
        except OSError:
            continue
        after = stat[stat.rfind(")") + 2 :].split()
        if after[0] in ("Z", "X"):
            continue  # a zombie is as good as gone
        yield int(entry), int(after[1]), argv


async def wait_for(what, probe):
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        await anyio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def main(binary, server_mode, cwd, tools, mode):
    params = StdioServerParameters(command=binary, args=[server_mode, cwd, tools])
    async with Client(params, mode=mode) as client:
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        check(client.protocol_version == expected, f"negotiated {client.protocol_version}, want {expected}")

        listing = await client.list_tools()
        names = [t.name for t in listing.tools]
        for name in ["grep", "find", "sed_print", "sleep"]:
            check(name in names, f"no {name} in {names}")
        check(("add" in names) == (server_mode == "merged"), f"tools {names}")
        grep = next(t for t in listing.tools if t.name == "grep")
        check(grep.output_schema is not None, "grep has no output schema")
        check(grep.input_schema.get("required") == ["pattern"], f"grep schema {grep.input_schema}")

        if server_mode == "merged":
            added = await client.call_tool("add", {"a": 2, "b": 3})
            check(added.content[0].text == "5", f"add: {added.content[0].text}")

        good = await client.call_tool("grep", {"pattern": "needle", "path": "."})
        text = good.content[0].text
        check(not good.is_error, f"good call failed: {text}")
        check(text.startswith("exit: 0\n"), f"grep text: {text}")
        check("needle in a haystack" in text, f"grep output: {text}")
        check(good.structured_content["exit_code"] == 0, f"structured {good.structured_content}")
        check(good.structured_content["confined"] in (True, False), f"structured {good.structured_content}")

        # grep's 1 is "no match", an answer, not a failure.
        nothing = await client.call_tool("grep", {"pattern": "absent", "path": "."})
        check(not nothing.is_error, f"no match was an error: {nothing.content[0].text}")
        check(nothing.content[0].text.startswith("exit: 1 (no match)\n"), f"no-match text: {nothing.content[0].text}")
        check(nothing.structured_content["exit_code"] == 1, f"structured {nothing.structured_content}")

        refused = await client.call_tool("grep", {"pattern": "x", "path": "../../etc"})
        text = refused.content[0].text
        check(refused.is_error, f"escape was not refused: {text}")
        check(text.startswith("error 614: argument `path`: `../../etc`"), f"refusal text: {text}")
        check(refused.structured_content is None, f"refusal carried {refused.structured_content}")

        denied = await client.call_tool("find", {"pattern": "*.txt"})
        text = denied.content[0].text
        check(denied.is_error, f"a denied binary ran: {text}")
        check(text.startswith("error 614: tool `find` is refused by the host's deny list"), f"denied text: {text}")

        try:
            await client.call_tool("grpe", {"pattern": "x"})
        except MCPError as e:
            check(e.code == -32602, f"unknown tool code {e.code}")
            check("tool not found" in str(e), f"unknown tool message: {e}")
            check("did you mean `grep`" in str(e), f"unknown tool message: {e}")
        else:
            raise AssertionError("unknown tool did not raise MCPError")
        try:
            # The server's own tool is among the suggestions of a merged router.
            await client.call_tool("adf", {"a": 1, "b": 2})
        except MCPError as e:
            check(e.code == -32602, f"unknown tool code {e.code}")
            if server_mode == "merged":
                check("did you mean `add`" in str(e), f"unknown tool message: {e}")
        else:
            raise AssertionError("unknown tool did not raise MCPError")

        # Cancel a long sleep: the client sends notifications/cancelled; the process must die.
        me = os.getpid()
        server = await wait_for(
            "the server process",
            lambda: next((p for p, ppid, argv in processes() if ppid == me and argv and argv[0] == binary), None)
            or next((p for p, _, argv in processes() if argv and argv[0] == binary and cwd in argv), None),
        )
        scope = anyio.CancelScope()
        outcome = {}

        async def long_call():
            with scope:
                outcome["result"] = await client.call_tool("sleep", {"seconds": 600})

        async with anyio.create_task_group() as tg:
            tg.start_soon(long_call)
            sleepers = await wait_for(
                "the sleep process",
                lambda: [p for p, ppid, argv in processes() if ppid == server and argv and argv[0] == "sleep"],
            )
            scope.cancel()
        check("result" not in outcome, f"the cancelled call answered: {outcome}")
        await wait_for("the sleep process to end", lambda: not any(pid in sleepers for pid, _, _ in processes()))

        again = await client.call_tool("sed_print", {"range": "2", "path": "hay.txt"})
        check(not again.is_error, f"call after cancel failed: {again.content[0].text}")
        check("needle in a haystack" in again.content[0].text, f"sed output: {again.content[0].text}")
    print(f"ok: {server_mode} {mode}")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    anyio.run(main, *sys.argv[1:])
