"""The bench's one way of sending a GraphQL request: any answer but a 200 without errors
stops the run, so a figure is never taken over failing requests. Its pools let an idle
connection go before the server does (`pool`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp

#: How long uvicorn keeps an idle connection (its `timeout_keep_alive`, 5 s by default).
SERVER_KEEP_ALIVE_SECONDS = 5


def pool(limit: int) -> aiohttp.TCPConnector:
    """A client pool that closes a connection idle a second before the server would: rows
    measured in turns leave a pool idle for seconds, and a request sent as the server closes
    its connection is cut ("Server disconnected": aiohttp keeps one 15 s)."""
    return aiohttp.TCPConnector(limit=limit, keepalive_timeout=SERVER_KEEP_ALIVE_SECONDS - 1)


def poster(
    http: aiohttp.ClientSession, url: str, body: dict[str, Any], headers: dict[str, str]
) -> Callable[[], Awaitable[dict[str, Any] | None]]:
    """A sender of `body` to `url`; each send returns the answer's `extensions.cost`."""

    async def send() -> dict[str, Any] | None:
        async with http.post(url, json=body, headers=headers) as response:
            answer = await response.json()
        if response.status != 200 or answer.get("errors"):
            raise RuntimeError(f"{url} answered {response.status}: {str(answer)[:300]}")
        cost: dict[str, Any] | None = (answer.get("extensions") or {}).get("cost")
        return cost

    return send
