"""A token renewed in band: a `ping` whose payload carries `Authorization: Bearer <JWT>` for
the socket's own `sub` moves the socket's expiry to the new token's; a token for another
`sub`, or an invalid one, closes the socket with 4401.

No wall clock decides these tests: the clock is the fixture's fixed one (a token's expiry
is its lifetime from that instant), and "after the old expiry" is known from a control
socket whose token expires no sooner than the old one, seen closed with 4401 first."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.settings import Settings
from tests.gateway.subscriptions.conftest import (
    OTHER,
    SETTING_QUERY,
    USER,
    LiveGateway,
)
from tests.gateway.subscriptions.socket_client import Socket, open_socket
from tests.gateway.subscriptions.test_live_events import change_setting, setting_event

#: The first token's lifetime: short, for its expiry to pass within the test.
SHORT = 3


async def renew(socket: Socket, token: str) -> dict[str, Any]:
    await socket.send({"type": "ping", "payload": {"Authorization": f"Bearer {token}"}})
    return await socket.receive()


async def test_a_renewed_socket_stays_open_past_its_first_tokens_expiry(
    live: LiveGateway, dynamodb: Any, settings: Settings
) -> None:
    async with open_socket(live.url) as renewed, open_socket(live.url) as control:
        assert await renewed.init(live.token(lifetime=SHORT)) == {"type": "connection_ack"}
        assert await renew(renewed, live.token(lifetime=3600)) == {"type": "pong"}
        # The control's token expires as the renewed socket's first one did, its timer
        # armed after that one's: once it is closed, the first token's expiry has passed.
        assert await control.init(live.token(OTHER, lifetime=SHORT)) == {"type": "connection_ack"}
        await renewed.subscribe("1", SETTING_QUERY, {"ids": [USER]})
        await live.subscribed()
        assert await control.closed(within=30) == (
            4401,
            "Unauthorized: the bearer token has expired",
        )
        # Still open, and still receiving its subscription's events.
        await change_setting(live, dynamodb, settings, "35")
        assert await renewed.receive() == setting_event("1", "35")
        await renewed.send({"type": "ping"})
        assert await renewed.receive() == {"type": "pong"}
    assert live.hub.subscriptions == 0


async def test_a_socket_never_renewed_closes_at_its_tokens_expiry(live: LiveGateway) -> None:
    async with open_socket(live.url) as socket:
        assert await socket.init(live.token(lifetime=SHORT)) == {"type": "connection_ack"}
        # A ping without a token is a ping: it changes nothing.
        await socket.send({"type": "ping", "payload": {"note": "no token"}})
        assert await socket.receive() == {"type": "pong"}
        assert await socket.closed(within=30) == (
            4401,
            "Unauthorized: the bearer token has expired",
        )


@pytest.mark.parametrize(
    ("sent", "reason"),
    [
        ("other-sub", "Unauthorized: a renewed token must name the same sub"),
        ("not-a-jwt", "Unauthorized: "),
        ("expired", "Unauthorized: "),
    ],
)
async def test_a_renewal_for_another_sub_or_an_invalid_token_closes_with_4401(
    live: LiveGateway, sent: str, reason: str
) -> None:
    token = {
        "other-sub": live.token(OTHER),
        "not-a-jwt": "not-a-jwt",
        "expired": live.token(lifetime=-60),
    }[sent]
    async with open_socket(live.url) as socket:
        assert await socket.init(live.token()) == {"type": "connection_ack"}
        await socket.send({"type": "ping", "payload": {"Authorization": f"Bearer {token}"}})
        code, closed_with = await socket.closed()
    assert code == 4401
    assert closed_with.startswith(reason)
