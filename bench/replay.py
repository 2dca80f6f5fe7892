"""A replaying DynamoDB stand-in, so that a throughput figure measures the gateway worker and
not dynalite's single node process: `python -m bench.replay PORT UPSTREAM_URL` (a raw ASGI
app under uvicorn on 127.0.0.1).

It starts recording: every call is forwarded to UPSTREAM_URL (dynalite) and its answer kept,
keyed by the call's `X-Amz-Target` and its JSON body in canonical form (keys sorted, no
spaces), so the signature, date and connection do not matter. `POST /_replay/replay` turns
recording off for good: from then on a recorded call is answered with the recorded bytes
(status, body, content type, CRC32), and any other call is refused loudly: an error answer
botocore does not retry, a line on stderr, and a count in `GET /_replay/stats`. Nothing is
ever invented or forwarded once replaying."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import aiohttp
import uvicorn

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: The upstream's answer headers that a client reads: botocore checks DynamoDB's CRC32.
KEPT_HEADERS = ("content-type", "x-amz-crc32", "x-amzn-requestid")
#: Request headers not forwarded: the connection's own, set again by the forwarding client.
HOP_HEADERS = {"host", "content-length", "connection", "keep-alive", "transfer-encoding"}
UNRECORDED = "bench.replay#UnrecordedCallException"


def call_key(target: str, body: bytes) -> str:
    """A call's identity: its operation and its parameters, whatever their order or spacing."""
    canonical = json.dumps(json.loads(body or b"{}"), sort_keys=True, separators=(",", ":"))
    return f"{target} {canonical}"


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes


class Replayer:
    """The ASGI app: records while `replaying` is false, then only replays."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.recording: dict[str, Answer] = {}
        self.replaying = False
        self.served = 0
        self.refused = 0
        #: Time from a call's last body byte to its answer's, in this process (replayed calls).
        self.service_seconds = 0.0
        self.slowest_seconds = 0.0
        self._http: aiohttp.ClientSession | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        body = await _read_body(receive)
        started = time.perf_counter()
        path = scope["path"]
        if path == "/_replay/replay":
            self.replaying = True
            await _respond(send, _json_answer(200, self.stats()))
        elif path == "/_replay/stats":
            await _respond(send, _json_answer(200, self.stats()))
        elif self.replaying:
            await _respond(send, self._replayed(scope, body))
            elapsed = time.perf_counter() - started
            self.service_seconds += elapsed
            self.slowest_seconds = max(self.slowest_seconds, elapsed)
        else:
            await _respond(send, await self._recorded(scope, body))

    def stats(self) -> dict[str, Any]:
        return {
            "replaying": self.replaying,
            "recorded": len(self.recording),
            "served": self.served,
            "refused": self.refused,
            "service_seconds": self.service_seconds,
            "slowest_seconds": self.slowest_seconds,
        }

    def _replayed(self, scope: Scope, body: bytes) -> Answer:
        key = call_key(_header(scope, b"x-amz-target"), body)
        answer = self.recording.get(key)
        if answer is None:
            self.refused += 1
            print(f"bench.replay: REFUSED an unrecorded call: {key[:500]}", file=sys.stderr)
            message = f"the replayer has no recorded answer for {key[:300]}"
            document = {"__type": UNRECORDED, "message": message}
            return _json_answer(400, document, b"application/x-amz-json-1.0")
        self.served += 1
        return answer

    async def _recorded(self, scope: Scope, body: bytes) -> Answer:
        assert self._http is not None
        headers = {
            name.decode("latin-1"): value.decode("latin-1")
            for name, value in scope["headers"]
            if name.decode("latin-1").lower() not in HOP_HEADERS
        }
        async with self._http.post(self.upstream + scope["path"], data=body, headers=headers) as up:
            payload = await up.read()
            kept = tuple(
                (name.encode("latin-1"), up.headers[name].encode("latin-1"))
                for name in KEPT_HEADERS
                if name in up.headers
            )
            answer = Answer(up.status, kept, payload)
        # The first answer is the one replayed: the same call is answered the same way.
        self.recording.setdefault(call_key(_header(scope, b"x-amz-target"), body), answer)
        return answer

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._http = aiohttp.ClientSession(auto_decompress=False)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._http is not None:
                    await self._http.close()
                await send({"type": "lifespan.shutdown.complete"})
                return


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return ""


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


def _json_answer(
    status: int, document: dict[str, Any], content_type: bytes = b"application/json"
) -> Answer:
    return Answer(status, ((b"content-type", content_type),), json.dumps(document).encode())


async def _respond(send: Send, answer: Answer) -> None:
    headers = [*answer.headers, (b"content-length", str(len(answer.body)).encode())]
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    await send({"type": "http.response.body", "body": answer.body})


def main(argv: list[str]) -> None:
    port, upstream = int(argv[0]), argv[1]
    uvicorn.run(
        Replayer(upstream.rstrip("/")),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on",
    )


if __name__ == "__main__":
    main(sys.argv[1:])
