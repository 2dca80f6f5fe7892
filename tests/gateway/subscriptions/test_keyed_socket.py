"""A mutation over the socket with `extensions.idempotencyKey` (SPEC section 9): one effect,
the first answer again (told by `extensions.idempotencyReplayed`), 422's code as `error`."""

from __future__ import annotations

from typing import Any

from tests.gateway.subscriptions.conftest import LiveGateway
from tests.gateway.subscriptions.socket_client import Socket, open_socket

LABEL = "mutation($u: ID!) { markInsightsRefresh(input: {userId: $u}) { label updatedDate } }"


async def keyed(socket: Socket, operation_id: str, user: str, key: str) -> list[dict[str, Any]]:
    await socket.send(
        {
            "id": operation_id,
            "type": "subscribe",
            "payload": {
                "query": LABEL,
                "variables": {"u": user},
                "extensions": {"idempotencyKey": key},
            },
        }
    )
    first = await socket.receive()
    return [first] if first["type"] == "error" else [first, await socket.receive()]


async def test_a_keyed_mutation_over_the_socket_is_answered_once(live: LiveGateway) -> None:
    async with open_socket(live.url) as socket:
        await socket.init(live.writer())
        first = await keyed(socket, "1", "u-1", "k-1")
        writes = [call for call in live.calls if call.operation == "transact_write_items"]
        again = await keyed(socket, "2", "u-1", "k-1")
        reused = await keyed(socket, "3", "u-2", "k-1")

    assert first[0]["type"] == "next"
    assert first[0]["payload"]["data"]["markInsightsRefresh"]["label"] == "REFRESH_INSIGHTS"
    assert first[1] == {"id": "1", "type": "complete"}
    assert again[0]["payload"] == {
        **first[0]["payload"],
        "extensions": {"idempotencyReplayed": True},
    }
    assert again[1] == {"id": "2", "type": "complete"}
    assert [call for call in live.calls if call.operation == "transact_write_items"] == writes
    assert len(writes) == 1
    assert reused == [
        {
            "id": "3",
            "type": "error",
            "payload": [
                {
                    "message": reused[0]["payload"][0]["message"],
                    "extensions": {"code": "IDEMPOTENCY_KEY_REUSED"},
                }
            ],
        }
    ]
