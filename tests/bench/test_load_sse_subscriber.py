"""The live phase's SSE client (bench/load/sse_subscriber.py) against a scripted server on
127.0.0.1: it reads `next` events, honours a `retry:` that ends the stream and comes back
with `Last-Event-ID`; and the phase's judge counts each transport's pairs apart."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiohttp
from aiohttp import web

from bench.load.live import FRONTEND, LiveResult, Write, judge
from bench.load.sse_subscriber import SseSubscriber
from bench.load.subscriber import Subscriber, Watch
from bench.load.transports import TransportFigures, problems, table

#: A bound on the waits for what must come, never a measure.
WAIT_SECONDS = 30.0


def next_event(state: str, amount: int) -> bytes:
    data = {
        "data": {"viewerChanged": {"id": "u-1", "incomeVerification": {"amountInCents": amount}}}
    }
    return f"event: next\nid: {state}\ndata: {json.dumps(data)}\n\n".encode()


@asynccontextmanager
async def scripted_server(requests: list[dict[str, str]]) -> AsyncIterator[str]:
    """The first stream: one event, then `retry: 50` and the end (a restart); every later
    one: the event that changed while the client was away, then held open."""

    async def stream(request: web.Request) -> web.StreamResponse:
        requests.append(dict(request.headers))
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(b":\n\n")
        if len(requests) == 1:
            await response.write(next_event("state-1", 1))
            await response.write(b"retry: 50\n\n")
            return response
        await response.write(next_event("state-2", 2))
        await asyncio.sleep(WAIT_SECONDS)
        return response

    app = web.Application()
    app.router.add_post("/graphql", stream)
    runner = web.AppRunner(app, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def test_a_stream_ended_with_retry_comes_back_with_its_last_event_id() -> None:
    requests: list[dict[str, str]] = []
    async with scripted_server(requests) as url, aiohttp.ClientSession() as session:
        client = SseSubscriber(url, "token-1", [Watch("1", "u-1", FRONTEND, {})])
        stop = asyncio.Event()
        running = asyncio.create_task(client.run(session, stop))
        for _ in range(int(WAIT_SECONDS / 0.01)):
            if len(client.events["1"]) >= 2:
                break
            await asyncio.sleep(0.01)
        stop.set()
        await asyncio.wait_for(running, WAIT_SECONDS)

    assert [amount for _, amount in client.events["1"]] == [1, 2]
    assert client.resumed_with == [None, "state-1"]
    assert client.connects == 2
    assert client.closes["retry"] == 1
    assert [r.get("Last-Event-ID") for r in requests] == [None, "state-1"]
    assert {r["Accept"] for r in requests} == {"text/event-stream"}
    assert {r["Authorization"] for r in requests} == {"Bearer token-1"}
    assert client.errors == []


def test_the_judge_counts_each_transport_apart() -> None:
    socket = Subscriber("http://x", "t", [Watch("1", "u-1", FRONTEND, {})])
    stream = SseSubscriber("http://x", "t", [Watch("1", "u-1", FRONTEND, {})])
    late = SseSubscriber("http://x", "t", [Watch("1", "u-1", FRONTEND, {})])
    socket.connects, stream.connects, late.connects = 1, 2, 1
    socket.events["1"] = [(10.5, 7)]
    stream.events["1"] = [(10.2, 6), (13.0, 7)]
    late.events["1"] = [(10.1, 6)]
    result = LiveResult(3, 3, 100.0, 1.0)
    result.writes = [Write("u-1", 7, "direct", 10.0, None, 10.1)]

    judge([socket, stream, late], result)

    websocket, sse = result.by_transport["websocket"], result.by_transport["sse"]
    assert (websocket.subscriptions, websocket.connections, websocket.missed) == (1, 1, 0)
    assert websocket.latencies == [0.5]
    assert (sse.subscriptions, sse.connections, sse.missed, sse.reconnects) == (2, 2, 1, 1)
    assert sse.latencies == [3.0]
    assert len(result.missed) == 1
    assert "sse watch 1" in result.missed[0]


def test_the_sse_p99_over_its_target_is_a_problem_and_both_rows_are_shown() -> None:
    figures = {
        "websocket": TransportFigures(10, 10, [4.0] * 10, [0.2] * 10),
        "sse": TransportFigures(5, 5, [0.3] * 4 + [2.5], [0.3] * 4),
    }
    rows = table(figures)

    assert list(problems(figures)) == ["live: SSE write → event p99 2500 ms (target ≤ 2000)"]
    assert rows[2].startswith("| WebSocket | 10 on 10 | 10 | 4000 | 4000 | - |")
    assert rows[3].startswith("| SSE | 5 on 5 | 5 | 300 | 2500 | ≤ 2,000 |")
    figures["sse"].latencies = [0.3] * 5
    assert list(problems(figures)) == []
