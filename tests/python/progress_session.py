"""Progress of a long call, seen by the official MCP Python SDK.

Usage: progress_session.py NANOTOOL_BIN WORK_DIR CWD MODE

MODE is `legacy` (2025-11-25) or `auto` (2026-07-28). The work folder holds `follow` (prints
`notes.txt`, then follows it for 3 s) and `sleep`. A call with a progress callback gets
`notifications/progress`: increasing, the last complete output line as the message; the result
comes after them; a call without a callback is answered as usual. Exits non-zero with a message
on the first failed check.
"""

import sys

import anyio
from mcp import Client, StdioServerParameters


def check(condition, message):
    if not condition:
        raise AssertionError(message)


async def main(binary, work, cwd, mode):
    # The shortened client line: the work folder's config.json names the cwd.
    params = StdioServerParameters(command=binary, args=["serve", "--work", work])
    async with Client(params, mode=mode) as client:
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        check(client.protocol_version == expected, f"negotiated {client.protocol_version}, want {expected}")

        seen = []
        result_seen = {"done": False}

        async def on_progress(progress, total, message):
            seen.append((progress, total, message, result_seen["done"]))

        result = await client.call_tool("follow", {"file": "notes.txt"}, progress_callback=on_progress)
        result_seen["done"] = True
        text = result.content[0].text
        check("the last line of the notes" in text, f"follow output: {text}")
        check(len(seen) >= 2, f"a 3 s call sent {len(seen)} progress notifications, want at least 2: {seen}")
        values = [p for p, _, _, _ in seen]
        check(values == sorted(values) and len(set(values)) == len(values), f"progress not increasing: {values}")
        check(all(not after for _, _, _, after in seen), f"progress after the result: {seen}")
        messages = [m or "" for _, _, m, _ in seen]
        check(
            any("the last line of the notes" in m for m in messages),
            f"no progress message holds the last output line: {messages}",
        )
        check(all(len(m) <= 400 for m in messages), f"a progress message is unbounded: {messages}")

        # Without a callback the SDK sends no token: the call is answered as usual.
        before = len(seen)
        quiet = await client.call_tool("sleep", {"seconds": 2})
        check(not quiet.is_error, f"sleep failed: {quiet.content[0].text}")
        check(len(seen) == before, f"progress reached a call without a token: {seen[before:]}")
    print(f"ok: {mode}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    anyio.run(main, *sys.argv[1:])
