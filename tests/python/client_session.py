"""Drives `nanotool serve` with the official MCP Python SDK.

Usage: client_session.py NANOTOOL_BIN WORK_DIR CWD MODE

MODE is `legacy` (the 2025-11-25 `initialize` handshake) or `auto` (probe `server/discover`,
then speak 2026-07-28 per request). Exits non-zero with a message on the first failed check.
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
    """(pid, ppid, argv) of every process we can see."""
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


def server_pid(binary, work):
    for pid, _, argv in processes():
        if argv and argv[0] == binary and "serve" in argv and work in argv:
            return pid
    return None


def children(pid, name):
    return [p for p, ppid, argv in processes() if ppid == pid and argv and argv[0] == name]


async def wait_for(what, probe):
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        await anyio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def main(binary, work, cwd, mode):
    params = StdioServerParameters(command=binary, args=["serve", "--work", work, "--cwd", cwd])
    async with Client(params, mode=mode) as client:
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        check(client.protocol_version == expected, f"negotiated {client.protocol_version}, want {expected}")
        check(client.server_info is not None and client.server_info.name == "nanotool", f"server info {client.server_info}")

        listing = await client.list_tools()
        names = [t.name for t in listing.tools]
        check(names[:3] == ["grep", "find", "sed_print"], f"tools {names}")
        check("sleep" in names, f"no sleep tool in {names}")
        for tool in listing.tools:
            check(tool.input_schema.get("type") == "object", f"{tool.name} input schema {tool.input_schema}")
            # Results are text by default: no schema promises structured content.
            check(tool.output_schema is None, f"{tool.name} has an output schema")

        good = await client.call_tool("grep", {"pattern": "needle", "path": "."})
        text = good.content[0].text
        check(not good.is_error, f"good call failed: {text}")
        check(text.startswith("exit: 0\n"), f"grep text: {text}")
        check("needle in a haystack" in text, f"grep output: {text}")
        check(good.structured_content is None, f"structured {good.structured_content}")

        # grep's 1 is no failure: the text says what it means.
        nothing = await client.call_tool("grep", {"pattern": "nowhere-to-be-found", "path": "."})
        text = nothing.content[0].text
        check(not nothing.is_error, f"no match was an error: {text}")
        check(text.startswith("exit: 1 (no match)\n"), f"no-match text: {text}")

        refused = await client.call_tool("grep", {"pattern": "x", "path": "../../etc"})
        text = refused.content[0].text
        check(refused.is_error, f"escape was not refused: {text}")
        check("614" in text, f"refusal text has no 614: {text}")
        check(refused.structured_content is None, f"refusal carried {refused.structured_content}")

        try:
            await client.call_tool("grpe", {"pattern": "x"})
        except MCPError as e:
            check(e.code == -32602, f"unknown tool code {e.code}")
            check("grep" in str(e), f"unknown tool message names no close tool: {e}")
        else:
            raise AssertionError("unknown tool did not raise MCPError")

        # Cancel a long sleep: the client sends notifications/cancelled; the process must die.
        server = await wait_for("the server process", lambda: server_pid(binary, work))
        scope = anyio.CancelScope()
        outcome = {}

        async def long_call():
            with scope:
                outcome["result"] = await client.call_tool("sleep", {"seconds": 600})

        async with anyio.create_task_group() as tg:
            tg.start_soon(long_call)
            sleepers = await wait_for("the sleep process", lambda: children(server, "sleep"))
            scope.cancel()
        check("result" not in outcome, f"the cancelled call answered: {outcome}")
        await wait_for("the sleep process to end", lambda: not any(pid in sleepers for pid, _, _ in processes()))

        # The session is still good.
        again = await client.call_tool("find", {"pattern": "*.txt"})
        check(not again.is_error, f"call after cancel failed: {again.content[0].text}")
        check("hay.txt" in again.content[0].text, f"find output: {again.content[0].text}")
    print(f"ok: {mode}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    anyio.run(main, *sys.argv[1:])
