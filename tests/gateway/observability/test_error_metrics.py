"""`gateway_graphql_errors_total` counts every error answered, under the `extensions.code`
the client saw: those added when the answer is written (parse, validation) and those of
requests refused before any execution (401, 400) too."""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx
import pytest

from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema.clock import FixedClock
from tests.gateway.http_client import OTHER_USER, gateway_client, tokens
from tests.metrics_text import by_label

#: (name, request, the code the client sees): one request per code.
REQUESTS: list[tuple[str, dict[str, Any], str]] = [
    ("parse", {"json": {"query": "{ viewer { id "}}, "GRAPHQL_PARSE_FAILED"),
    ("validation", {"json": {"query": "{ viewer { nope } }"}}, "GRAPHQL_VALIDATION_FAILED"),
    (
        "variables",
        {"json": {"query": "query($n: Int!) { viewer { id } }", "variables": {"n": "x"}}},
        "BAD_USER_INPUT",
    ),
    ("no query", {"json": {"variables": {}}}, "BAD_REQUEST"),
    (
        "forbidden",
        {"json": {"query": f'{{ user(id: "{OTHER_USER}") {{ id }} }}'}},
        "FORBIDDEN",
    ),
    (
        "too many aliases",
        {"json": {"query": "{ " + " ".join(f"a{n}: __typename" for n in range(40)) + " }"}},
        "QUERY_TOO_COMPLEX",
    ),
    (
        "unknown persisted query",
        {"json": {"extensions": {"persistedQuery": {"version": 1, "sha256Hash": "0" * 64}}}},
        "PERSISTED_QUERY_NOT_FOUND",
    ),
    ("no token", {"json": {"query": "{ viewer { id } }"}, "headers": {}}, "UNAUTHENTICATED"),
]


def error_counts(text: str) -> Counter[str]:
    found = by_label(text, "gateway_graphql_errors_total", "code")
    return Counter({code: int(count) for code, count in found.items()})


def codes_answered(response: httpx.Response) -> list[str]:
    payloads = response.json()
    return [
        error["extensions"]["code"]
        for payload in (payloads if isinstance(payloads, list) else [payloads])
        for error in payload.get("errors", [])
    ]


@pytest.mark.parametrize(("name", "request_", "code"), REQUESTS, ids=[r[0] for r in REQUESTS])
async def test_each_error_is_counted_under_the_code_the_client_saw(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    name: str,
    request_: dict[str, Any],
    code: str,
) -> None:
    headers = {"Authorization": f"Bearer {tokens(clock)['end user']()}"}
    async with gateway_client(settings, dynamo, clock) as client:
        before = error_counts((await client.get("/metrics")).text)
        response = await client.post("/graphql", **{"headers": headers, **request_})
        after = error_counts((await client.get("/metrics")).text)

    seen = codes_answered(response)
    assert code in seen, response.text
    assert after - before == Counter(seen)
    assert "UNCODED" not in after


async def test_the_errors_of_a_batch_are_counted_each(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    headers = {"Authorization": f"Bearer {tokens(clock)['end user']()}"}
    batch = [{"query": "{ viewer { id "}, {"query": "{ nope }"}, {"query": "{ viewer { id } }"}]
    async with gateway_client(settings, dynamo, clock, max_batch_operations=5) as client:
        response = await client.post("/graphql", json=batch, headers=headers)
        counts = error_counts((await client.get("/metrics")).text)

    assert codes_answered(response) == ["GRAPHQL_PARSE_FAILED", "GRAPHQL_VALIDATION_FAILED"]
    assert counts == Counter({"GRAPHQL_PARSE_FAILED": 1, "GRAPHQL_VALIDATION_FAILED": 1})
