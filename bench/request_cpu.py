"""`python -m bench requests`: the gateway's own CPU per request, outside any server.

The gateway's ASGI app runs in this process and is called directly (no HTTP parsing, no
client), over the replayer (bench/replay.py: no DynamoDB wait or CPU is dynalite's). Two
requests, in alternating rounds:

- `{ __typename }`, which passes every per-request layer (the middleware, the request id,
  the token, content negotiation, the budget charge, metrics, the schema's extensions) and
  reads nothing: what a request costs before any resolver;
- the frontend query (`gateway.cli.examples.FRONTEND_QUERY`) as the bench's user.

CPU is this process's (`time.process_time`, the event loop is asyncio's own, not uvloop),
per request, the median of ROUNDS rounds of REQUESTS requests after WARMUP of each. To
compare two commits, run it in each checkout, alternately."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import aiohttp
from starlette.types import ASGIApp, Message

from bench import processes
from bench.run import SECRET, common_env, prepare
from bench.server import FRONTEND_USER
from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.cli.examples import FRONTEND_QUERY
from gateway.settings import Settings
from schema.clock import SystemClock
from support.dynalite_server import DynaliteServer

WARMUP = 100
REQUESTS = 200
ROUNDS = 5
#: The frontend query's calls, recorded before the replayer replays.
RECORDING_REQUESTS = 3
QUERIES = {"{ __typename }": "{ __typename }", "the frontend query": FRONTEND_QUERY}

Call = Callable[[], Awaitable[None]]


def caller(app: ASGIApp, query: str, token: str) -> Call:
    """One POST /graphql of `query` straight into `app`; raises unless answered 200 without
    errors."""
    body = json.dumps({"query": query}).encode()
    headers = [
        (b"host", b"gateway"),
        (b"accept", b"*/*"),
        (b"authorization", f"Bearer {token}".encode()),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]

    async def call() -> None:
        scope: dict[str, Any] = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/graphql",
            "raw_path": b"/graphql",
            "query_string": b"",
            "root_path": "",
            "server": ("127.0.0.1", 8000),
            "client": ("127.0.0.1", 50000),
            "headers": list(headers),
        }
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if sent:  # the answer is written: nothing more comes
                await asyncio.Event().wait()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        answered: list[Message] = []

        async def send(message: Message) -> None:
            answered.append(message)

        await app(scope, receive, send)
        status = answered[0]["status"]
        payload = b"".join(message.get("body", b"") for message in answered[1:])
        if status != 200 or b'"errors"' in payload:
            raise RuntimeError(f"answered {status}: {payload[:300]!r}")

    return call


async def cpu_per_request(call: Call, requests: int) -> float:
    started = time.process_time()
    for _ in range(requests):
        await call()
    return (time.process_time() - started) / requests


async def measure(replayer_url: str) -> dict[str, list[float]]:
    settings = Settings.from_environ(common_env(replayer_url))
    app = create_app(settings)
    token = mint_token(SECRET, FRONTEND_USER, [], timedelta(hours=1), SystemClock())
    calls = {name: caller(app, query, token) for name, query in QUERIES.items()}
    seconds: dict[str, list[float]] = {name: [] for name in QUERIES}
    async with app.router.lifespan_context(app), aiohttp.ClientSession() as http:
        for _ in range(RECORDING_REQUESTS):
            await calls["the frontend query"]()
        async with http.post(replayer_url + "/_replay/replay") as replaying:
            replaying.raise_for_status()
        for call in calls.values():
            await cpu_per_request(call, WARMUP)
        for _ in range(ROUNDS):
            for name, call in calls.items():
                seconds[name].append(await cpu_per_request(call, REQUESTS))
        async with http.get(replayer_url + "/_replay/stats") as answered:
            stats: dict[str, Any] = await answered.json()
    if stats["refused"]:
        raise RuntimeError(f"the replayer refused {stats['refused']} unrecorded calls")
    return seconds


def main() -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ.setdefault(name, "bench")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    dynalite = DynaliteServer()
    dynalite.start()
    try:
        dynalite_url = f"http://127.0.0.1:{dynalite.port}"
        asyncio.run(prepare(dynalite_url))
        port = processes.free_port()
        with processes.running(processes.replayer(port, dynalite_url), port):
            seconds = asyncio.run(measure(f"http://127.0.0.1:{port}"))
    finally:
        dynalite.stop()
    print(
        f"gateway CPU per request, in process over the replayer (µs; {ROUNDS} rounds of "
        f"{REQUESTS}, their median last)"
    )
    for name, rounds in seconds.items():
        figures = " ".join(f"{value * 1e6:6.0f}" for value in rounds)
        print(f"  {name:<20}{figures}   median {statistics.median(rounds) * 1e6:6.0f}")
