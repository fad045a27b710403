"""Times `start` + `end` pairs through `baton mcp` with the official Python MCP SDK.

Usage: python mcp_pairs.py BATON LEDGER PAIRS [NOTES] (NOTES: on, the default, or off). Prints one JSON object: the seconds each call
took, starts and ends apart. The server is started once; only the calls are timed.
"""

import asyncio
import json
import os
import sys
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


async def main(baton, ledger, pairs, notes):
    params = StdioServerParameters(
        command=baton,
        args=["mcp"],
        env={"BATON_DIR": ledger, "BATON_FSYNC": "0", "BATON_NOTES": notes, "PATH": os.environ.get("PATH", ""),
             "HOME": str(Path(ledger).parent),
             "XDG_DATA_HOME": str(Path(ledger).parent / "user-data"),
             "XDG_CACHE_HOME": str(Path(ledger).parent / "user-cache")},
    )
    starts, ends = [], []
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write):
            info = types.Implementation(name="bench", version="1.0")
            async with ClientSession(read, write, client_info=info) as session:
                await session.initialize()
                for n in range(pairs):
                    began = time.perf_counter()
                    started = await session.call_tool(
                        "start_work_session", {"project": "bench", "goal": f"pair {n}", "agent": "bench"})
                    starts.append(time.perf_counter() - began)
                    assert not started.is_error, started.content[0].text
                    body = json.loads(started.content[0].text.rsplit("\n", 1)[1])
                    session_id = body["session_id"]
                    began = time.perf_counter()
                    ended = await session.call_tool(
                        "end_work_session", {"session_id": session_id, "summary": "done"})
                    ends.append(time.perf_counter() - began)
                    assert not ended.is_error, ended.content[0].text
    print(json.dumps({"starts": starts, "ends": ends}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]),
                     sys.argv[4] if len(sys.argv) > 4 else "on"))
