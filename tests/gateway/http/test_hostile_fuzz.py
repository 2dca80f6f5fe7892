"""Generated hostile requests over HTTP (tests/gateway/hostile_inputs.py): random, deep,
wide, aliased and fragment-laden documents, odd text and bytes, variables of the wrong type
or size. Each answer is a client's: no 500, no traceback in the body or the logs, every error
coded from the contract, and no request holds the event loop longer than the limits'
measured bound (`LOOP_HOLD_BOUND`)."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.http.media_types import GRAPHQL_RESPONSE_JSON
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import gateway_client, tokens
from tests.gateway.hostile_inputs import (
    CONTRACT_CODES,
    DOCUMENTS,
    EXAMPLES,
    LOOP_HOLD_BOUND,
    VARIABLE_DOCUMENTS,
    VARIABLES,
)
from tests.gateway.loop_hold import LoopHold, loop_hold

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
ACCEPTS = ["application/json", GRAPHQL_RESPONSE_JSON, "*/*"]
#: Root selections in the probe's unbounded document (its comment says why so many).
PROBE_SELECTIONS = 25_000


@pytest.fixture
async def client(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> AsyncIterator[httpx.AsyncClient]:
    # Budgets large enough that the examples are read, not refused for the budget.
    async with gateway_client(
        settings, dynamo, clock, rate_limit_user="100000000/minute"
    ) as client:
        client.headers["Authorization"] = f"Bearer {tokens(clock)['end user']()}"
        yield client


@pytest.fixture
def hold() -> Any:
    with loop_hold() as hold:
        yield hold


def assert_answered(response: httpx.Response, caplog: pytest.LogCaptureFixture) -> None:
    """A client's answer: no 5xx, JSON, and every error coded from the contract."""
    assert response.status_code < 500, (response.status_code, response.text[:500])
    assert "Traceback" not in response.text
    body = response.json()
    answers = body if isinstance(body, list) else [body]
    for answer in answers:
        assert isinstance(answer, dict), body
        if response.status_code != 200 or "data" not in answer:
            assert answer.get("errors"), body
        for error in answer.get("errors") or []:
            assert error["extensions"]["code"] in CONTRACT_CODES, error
    assert "Traceback" not in caplog.text
    assert all(record.exc_info is None for record in caplog.records), caplog.text[-2000:]
    assert all(record.levelno < logging.ERROR for record in caplog.records), caplog.text[-2000:]


async def send(
    client: httpx.AsyncClient, hold: LoopHold, how: str, body: Any, accept: str
) -> httpx.Response:
    """`body` sent; the loop held under the bound while it is served. A hold past it is
    tried once more, as another text (a comment added, so that no cache keyed by text
    knows it), before it fails the test: a document's cost repeats, a neighbour's burst
    on a shared machine rarely does."""
    response = await hold.run(_request(client, how, body, accept))
    if hold.longest >= LOOP_HOLD_BOUND:
        first = hold.longest
        response = await hold.run(_request(client, how, _commented(body), accept))
        assert hold.longest < LOOP_HOLD_BOUND, (first, hold.longest, str(body)[:300])
    return response


async def _request(client: httpx.AsyncClient, how: str, body: Any, accept: str) -> httpx.Response:
    headers = {"Accept": accept}
    if how == "get":
        params = {
            key: json.dumps(value) if key == "variables" else value for key, value in body.items()
        }
        return await client.get("/graphql", params=params, headers=headers)
    # JSON escapes (`\\ud800`) carry any str, lone surrogates included.
    content = json.dumps(body).encode() if how == "json" else body
    headers["Content-Type"] = "application/json"
    return await client.post("/graphql", content=content, headers=headers)


def _commented(body: Any) -> Any:
    if isinstance(body, list):
        return [_commented(item) for item in body]
    if isinstance(body, dict) and isinstance(body.get("query"), str):
        return {**body, "query": body["query"] + "\n# again"}
    return body


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


BODIES = st.one_of(
    st.builds(lambda q: ("json", {"query": q}), DOCUMENTS),
    st.builds(
        lambda q, name: ("json", {"query": q, "operationName": name}),
        DOCUMENTS,
        st.one_of(st.none(), st.sampled_from(["Q", "Other", "\ud800", ""]), st.integers()),
    ),
    st.builds(lambda q, v: ("json", {"query": q, "variables": v}), VARIABLE_DOCUMENTS, VARIABLES),
    # A URL carries UTF-8 only: a lone surrogate cannot be sent in one.
    st.builds(lambda q: ("get", {"query": q}), DOCUMENTS.filter(_utf8)),
    st.builds(
        lambda q, v: ("get", {"query": q, "variables": v}),
        VARIABLE_DOCUMENTS,
        VARIABLES.filter(lambda v: _utf8(json.dumps(v, ensure_ascii=False))),
    ),
    st.builds(lambda raw: ("bytes", raw), st.binary(max_size=300)),
    st.builds(
        lambda q: ("bytes", b'{"query": "' + q.encode("utf-8", "surrogatepass") + b'"}'),
        st.sampled_from(["{ viewer { id } }", "\\ud800", "\udc00", "{ viewer { id } }\\udfff"]),
    ),
    st.builds(
        lambda items: ("json", items),
        st.lists(st.fixed_dictionaries({"query": DOCUMENTS}), max_size=4),
    ),
)


@FUZZ
@given(request=BODIES, accept=st.sampled_from(ACCEPTS))
async def test_every_hostile_request_is_answered_within_the_bound(
    request: tuple[str, Any],
    accept: str,
    client: httpx.AsyncClient,
    hold: LoopHold,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    caplog.clear()  # one fixture serves every example
    how, body = request
    response = await send(client, hold, how, body, accept)
    assert_answered(response, caplog)


async def test_the_probe_sees_an_unbounded_document(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, hold: LoopHold
) -> None:
    # The bound can fail: with the shape limits and the body's size lifted, 25,000 aliased
    # `viewer`s are parsed, validated and completed in one stretch of the loop. The control
    # is far past the bound, not a few percent: 3.1-3.3 s of the thread's CPU on this 2-core
    # machine, busy or not (12-13x the bound); the cost is linear in the count. (Sibling
    # `viewer`s in one place, graphql-core's quadratic overlap rule, stop near 1.5 s here:
    # graphql-core 3.3 aborts the rule's walk.)
    unbounded = dataclasses.replace(
        settings,
        max_query_selections=10**6,
        max_query_overlaps=10**6,
        max_query_tokens=10**6,
        max_query_aliases=10**6,
        max_body_bytes=10**8,
    )
    selections = "{ " + " ".join(f"v{n}: viewer {{ id }}" for n in range(PROBE_SELECTIONS)) + " }"
    async with gateway_client(unbounded, dynamo, clock) as client:
        client.headers["Authorization"] = f"Bearer {tokens(clock)['end user']()}"
        await hold.run(client.post("/graphql", json={"query": selections}))
    assert hold.longest > LOOP_HOLD_BOUND, hold.longest


# --- Issue 42's surfaces: idempotency keys, read ids, request heads -------------------------
# Each example is answered as a client's answer (`assert_answered`); the loop-hold bound is
# the tests above's concern.

LABEL_MUTATION = (
    "mutation($u: ID!) { markInsightsRefresh(input: {userId: $u}) { label updatedDate } }"
)
#: Text a header can carry (latin-1, no line breaks), and any JSON a key could be sent as.
HEADER_TEXT = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"),
    max_size=300,
)
KEYS = st.one_of(
    st.builds(lambda key: ("header", key), HEADER_TEXT),
    st.builds(lambda key: ("header", f'"{key}"'), HEADER_TEXT),
    st.builds(
        lambda key: ("extensions", key),
        st.one_of(
            st.text(max_size=300),
            st.integers(),
            st.none(),
            st.lists(st.text(max_size=5), max_size=3),
            st.just("k" * 256),
        ),
    ),
)
IDS = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda c, n: c * n, st.sampled_from(["x", "é", "\U0001f600", " "]), st.integers(0, 2100)
    ),
)


@pytest.fixture
async def dashboard_client(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> AsyncIterator[httpx.AsyncClient]:
    async with gateway_client(
        settings, dynamo, clock, rate_limit_dashboard="100000000/minute"
    ) as client:
        client.headers["Authorization"] = f"Bearer {tokens(clock)['dashboard']()}"
        yield client


@pytest.fixture
async def writer_client(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> AsyncIterator[httpx.AsyncClient]:
    async with gateway_client(
        settings, dynamo, clock, rate_limit_writer="100000000/minute"
    ) as client:
        client.headers["Authorization"] = f"Bearer {tokens(clock)['writer']()}"
        yield client


@FUZZ
@given(key=KEYS, user=st.sampled_from(["u-1", "u-2"]), times=st.integers(1, 3))
async def test_every_idempotency_key_is_answered(
    key: tuple[str, Any],
    user: str,
    times: int,
    writer_client: httpx.AsyncClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    caplog.clear()
    where, value = key
    body: dict[str, Any] = {"query": LABEL_MUTATION, "variables": {"u": user}}
    headers: dict[bytes, bytes] = {}
    if where == "header":
        headers[b"Idempotency-Key"] = value.encode("latin-1")
    else:
        body["extensions"] = {"idempotencyKey": value}
    # Sent again: a replay, a 422 for the other user, or the same refusal.
    for _ in range(times):
        response = await writer_client.post("/graphql", json=body, headers=headers)
        assert_answered(response, caplog)
        assert response.status_code in (200, 400, 422), response.text[:300]


@FUZZ
@given(ids=st.lists(IDS, max_size=101))
async def test_every_read_id_is_answered_at_its_place(
    ids: list[str], dashboard_client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    caplog.clear()
    query = "query($ids: [ID!]!) { users(ids: $ids) { id lowBalanceAlert } }"
    response = await dashboard_client.post(
        "/graphql", json={"query": query, "variables": {"ids": ids}}
    )
    assert_answered(response, caplog)
    body = response.json()
    if not 1 <= len(ids) <= 100 or not _utf8("".join(ids)):
        return
    users = body["data"]["users"]
    assert len(users) == len(ids)
    for user_id, user in zip(ids, users, strict=True):
        fits = user_id.strip() and len(user_id) <= 256 and len(user_id.encode()) <= 1000
        assert (user is not None) == bool(fits), (user_id[:50], user)


HEAD_LINES = st.lists(
    st.tuples(
        st.binary(min_size=1, max_size=40).filter(lambda b: b":" not in b and b"\r" not in b),
        st.binary(max_size=30_000),
    ),
    max_size=6,
)


@pytest.fixture
async def served_port(settings: Settings, clock: FixedClock) -> AsyncIterator[int]:
    from gateway.app import create_app
    from support.serving import serving

    # A head not sent whole is closed after half a second, not the default ten.
    quick = dataclasses.replace(settings, head_timeout_seconds=0.5)
    async with serving(create_app(quick, clock=clock)) as url:
        yield int(url.split(":")[2].split("/")[0])


@FUZZ
@given(
    target=st.binary(max_size=2000),
    lines=HEAD_LINES,
    ended=st.booleans(),
)
async def test_every_request_head_is_answered_or_closed(
    target: bytes,
    lines: list[tuple[bytes, bytes]],
    ended: bool,
    served_port: int,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Raw heads (any target, header names and values of any bytes and size) to the server
    as the image runs it: a 4xx answer, or a close; never a 5xx or a traceback."""
    import asyncio

    caplog.set_level(logging.INFO)
    caplog.clear()
    head = b"GET /" + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    head += b"".join(name + b": " + value + b"\r\n" for name, value in lines)
    reader, writer = await asyncio.open_connection("127.0.0.1", served_port)
    try:
        writer.write(head + (b"\r\n" if ended else b""))
        if not ended:
            writer.write_eof()
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 30)
    except (ConnectionResetError, BrokenPipeError):
        line = b""
    finally:
        writer.close()
    status = int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else None
    assert status is None or status < 500, line
    if status is not None and len(head) > 16_384:
        assert status in (400, 431), line  # never served
    assert "Traceback" not in caplog.text
    assert all(record.levelno < logging.ERROR for record in caplog.records), caplog.text[-2000:]
