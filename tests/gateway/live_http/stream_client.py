"""A live HTTP stream read as a client reads it: Server-Sent Events (their fields) or
Apollo's multipart parts (their JSON), one at a time, each within a bound."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx

#: Generous on a loaded machine: a bound on a wait for what must come, not a measure.
EVENT_SECONDS = 30.0
SSE_ACCEPT = "text/event-stream"
MULTIPART_ACCEPT = 'multipart/mixed;subscriptionSpec="1.0", application/json'


@dataclass
class Event:
    """One SSE event: its fields as sent (`data` parsed when there is any)."""

    event: str | None
    id: str | None
    data: Any
    retry: int | None
    raw_data: str


class Stream:
    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self._lines = response.aiter_lines()
        self._chunks = response.aiter_bytes()
        self._buffer = b""
        self._started = False

    async def event(self, within: float = EVENT_SECONDS) -> Event:
        """The next SSE event (comments, the keepalive's, skipped)."""
        return await asyncio.wait_for(self._event(), within)

    async def _event(self) -> Event:
        self._started = True
        fields: dict[str, str] = {}
        async for line in self._lines:
            if line == "":
                if fields:
                    raw = fields.get("data", "")
                    return Event(
                        fields.get("event"),
                        fields.get("id"),
                        json.loads(raw) if raw.strip() else None,
                        int(fields["retry"]) if "retry" in fields else None,
                        raw,
                    )
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        raise AssertionError(f"the stream ended; fields so far: {fields}")

    async def ended(self, within: float = EVENT_SECONDS) -> str:
        """What is left of the body (its text), once the server ends it."""
        return await asyncio.wait_for(self._rest(), within)

    async def _rest(self) -> str:
        if not self._started:
            return (await self.response.aread()).decode()
        return "".join([line async for line in self._lines])

    async def part(self, within: float = EVENT_SECONDS) -> Any:
        """The next multipart part's JSON (heartbeats, `{}`, skipped); None at the end."""
        return await asyncio.wait_for(self._part(), within)

    async def _part(self) -> Any:
        self._started = True
        while True:
            head, marker, rest = self._buffer.partition(b"\r\n--graphql")
            if marker:
                self._buffer = rest
                body = head.partition(b"\r\n\r\n")[2]
                if body.strip():
                    part = json.loads(body)
                    if part != {}:
                        return part
                continue
            if self._buffer.startswith(b"--\r\n"):
                return None
            self._buffer += await anext(self._chunks)


@asynccontextmanager
async def open_stream(
    url: str,
    token: str | None,
    query: str,
    variables: dict[str, Any] | None = None,
    *,
    accept: str = SSE_ACCEPT,
    headers: dict[str, str] | None = None,
    extensions: dict[str, Any] | None = None,
) -> AsyncIterator[Stream]:
    """POST `query` to /graphql asking for a stream; the response, open."""
    http_url = url.replace("ws://", "http://")
    sent = {"Accept": accept, **(headers or {})}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    body: dict[str, Any] = {"query": query, "variables": variables or {}}
    if extensions is not None:
        body["extensions"] = extensions
    async with (
        httpx.AsyncClient(timeout=httpx.Timeout(EVENT_SECONDS)) as client,
        client.stream("POST", http_url, json=body, headers=sent) as response,
    ):
        yield Stream(response)
