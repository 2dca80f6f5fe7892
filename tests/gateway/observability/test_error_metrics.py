"""`gateway_graphql_errors_total` counts every error answered, under the `extensions.code`
the client saw: those added when the answer is written (parse, validation) and those of
requests refused before any execution (401, 400) too. `gateway_graphql_operations_total`
counts each operation by its outcome: ok (no error), error (refused whole, or every root
field null with an error) or partial (the rest)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx
import pytest

from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import OTHER_USER, gateway_client, tokens
from support.metrics_text import by_label, total

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


LAST_PAGE = "mutation($input: RecordLastPageInput!) { recordLastPage(input: $input) { page } }"

#: (name, token, document, variables, the operation type, the outcome counted).
OUTCOMES: list[tuple[str, str, str, dict[str, Any] | None, str, str]] = [
    ("served", "end user", "{ viewer { id } }", None, "query", "ok"),
    (
        "a mutation without the writer role",
        "end user",
        LAST_PAGE,
        {"input": {"userId": OTHER_USER, "paveRequestId": "r-1", "page": 1}},
        "mutation",
        "error",
    ),
    (
        "a mutation with bad input",
        "writer",
        LAST_PAGE,
        {"input": {"userId": OTHER_USER, "paveRequestId": "r-1", "page": -1}},
        "mutation",
        "error",
    ),
    (
        "the only root field refused",
        "end user",
        f'{{ user(id: "{OTHER_USER}") {{ id }} }}',
        None,
        "query",
        "error",
    ),
    (
        "one root field nulled beside another",
        "end user",
        f'{{ viewer {{ id }} other: user(id: "{OTHER_USER}") {{ id }} }}',
        None,
        "query",
        "partial",
    ),
    ("not valid", "end user", "{ viewer { nope } }", None, "query", "error"),
]


@pytest.mark.parametrize(
    ("name", "token", "query", "variables", "operation", "outcome"),
    OUTCOMES,
    ids=[o[0] for o in OUTCOMES],
)
async def test_each_operation_is_counted_by_its_outcome(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    name: str,
    token: str,
    query: str,
    variables: dict[str, Any] | None,
    operation: str,
    outcome: str,
) -> None:
    headers = {"Authorization": f"Bearer {tokens(clock)[token]()}"}
    body: dict[str, Any] = {"query": query, "variables": variables}
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.post("/graphql", json=body, headers=headers)
        text = (await client.get("/metrics")).text

    counted = by_label(text, "gateway_graphql_operations_total", "outcome")
    assert counted == {outcome: 1.0}, response.text
    assert total(text, "gateway_graphql_operations_total", operation=operation) == 1
    # What the definitions read: an `error` served nothing, a `partial` served something.
    served = [value for value in (response.json().get("data") or {}).values() if value]
    assert bool(served) == (outcome != "error")
