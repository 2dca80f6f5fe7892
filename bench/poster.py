"""The bench's one way of sending a GraphQL request: any answer but a 200 without errors
stops the run, so a figure is never taken over failing requests."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp


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
