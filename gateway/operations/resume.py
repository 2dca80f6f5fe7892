"""A subscription picked up where its client left it, over any transport (a live HTTP
stream, the socket): the id of the state it last saw. Its session (`schema.live.LiveSession`,
`resuming`) reads each user's current state at once, so that a state changed while the
client was away arrives first, and an unchanged one is not sent at all (the transport skips
an event naming the state the client holds: gateway/live_http/stream.py,
gateway/subscriptions/operation.py).

An event's id is a hash of its answer's bytes: the same state has the same id on every
replica, after a restart, and over every transport."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import orjson

from gateway.operations.operation import BadRequest

__all__ = ["EXTENSION", "encode", "event_id", "given_event_id"]

#: Where a client that sets no header says it (the socket, multipart; SSE too, by choice).
EXTENSION = "lastEventId"
#: An event id is 12 characters (`event_id`); anything far longer is no id of ours.
MAX_CHARS = 64


def encode(payload: Any) -> bytes:
    """An answer's JSON, compact, as the HTTP answer's (orjson: a warm answer's kept parts
    are JSON already): the bytes its id is the hash of."""
    return orjson.dumps(payload)


def event_id(data: bytes) -> str:
    """The state's name: 72 bits of BLAKE2b over the answer's bytes, in 12 URL-safe
    characters (a collision between a user's successive states is not a concern)."""
    digest = hashlib.blake2b(data, digest_size=9).digest()
    return base64.urlsafe_b64encode(digest).decode()


def given_event_id(given: object) -> str | None:
    """The id of the state the client last saw, as it sent it; None for a first subscribe.
    Anything that is no id of ours is refused (BAD_REQUEST)."""
    if given is None or given == "":
        return None
    if not isinstance(given, str) or len(given) > MAX_CHARS or not given.isprintable():
        raise BadRequest(f"{EXTENSION} (Last-Event-ID) must be an event id this gateway sent")
    return given
