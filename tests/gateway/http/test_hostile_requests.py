"""Hostile and malformed HTTP requests: each one's status, error code and DynamoDB calls.

Every request here is refused before execution (0 calls), or reaches a resolver that
refuses it before reading (FORBIDDEN, BAD_USER_INPUT: 0 calls too).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from gateway.http.media_types import GRAPHQL_RESPONSE_JSON, JSON
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import END_USER, OTHER_USER, gateway_client, tokens
from tests.conftest import CallCounter

MAX_BODY = 16_384
UNSET: Any = object()


@dataclass(frozen=True)
class Case:
    name: str
    status: int
    code: str
    json: Any = UNSET
    content: bytes | None = None
    method: str = "POST"
    params: dict[str, str] | None = None
    content_type: str | None = JSON
    accept: str = GRAPHQL_RESPONSE_JSON
    token: str | None = "end user"
    authorization: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


def q(query: str, **rest: Any) -> dict[str, Any]:
    return {"query": query, **rest}


def ids(count: int) -> str:
    return json.dumps([f"u-{n}" for n in range(count)])


ALIAS_BOMB = "{ " + " ".join(f"a{n}: viewer {{ id }}" for n in range(31)) + " }"
FRAGMENT_BOMB = "{ viewer { ...F9 } } fragment F0 on User { a: id b: id } " + " ".join(
    f"fragment F{n} on User {{ ...F{n - 1} ...F{n - 1} }}" for n in range(1, 10)
)
DEEP = "{ viewer { " + "a { " * 10 + "b" + " }" * 10 + " } }"
TOKEN_FLOOD = "{ viewer { " + "id " * 2000 + "} }"
MARK = f'mutation {{ markInsightsRefresh(input: {{userId: "{END_USER}"}}) {{ label }} }}'
LAST_PAGE = (
    "mutation($page: Int!) { recordLastPage("
    'input: {userId: "u-1", paveRequestId: "r-1", page: $page}) { page } }'
)
EXPENSIVE = (
    f"{{ users(ids: {ids(100)}) {{ cashAdvanceScores(limit: 100) {{ score }} "
    "incomeDetectionRuns(limit: 100) { runDate } } }"
)

CASES = [
    # The body and its framing.
    Case("bad JSON", 400, "BAD_REQUEST", content=b'{"query": "{ viewer { id } }"'),
    Case("JSON not an object", 400, "BAD_REQUEST", json="{ viewer { id } }"),
    Case("JSON nested 5000 deep", 400, "BAD_REQUEST", content=b"[" * 5000 + b"]" * 5000),
    Case(
        "NaN in variables",
        400,
        "BAD_REQUEST",
        content=b'{"query": "{ viewer { id } }", "variables": {"n": NaN}}',
    ),
    Case("body not UTF-8", 400, "BAD_REQUEST", content=b'{"query": "\xff\xfe"}'),
    Case("query not a string", 400, "BAD_REQUEST", json={"query": 42}),
    Case("variables not an object", 400, "BAD_REQUEST", json=q("{ viewer { id } }", variables=[1])),
    Case(
        "operationName not a string",
        400,
        "BAD_REQUEST",
        json=q("{ viewer { id } }", operationName=1),
    ),
    Case("no query", 400, "BAD_REQUEST", json={"variables": {}}),
    Case("blank query", 400, "BAD_REQUEST", json=q("   ")),
    Case(
        "unknown operationName",
        400,
        "BAD_REQUEST",
        json=q("query A { viewer { id } }", operationName="B"),
    ),
    Case("a batch over the bound", 400, "BAD_REQUEST", json=[q("{ viewer { id } }")] * 11),
    Case("an empty batch", 400, "BAD_REQUEST", json=[]),
    Case(
        "text/plain (a simple request)",
        415,
        "BAD_REQUEST",
        content=b'{"query": "{ viewer { id } }"}',
        content_type="text/plain",
    ),
    Case(
        "a form post",
        415,
        "BAD_REQUEST",
        content=b"query=%7B+viewer+%7B+id+%7D+%7D",
        content_type="application/x-www-form-urlencoded",
    ),
    Case(
        "multipart",
        415,
        "BAD_REQUEST",
        content=b"--x--",
        content_type="multipart/form-data; boundary=x",
    ),
    Case(
        "no content type",
        415,
        "BAD_REQUEST",
        content=b'{"query": "{ viewer { id } }"}',
        content_type=None,
    ),
    Case(
        "JSON in latin-1",
        415,
        "BAD_REQUEST",
        json=q("{ viewer { id } }"),
        content_type="application/json; charset=latin-1",
    ),
    Case(
        "application/graphql body",
        415,
        "BAD_REQUEST",
        content=b"{ viewer { id } }",
        content_type="application/graphql",
    ),
    Case(
        "body over the cap",
        413,
        "BAD_REQUEST",
        json=q("{ viewer { id } }", variables={"pad": "x" * MAX_BODY}),
    ),
    Case("PUT", 405, "BAD_REQUEST", method="PUT", json=q("{ viewer { id } }")),
    Case("DELETE", 405, "BAD_REQUEST", method="DELETE", content=b"", content_type=None),
    Case(
        "mutation over GET",
        405,
        "BAD_REQUEST",
        method="GET",
        params={"query": "mutation { x }"},
        content_type=None,
    ),
    Case("subscription", 400, "BAD_REQUEST", json=q("subscription { viewer { id } }")),
    Case(
        "GET variables not JSON",
        400,
        "BAD_REQUEST",
        method="GET",
        params={"query": "{ viewer { id } }", "variables": "{"},
        content_type=None,
    ),
    Case(
        "Accept: text/xml only", 406, "BAD_REQUEST", json=q("{ viewer { id } }"), accept="text/xml"
    ),
    # GraphQL itself: parse, validation, limits.
    Case("syntax error", 400, "GRAPHQL_PARSE_FAILED", json=q("{ viewer { id }")),
    Case("unknown field", 400, "GRAPHQL_VALIDATION_FAILED", json=q("{ viewer { id password } }")),
    Case(
        "unknown field, legacy JSON: 200",
        200,
        "GRAPHQL_VALIDATION_FAILED",
        json=q("{ viewer { password } }"),
        accept=JSON,
    ),
    Case(
        "unknown argument",
        400,
        "GRAPHQL_VALIDATION_FAILED",
        json=q("{ viewer { cashAdvanceScores(top: 1) { score } } }"),
    ),
    Case(
        "variable of the wrong type",
        400,
        "BAD_USER_INPUT",
        json=q(
            "query($n: Int!) { viewer { cashAdvanceScores(limit: $n) { score } } }",
            variables={"n": "ten"},
        ),
    ),
    Case(
        "missing required variable",
        400,
        "BAD_USER_INPUT",
        json=q("query($id: ID!) { user(id: $id) { id } }", variables={}),
    ),
    Case("11 levels deep", 400, "QUERY_TOO_COMPLEX", json=q(DEEP)),
    Case("alias bomb", 400, "QUERY_TOO_COMPLEX", json=q(ALIAS_BOMB)),
    Case("fragment bomb", 400, "QUERY_TOO_COMPLEX", json=q(FRAGMENT_BOMB)),
    Case("token flood", 400, "QUERY_TOO_COMPLEX", json=q(TOKEN_FLOOD)),
    Case(
        "cost of 100 users x 200 items",
        400,
        "QUERY_TOO_COMPLEX",
        json=q(EXPENSIVE),
        token="dashboard",
    ),
    Case(
        "limit too complex, legacy JSON: 200",
        200,
        "QUERY_TOO_COMPLEX",
        json=q(ALIAS_BOMB),
        accept=JSON,
    ),
    Case(
        "101 ids",
        200,
        "BAD_USER_INPUT",
        json=q(f"{{ users(ids: {ids(101)}) {{ id }} }}"),
        token="dashboard",
    ),
    Case(
        "limit 101",
        200,
        "BAD_USER_INPUT",
        json=q("{ viewer { cashAdvanceScores(limit: 101) { score } } }"),
    ),
    Case(
        "months 0",
        200,
        "BAD_USER_INPUT",
        json=q("{ viewer { savingsMonths(months: 0) { month } } }"),
    ),
    Case(
        "persisted query unknown",
        400,
        "PERSISTED_QUERY_NOT_FOUND",
        json={"extensions": {"persistedQuery": {"version": 1, "sha256Hash": "a" * 64}}},
    ),
    Case(
        "persisted query with a wrong hash",
        400,
        "BAD_REQUEST",
        json=q(
            "{ viewer { id } }",
            extensions={"persistedQuery": {"version": 1, "sha256Hash": "b" * 64}},
        ),
    ),
    # Writes.
    Case("a mutation without writer", 200, "FORBIDDEN", json=q(MARK)),
    Case(
        "a mutation by a dashboard without writer",
        200,
        "FORBIDDEN",
        json=q(MARK),
        token="dashboard",
    ),
    Case(
        "a mutation with a negative page",
        200,
        "BAD_USER_INPUT",
        json=q(LAST_PAGE, variables={"page": -1}),
        token="writer",
    ),
    Case(
        "a mutation with a page of the wrong type",
        400,
        "BAD_USER_INPUT",
        json=q(LAST_PAGE, variables={"page": "2"}),
        token="writer",
    ),
    Case(
        "a mutation as a form post",
        415,
        "BAD_REQUEST",
        content=b"query=mutation",
        content_type="application/x-www-form-urlencoded",
        token="writer",
    ),
    Case(
        "a mutation over GET by a writer",
        405,
        "BAD_REQUEST",
        method="GET",
        params={"query": MARK},
        content_type=None,
        token="writer",
    ),
    # Who is calling.
    Case("no token", 401, "UNAUTHENTICATED", json=q("{ viewer { id } }"), token=None),
    Case("expired token", 401, "UNAUTHENTICATED", json=q("{ viewer { id } }"), token="expired"),
    Case(
        "token not valid yet (nbf)",
        401,
        "UNAUTHENTICATED",
        json=q("{ viewer { id } }"),
        token="not yet valid",
    ),
    Case(
        "unsigned token (alg none)",
        401,
        "UNAUTHENTICATED",
        json=q("{ viewer { id } }"),
        token="unsigned",
    ),
    Case(
        "token re-signed with another key",
        401,
        "UNAUTHENTICATED",
        json=q("{ viewer { id } }"),
        token="re-signed",
    ),
    Case(
        "claims swapped under a signature",
        401,
        "UNAUTHENTICATED",
        json=q("{ viewer { id } }"),
        token="tampered",
    ),
    Case("token without exp", 401, "UNAUTHENTICATED", json=q("{ viewer { id } }"), token="no exp"),
    Case(
        "roles not a list",
        401,
        "UNAUTHENTICATED",
        json=q("{ viewer { id } }"),
        token="roles a string",
    ),
    Case(
        "algorithm not configured",
        401,
        "UNAUTHENTICATED",
        json=q("{ viewer { id } }"),
        token="hs512",
    ),
    Case(
        "Basic credentials",
        401,
        "UNAUTHENTICATED",
        json=q("{ viewer { id } }"),
        token=None,
        authorization="Basic dTpw",
    ),
    Case(
        "garbage bearer",
        401,
        "UNAUTHENTICATED",
        json=q("{ viewer { id } }"),
        token=None,
        authorization="Bearer a.b.c",
    ),
    Case(
        "no token on GET",
        401,
        "UNAUTHENTICATED",
        method="GET",
        params={"query": "{ viewer { id } }"},
        content_type=None,
        token=None,
    ),
    Case("no token, bad JSON: 401 first", 401, "UNAUTHENTICATED", content=b"{", token=None),
    # What the caller may read.
    Case(
        "another user's id",
        200,
        "FORBIDDEN",
        json=q(f'{{ user(id: "{OTHER_USER}") {{ id payday {{ nextDate }} }} }}'),
    ),
    Case(
        # Only `id`: the caller's own user is served (it reads nothing), the other is null.
        "users() with another id among one's own",
        200,
        "FORBIDDEN",
        json=q(f'{{ users(ids: ["{END_USER}", "{OTHER_USER}"]) {{ id }} }}'),
    ),
    Case(
        "another user's id as a variable",
        200,
        "FORBIDDEN",
        json=q(
            "query($id: ID!) { user(id: $id) { income { amount } } }", variables={"id": OTHER_USER}
        ),
        token="writer",
    ),
]


@pytest.fixture
async def client(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> AsyncIterator[httpx.AsyncClient]:
    async with gateway_client(settings, dynamo, clock, max_body_bytes=MAX_BODY) as client:
        yield client


def test_the_table_is_big_enough() -> None:
    assert len(CASES) >= 30
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_hostile_request(
    case: Case, client: httpx.AsyncClient, clock: FixedClock, dynamodb_calls: CallCounter
) -> None:
    headers = {"Accept": case.accept, **case.headers}
    if case.content_type is not None:
        headers["Content-Type"] = case.content_type
    if case.token is not None:
        headers["Authorization"] = f"Bearer {tokens(clock)[case.token]()}"
    if case.authorization is not None:
        headers["Authorization"] = case.authorization
    content = case.content
    if case.json is not UNSET:
        content = json.dumps(case.json).encode()
    response = await client.request(
        case.method, "/graphql", params=case.params, content=content, headers=headers
    )

    assert response.status_code == case.status, response.text
    body = response.json()
    codes = [error["extensions"]["code"] for error in body["errors"]]
    assert codes[0] == case.code, body
    assert dynamodb_calls.total == 0
    # Nothing internal reaches the client.
    for secret in ("site-pave", "Traceback", "botocore", "dynamodb", SECRET_MARK):
        assert secret not in response.text
    if case.status == 405:
        assert "Allow" in response.headers
    if case.status == 401:
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    expected_type = case.accept if case.accept != "text/xml" else JSON
    assert response.headers["content-type"].startswith(expected_type)


SECRET_MARK = "http-tests-secret"
