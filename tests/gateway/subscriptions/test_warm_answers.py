"""A warm cache's answer, whose rows' parts are kept as their JSON (orjson Fragments:
schema/execution/generated.py), is the same over the socket and as an SSE stream's event as
over HTTP, each read from the cache with no DynamoDB call."""

from __future__ import annotations

import time
from typing import Any

import httpx

from gateway.settings import Settings
from loaders.cache import STREAMED_TABLES
from loaders.dynamodb import Dynamo
from loaders.live.changes import ShardPosition
from schema.root import build_schema
from support.every_field import every_field
from support.fixed_clock import FixedClock
from support.seed import seed_users
from tests.gateway.live_http.stream_client import open_stream
from tests.gateway.subscriptions.conftest import USER, LiveGateway, live_gateway
from tests.gateway.subscriptions.socket_client import PROTOCOL, open_socket

ONE_USER = f"query($id: ID!) {{ user(id: $id) {every_field(build_schema()._schema, 'User')} }}"


async def over_http(live: LiveGateway) -> tuple[Any, dict[str, Any]]:
    """The answer's `data` over HTTP, and its `extensions.cost`."""
    async with httpx.AsyncClient(timeout=10) as client:
        answer = await client.post(
            live.url.replace("ws://", "http://"),
            json={"query": ONE_USER, "variables": {"id": USER}},
            headers={"Authorization": f"Bearer {live.token()}", "X-Insight-Cost": "1"},
        )
    body = answer.json()
    assert "errors" not in body, body
    return body["data"], body["extensions"]["cost"]


async def test_a_warm_answer_is_the_same_over_http_the_socket_and_sse(
    dynamo: Dynamo, settings: Settings, clock: FixedClock
) -> None:
    await seed_users(dynamo, [USER], clock.now(), settings)
    async with live_gateway(settings, clock, cache=True, cache_max_lag_seconds=60.0) as live:
        for table in STREAMED_TABLES:  # the whole feed, as the stream readers publish it
            shard = f"shard-{table.value}"
            await live.feed.publish_position(ShardPosition(table, shard, time.time()))
        cold, cold_cost = await over_http(live)
        warm, warm_cost = await over_http(live)  # its rows' parts kept: given back again
        assert (cold_cost["cachedReads"], warm_cost["dynamodbCalls"]) == (0, 0)
        assert warm_cost["cachedReads"] > 0
        assert warm == cold
        read = len(live.reads())
        async with open_socket(live.url, subprotocols=[PROTOCOL]) as socket:
            assert await socket.init(live.token()) == {"type": "connection_ack"}
            for operation_id in ("1", "2"):
                await socket.subscribe(operation_id, ONE_USER, {"id": USER})
                answered = await socket.receive()
                assert answered == {"id": operation_id, "type": "next", "payload": {"data": cold}}
                assert await socket.receive() == {"id": operation_id, "type": "complete"}
        for _ in range(2):
            async with open_stream(live.url, live.token(), ONE_USER, {"id": USER}) as stream:
                assert (await stream.event()).data == {"data": cold}
                assert (await stream.event()).event == "complete"
        assert len(live.reads()) == read
