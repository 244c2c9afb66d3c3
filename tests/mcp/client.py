"""An MCP client for exa's tests: the official MCP Python SDK (PyPI `mcp`).

    client.py stdio EXA [ARGS...] < plan.json
    client.py http URL [TOKEN] < plan.json

plan.json: {"calls": [{"name": ..., "arguments": {...}}, ...], "concurrent": false}
Prints {"server": ..., "tools": [...], "results": [...]} as JSON on stdout;
each result is {"is_error", "structured", "text"}.
"""

import asyncio
import json
import os
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


async def session_run(read, write, plan):
    async with ClientSession(read, write) as session:
        init = await session.initialize()
        tools = await session.list_tools()

        started = time.monotonic()

        async def one(call):
            try:
                r = await session.call_tool(call["name"], call.get("arguments"))
            except Exception as e:  # a protocol error (an unknown tool): JSON-RPC's own error
                return {"protocol_error": str(e), "elapsed": time.monotonic() - started}
            text = "\n".join(c.text for c in r.content if getattr(c, "type", "") == "text")
            return {"is_error": bool(r.is_error), "structured": r.structured_content, "text": text, "elapsed": time.monotonic() - started}

        if plan.get("concurrent"):
            results = await asyncio.gather(*(one(c) for c in plan["calls"]))
        else:
            results = [await one(c) for c in plan["calls"]]
        return {
            "server": init.server_info.name,
            "protocol": init.protocol_version,
            "tools": [t.model_dump(by_alias=True, exclude_none=True) for t in tools.tools],
            "results": list(results),
        }


async def main():
    plan = json.load(sys.stdin)
    mode = sys.argv[1]
    if mode == "stdio":
        params = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            out = await session_run(read, write, plan)
    else:
        import httpx2

        headers = {"Authorization": f"Bearer {sys.argv[3]}"} if len(sys.argv) > 3 else {}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with streamable_http_client(sys.argv[2], http_client=http) as streams:
                out = await session_run(streams[0], streams[1], plan)
    json.dump(out, sys.stdout)


asyncio.run(main())
