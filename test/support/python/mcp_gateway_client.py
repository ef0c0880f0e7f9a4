"""A Python MCP client against the gateway's /mcp (test/gateway/mcp-northbound.e2e.test.ts).

    python mcp_gateway_client.py MCP_URL API_KEY

2025-11-25 through the official Python SDK (`mcp`, which speaks no later revision), 2026-07-28 as
plain stateless HTTP requests (httpx, installed with `mcp`). For each era: list, call, a repeated
call served from the gateway's cache (read from its Prometheus counter), a deadline that passes, a
call with a wrong key, and an episode lifecycle. Prints one JSON report line on stdout.
"""

import asyncio
import json
import sys
from typing import Any

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "rlf-python-test", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def cache_hits(admin: str) -> float:
    text = httpx.get(f"{admin}/metrics").text
    prefix = 'rlf_gateway_cache_requests_total{server="testbed",result="hit"}'
    return next((float(line.split()[-1]) for line in text.splitlines() if line.startswith(prefix)), 0.0)


async def sdk_era(url: str, key: str, admin: str) -> dict[str, Any]:
    report: dict[str, Any] = {}
    headers = {"authorization": f"Bearer {key}"}
    async with (
        streamablehttp_client(url, headers=headers) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        init = await session.initialize()
        report["protocol"] = init.protocolVersion
        names = [t.name for t in (await session.list_tools()).tools]
        report["listed"] = "testbed__echo" in names and "rlf_episode_start" in names
        echo = await session.call_tool("testbed__echo", {"value": "py"})
        report["echo"] = (echo.structuredContent or {}).get("value")
        before = cache_hits(admin)
        await session.call_tool("testbed__echo", {"value": "py-cached"})
        await session.call_tool("testbed__echo", {"value": "py-cached"})
        report["cached_second_hit"] = cache_hits(admin) == before + 1
        slow = await session.call_tool("testbed__sleep", {"ms": 30000}, meta={"rlfactory/deadline_ms": 200})
        error = (slow.structuredContent or {}).get("error", {}) if slow.isError else {}
        report["deadline_code"] = error.get("code")
        start = await session.call_tool("rlf_episode_start", {"server": "kv"})
        episode = (start.structuredContent or {})["episode_id"]
        await session.call_tool("kv__put", {"key": "a", "value": "1", "rlf_episode": episode})
        end = await session.call_tool("rlf_episode_end", {"episode_id": episode})
        report["episode_final_state"] = (end.structuredContent or {}).get("state")
    try:
        async with (
            streamablehttp_client(url, headers={"authorization": "Bearer wrong"}) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await asyncio.wait_for(session.initialize(), 10)
            report["unauthorised_refused"] = False
    except BaseException:  # the SDK surfaces the 401 as an exception (group) out of its task group
        report["unauthorised_refused"] = True
    return report


def modern_era(url: str, key: str, admin: str) -> dict[str, Any]:
    """2026-07-28: every request self-contained (the `_meta` envelope and headers), no session."""
    ids = iter(range(1, 1000))

    def rpc(method: str, params: dict[str, Any], auth: str = key, name: str | None = None) -> httpx.Response:
        headers = {
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": MODERN,
            "mcp-method": method,
            "authorization": f"Bearer {auth}",
        }
        if name is not None:
            headers["mcp-name"] = name
        body = {
            "jsonrpc": "2.0",
            "id": next(ids),
            "method": method,
            "params": {**params, "_meta": {**params.get("_meta", {}), **ENVELOPE}},
        }
        return httpx.post(url, json=body, headers=headers, timeout=30)

    def result(res: httpx.Response) -> dict[str, Any]:
        text = res.text
        if not text.startswith("{"):
            text = next(line[6:] for line in text.splitlines() if line.startswith("data: "))
        return json.loads(text)["result"]

    def call(name: str, args: dict[str, Any], meta: dict[str, Any] | None = None) -> dict[str, Any]:
        return result(rpc("tools/call", {"name": name, "arguments": args, "_meta": meta or {}}, name=name))

    report: dict[str, Any] = {}
    discovered = result(rpc("server/discover", {}))
    report["protocol"] = MODERN if MODERN in discovered.get("supportedVersions", []) else None
    names = [t["name"] for t in result(rpc("tools/list", {}))["tools"]]
    report["listed"] = "testbed__echo" in names and "rlf_episode_start" in names
    report["echo"] = call("testbed__echo", {"value": "py"})["structuredContent"]["value"]
    before = cache_hits(admin)
    call("testbed__echo", {"value": "py-cached-modern"})
    call("testbed__echo", {"value": "py-cached-modern"})
    report["cached_second_hit"] = cache_hits(admin) == before + 1
    slow = call("testbed__sleep", {"ms": 30000}, {"rlfactory/deadline_ms": 200})
    report["deadline_code"] = slow["structuredContent"]["error"]["code"] if slow.get("isError") else None
    report["unauthorised_refused"] = rpc("tools/list", {}, auth="wrong").status_code == 401
    episode = call("rlf_episode_start", {"server": "kv"})["structuredContent"]["episode_id"]
    call("kv__put", {"key": "a", "value": "1", "rlf_episode": episode})
    report["episode_final_state"] = call("rlf_episode_end", {"episode_id": episode})["structuredContent"]["state"]
    return report


def main() -> None:
    url, key = sys.argv[1], sys.argv[2]
    admin = url.rsplit("/mcp", 1)[0]
    legacy = asyncio.run(sdk_era(url, key, admin))
    print(json.dumps({"2025-11-25": legacy, MODERN: modern_era(url, key, admin)}))


if __name__ == "__main__":
    main()
