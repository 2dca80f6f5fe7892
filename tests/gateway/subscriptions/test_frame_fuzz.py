"""Generated hostile frames over a served socket (tests/gateway/hostile_inputs.py): messages of
the protocol with odd types, ids and payloads, JSON that is no message, text and bytes that
are no JSON. The socket either answers (every error coded from the contract) and stays
open, or closes with one of the protocol's close codes; nothing is logged with a traceback;
and the loop is never held past `LOOP_HOLD_BOUND`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed

from gateway.settings import Settings
from gateway.subscriptions.close_codes import ERROR_CODES
from support.fixed_clock import FixedClock
from tests.gateway.hostile_inputs import CONTRACT_CODES, EXAMPLES, FRAMES, LOOP_HOLD_BOUND
from tests.gateway.loop_hold import loop_hold
from tests.gateway.subscriptions.conftest import LiveGateway, live_gateway
from tests.gateway.subscriptions.socket_client import Socket, open_socket
from tests.gateway.subscriptions.test_protocol_frames import server_log

FUZZ = settings(
    # A socket each: fewer examples than over HTTP.
    max_examples=max(1, EXAMPLES // 2),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


async def _exchange(live: LiveGateway, token: str | None, frames: list[Any]) -> int | None:
    """The frames sent after `token`'s `connection_init` (none without a token), then a
    ping; every message up to the pong checked. The close code, or None if still open."""
    async with open_socket(live.url) as socket:
        try:
            if token is not None:
                payload = {"Authorization": f"Bearer {token}"}
                await socket.send({"type": "connection_init", "payload": payload})
            for frame in frames:
                await _send(socket, frame)
            await socket.send({"type": "ping"})
            while True:
                message = json.loads(await socket.connection.recv())
                if message.get("type") == "pong":
                    return None
                _assert_coded(message)
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None


async def _send(socket: Socket, frame: Any) -> None:
    if isinstance(frame, dict):
        # JSON escapes carry lone surrogates; `send` of a str would refuse to encode them.
        await socket.connection.send(json.dumps(frame))
    elif isinstance(frame, str):
        await socket.connection.send(
            frame.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        )
    else:
        await socket.connection.send(frame)


def _assert_coded(message: dict[str, Any]) -> None:
    kind = message.get("type")
    assert kind in ("connection_ack", "next", "error", "complete", "ping"), message
    if kind == "error":
        errors = message["payload"]
    elif kind == "next":
        errors = message["payload"].get("errors") or []
    else:
        errors = []
    for error in errors:
        assert error["extensions"]["code"] in CONTRACT_CODES, message


@pytest.fixture
async def live(settings: Settings, clock: FixedClock) -> AsyncIterator[LiveGateway]:
    # Each example's socket is closed by the time the next opens, but the server may not
    # have let go of it yet: room for them all under the one principal.
    async with live_gateway(
        settings, clock, subscriptions_max_sockets_per_principal=10_000
    ) as live:
        yield live


@FUZZ
@given(
    authenticated=st.sampled_from([None, "valid", "junk"]),
    frames=st.lists(FRAMES, min_size=1, max_size=4),
)
async def test_every_hostile_frame_is_answered_or_closed_with_a_protocol_code(
    live: LiveGateway, authenticated: str | None, frames: list[Any]
) -> None:
    token = {None: None, "valid": live.token(), "junk": "x.y.z"}[authenticated]
    with server_log() as records, loop_hold() as hold:
        code = await hold.run(_exchange(live, token, frames))
    assert code is None or code in ERROR_CODES, (code, frames)
    messages = [record.getMessage() for record in records]
    assert not [record for record in records if record.exc_info], messages
    assert not [message for message in messages if "Exception" in message], messages
    assert hold.longest < LOOP_HOLD_BOUND, (hold.longest, hold.slowest, frames)
