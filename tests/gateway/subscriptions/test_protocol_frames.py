"""Frames that are not the protocol's close the socket with 4400 and one log line, never a
traceback; an operation that cannot be chosen (an unknown name, or several operations and
no name) is that operation's `error`, and the socket stays open."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import version
from typing import Any

import pytest

from tests.gateway.subscriptions.conftest import LiveGateway
from tests.gateway.subscriptions.socket_client import open_socket

TWO_OPERATIONS = "query A { viewer { id } } query B { viewer { lowBalanceAlert } }"


def test_strawberry_is_the_version_the_transport_was_written_against() -> None:
    # gateway/http/graphql_view.py still subclasses strawberry's view, and
    # gateway/http/operation_choice.py works around its choice of an operation: re-check
    # both (and these tests) before moving this pin.
    assert version("strawberry-graphql") == "0.341.2"


class Collected(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def server_log() -> Iterator[list[logging.LogRecord]]:
    """Every record of the gateway's socket logger, strawberry's and uvicorn's (whose logger
    does not propagate to the root, where pytest's caplog listens)."""
    handler = Collected()
    names = ("gateway.subscriptions", "strawberry", "uvicorn", "uvicorn.error")
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    try:
        yield handler.records
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)


CLOSE_CODE = re.compile(r"(?<![\d:])4400(?!\d)")


@pytest.mark.parametrize(
    "frame",
    [
        "[]",
        "42",
        '"x"',
        "null",
        '{"type": "complete", "id": {}}',
        '{"type": "ping", "x": "\\ud800"}',
    ],
)
@pytest.mark.parametrize("authenticated", [False, True])
async def test_a_frame_that_is_no_message_closes_with_4400_and_one_log_line(
    live: LiveGateway, frame: str, authenticated: bool
) -> None:
    with server_log() as records:
        async with open_socket(live.url) as socket:
            if authenticated:
                assert await socket.init(live.token()) == {"type": "connection_ack"}
            await socket.send(frame)
            code, _ = await socket.closed()
        # The server has finished with the socket once a new one is served.
        async with open_socket(live.url) as socket:
            assert await socket.init(live.token()) == {"type": "connection_ack"}
    assert code == 4400
    messages = [record.getMessage() for record in records]
    assert not [message for message in messages if "Exception" in message], messages
    assert not [record for record in records if record.exc_info], messages
    # The code as a number of its own: a client port such as 44400 is no close line.
    assert len([m for m in messages if CLOSE_CODE.search(m)]) == 1, messages


async def subscribe_and_receive(socket: Any, payload: dict[str, Any]) -> dict[str, Any]:
    await socket.send({"id": "1", "type": "subscribe", "payload": payload})
    message: dict[str, Any] = await socket.receive()
    return message


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (
            {"query": "query A { viewer { id } }", "operationName": "Nope"},
            'Unknown operation named "Nope".',
        ),
        (
            {"query": TWO_OPERATIONS},
            "Must provide operation name if query contains multiple operations.",
        ),
    ],
)
async def test_an_operation_that_cannot_be_chosen_is_an_error_and_the_socket_stays_open(
    live: LiveGateway, payload: dict[str, Any], message: str
) -> None:
    async with open_socket(live.url) as socket:
        assert await socket.init(live.token()) == {"type": "connection_ack"}
        answer = await subscribe_and_receive(socket, payload)
        assert answer == {
            "id": "1",
            "type": "error",
            "payload": [{"message": message, "extensions": {"code": "BAD_REQUEST"}}],
        }
        # Still open, and the id free again: the same document, named, runs.
        await socket.send({"type": "ping"})
        assert await socket.receive() == {"type": "pong"}
        named = await subscribe_and_receive(socket, {"query": TWO_OPERATIONS, "operationName": "A"})
        assert named == {"id": "1", "type": "next", "payload": {"data": {"viewer": {"id": "u-1"}}}}
