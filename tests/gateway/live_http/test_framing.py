"""Which Accept asks for which stream, and each transport's bytes."""

from __future__ import annotations

import json

import pytest

from gateway.live_http.framing import (
    MultipartFraming,
    SseFraming,
    encode,
    event_id,
    stream_kind,
)


@pytest.mark.parametrize(
    ("accept", "kind"),
    [
        ("text/event-stream", "sse"),
        ("application/json, text/event-stream", "sse"),
        # Apollo Client's HttpLink, for a subscription, and the same quoted.
        (
            "multipart/mixed;boundary=graphql;subscriptionSpec=1.0,"
            "application/graphql-response+json,application/json;q=0.9",
            "multipart",
        ),
        ('multipart/mixed;subscriptionSpec="1.0", application/json', "multipart"),
        # `@defer`'s multipart, a plain request, none.
        ("multipart/mixed;deferSpec=20220824,application/json", None),
        ("application/graphql-response+json, application/json", None),
        (None, None),
    ],
)
def test_the_accept_header_chooses_the_stream(accept: str | None, kind: str | None) -> None:
    assert stream_kind(accept) == kind


def test_an_event_id_is_the_hash_of_the_answers_bytes() -> None:
    answer = {"data": {"viewerChanged": {"id": "u-1", "lowBalanceAlert": "40.00"}}}
    same = json.loads(json.dumps(answer))
    other = {"data": {"viewerChanged": {"id": "u-1", "lowBalanceAlert": "41.00"}}}
    assert event_id(encode(answer)) == event_id(encode(same))
    assert event_id(encode(answer)) != event_id(encode(other))
    assert len(event_id(encode(answer))) == 12


def test_sse_frames_next_complete_and_a_restart() -> None:
    framing = SseFraming()
    answer = {"data": {"x": 1}}
    data = encode(answer)
    assert framing.event(answer, data, "abc") == b'event: next\nid: abc\ndata: {"data":{"x":1}}\n\n'
    assert framing.event(answer, data, None) == b'event: next\ndata: {"data":{"x":1}}\n\n'
    assert framing.complete() == b"event: complete\ndata: \n\n"
    assert framing.restart(250) == b"retry: 250\n\n"


def test_multipart_parts_carry_the_payload_and_its_event_id() -> None:
    framing = MultipartFraming()
    answer = {"data": {"x": 1}}
    part = framing.event(answer, encode(answer), "abc")
    head, _, body = part.partition(b"\r\n\r\n")
    assert head == b"\r\nContent-Type: application/json; charset=utf-8"
    assert body.endswith(b"\r\n--graphql")
    shown = json.loads(body.removesuffix(b"\r\n--graphql"))
    assert shown == {"payload": {"data": {"x": 1}, "extensions": {"eventId": "abc"}}}
    assert framing.start().startswith(b"--graphql\r\n")
    assert framing.complete() == b"--\r\n"
