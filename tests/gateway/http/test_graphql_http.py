"""The GraphQL endpoint's answers to well-formed requests: negotiation, GET, APQ, batching,
introspection and GraphiQL switches, CORS, request ids, masking, and the real lifespan."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from typing import Any

import httpx
import pytest

from gateway.app import create_app
from gateway.http.media_types import GRAPHQL_RESPONSE_JSON, JSON
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import END_USER, OTHER_USER, SECRET, gateway_client, tokens
from tests.conftest import CallCounter

VIEWER = "{ viewer { id payday { nextDate } } }"


def auth(clock: FixedClock, kind: str = "end user", **headers: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens(clock)[kind]()}", **headers}


async def test_viewer_over_post_reads_once(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, dynamodb_calls: CallCounter
) -> None:
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.post("/graphql", json={"query": VIEWER}, headers=auth(clock))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    assert response.json() == {"data": {"viewer": {"id": END_USER, "payday": None}}}
    assert dict(dynamodb_calls.calls) == {"BatchGetItem": 1}


async def test_a_query_over_get(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, dynamodb_calls: CallCounter
) -> None:
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.get(
            "/graphql",
            params={
                "query": "query($n: Int) { viewer { id cashAdvanceScores(limit: $n) { score } } }",
                "variables": json.dumps({"n": 3}),
            },
            headers=auth(clock),
        )
    assert response.status_code == 200, response.text
    assert response.json() == {"data": {"viewer": {"id": END_USER, "cashAdvanceScores": []}}}
    assert dict(dynamodb_calls.calls) == {"Query": 1}


@pytest.mark.parametrize(
    ("accept", "media_type"),
    [
        (None, JSON),
        ("*/*", JSON),
        ("application/json", JSON),
        (GRAPHQL_RESPONSE_JSON, GRAPHQL_RESPONSE_JSON),
        (f"{GRAPHQL_RESPONSE_JSON}, application/json;q=0.9", GRAPHQL_RESPONSE_JSON),
        (f"application/json, {GRAPHQL_RESPONSE_JSON};q=0.5", JSON),
        ("application/*", JSON),
    ],
)
async def test_content_negotiation(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, accept: str | None, media_type: str
) -> None:
    headers = auth(clock)
    async with gateway_client(settings, dynamo, clock) as client:
        if accept is not None:
            headers["Accept"] = accept
        else:
            client.headers.pop("accept", None)
        response = await client.post(
            "/graphql", json={"query": "{ viewer { id } }"}, headers=headers
        )
    assert response.status_code == 200
    assert response.headers["content-type"] == f"{media_type}; charset=utf-8"


async def test_a_dashboard_reads_any_user(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    query = f'{{ users(ids: ["{OTHER_USER}", "{END_USER}", "{OTHER_USER}"]) {{ id }} }}'
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.post(
            "/graphql", json={"query": query}, headers=auth(clock, "dashboard")
        )
    assert response.json() == {
        "data": {"users": [{"id": OTHER_USER}, {"id": END_USER}, {"id": OTHER_USER}]}
    }


async def test_automatic_persisted_queries(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, dynamodb_calls: CallCounter
) -> None:
    sha = hashlib.sha256(VIEWER.encode()).hexdigest()
    extensions = {"persistedQuery": {"version": 1, "sha256Hash": sha}}
    async with gateway_client(settings, dynamo, clock) as client:
        missed = await client.post("/graphql", json={"extensions": extensions}, headers=auth(clock))
        registered = await client.post(
            "/graphql", json={"query": VIEWER, "extensions": extensions}, headers=auth(clock)
        )
        by_hash = await client.get(
            "/graphql", params={"extensions": json.dumps(extensions)}, headers=auth(clock)
        )
    assert missed.status_code == 200
    assert missed.json() == {
        "errors": [
            {
                "message": "PersistedQueryNotFound",
                "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"},
            }
        ]
    }
    expected = {"data": {"viewer": {"id": END_USER, "payday": None}}}
    assert registered.json() == expected
    assert by_hash.json() == expected
    assert dynamodb_calls.calls["BatchGetItem"] == 2


async def test_batches_when_turned_on(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway_client(settings, dynamo, clock, max_batch_operations=3) as client:
        two = await client.post(
            "/graphql",
            json=[{"query": "{ viewer { id } }"}, {"query": "{ viewer { nope } }"}],
            headers=auth(clock),
        )
        four = await client.post(
            "/graphql", json=[{"query": "{ viewer { id } }"}] * 4, headers=auth(clock)
        )
        empty = await client.post("/graphql", json=[], headers=auth(clock))
    assert two.status_code == 200
    first, second = two.json()
    assert first == {"data": {"viewer": {"id": END_USER}}}
    assert second["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    assert "data" not in second
    assert four.status_code == 400
    assert four.json()["errors"][0]["message"] == "A batch holds 1 to 3 operations, not 4"
    assert empty.status_code == 400


INTROSPECTION = "{ __schema { queryType { name } } }"


@pytest.mark.parametrize("introspection", [True, False])
async def test_introspection_switch(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, introspection: bool
) -> None:
    async with gateway_client(settings, dynamo, clock, introspection=introspection) as client:
        response = await client.post(
            "/graphql",
            json={"query": INTROSPECTION},
            headers=auth(clock, Accept=GRAPHQL_RESPONSE_JSON),
        )
    if introspection:
        assert response.json() == {"data": {"__schema": {"queryType": {"name": "Query"}}}}
    else:
        assert response.status_code == 400
        assert response.json()["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"


BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize("graphiql", [True, False])
async def test_graphiql_switch(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, graphiql: bool
) -> None:
    async with gateway_client(settings, dynamo, clock, graphiql=graphiql) as client:
        # A browser navigating here has no token: the page itself needs none.
        response = await client.get("/graphql", headers={"Accept": BROWSER_ACCEPT})
    if graphiql:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")
        assert "graphiql" in response.text.lower()
    else:
        assert response.status_code == 404
        assert response.json()["errors"][0]["message"] == "GraphiQL is turned off on this gateway"


async def test_cors_allows_only_the_configured_origins(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    preflight = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type,x-insight-cost,traceparent",
    }
    origins = ("https://app.example.com",)
    async with gateway_client(settings, dynamo, clock, cors_origins=origins) as client:
        allowed = await client.options(
            "/graphql", headers={"Origin": "https://app.example.com", **preflight}
        )
        refused = await client.options(
            "/graphql", headers={"Origin": "https://evil.example", **preflight}
        )
        simple = await client.post(
            "/graphql",
            json={"query": "{ viewer { id } }"},
            headers=auth(clock, Origin="https://app.example.com"),
        )
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "https://app.example.com"
    assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
    assert refused.status_code == 400
    assert "access-control-allow-origin" not in refused.headers
    assert simple.headers["access-control-allow-origin"] == "https://app.example.com"
    exposed = simple.headers["access-control-expose-headers"].split(", ")
    assert exposed == ["X-Request-ID", "RateLimit", "RateLimit-Policy", "Retry-After"]

    async with gateway_client(settings, dynamo, clock) as client:
        no_cors = await client.options(
            "/graphql", headers={"Origin": "https://app.example.com", **preflight}
        )
    assert no_cors.status_code == 405
    assert "access-control-allow-origin" not in no_cors.headers


@pytest.mark.parametrize(
    ("sent", "kept"),
    [("req-123_abc.Z", True), ("bad id with spaces", False), ("x" * 65, False), (None, False)],
)
async def test_request_ids(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, sent: str | None, kept: bool
) -> None:
    headers = auth(clock) if sent is None else auth(clock, **{"X-Request-ID": sent})
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.post(
            "/graphql", json={"query": "{ viewer { id } }"}, headers=headers
        )
    returned = response.headers["x-request-id"]
    if kept:
        assert returned == sent
    else:
        assert returned != sent
        assert len(returned) == 32


async def test_an_unexpected_failure_is_masked_and_logged(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, caplog: pytest.LogCaptureFixture
) -> None:
    async with gateway_client(settings, dynamo, clock) as client:
        # No DynamoDB door on the app: building the context fails, a bug on our side.
        transport = client._transport
        assert isinstance(transport, httpx.ASGITransport)
        transport.app.state.resources = None  # type: ignore[attr-defined]
        with caplog.at_level(logging.ERROR, logger="gateway.http"):
            response = await client.post(
                "/graphql",
                json={"query": VIEWER},
                headers=auth(clock, **{"X-Request-ID": "req-500"}),
            )
    assert response.status_code == 500
    assert response.json() == {
        "errors": [
            {
                "message": "Internal server error",
                "extensions": {"code": "INTERNAL_SERVER_ERROR", "requestId": "req-500"},
            }
        ]
    }
    assert "dynamo" not in response.text
    [record] = [r for r in caplog.records if r.name == "gateway.http"]
    assert "req-500" in record.getMessage()
    assert record.exc_info is not None


async def test_the_real_lifespan_serves_a_request(settings: Settings, clock: FixedClock) -> None:
    """No borrowed door: create_app's own lifespan opens its own client against moto."""
    app = create_app(dataclasses.replace(settings, auth_hs256_secret=SECRET), clock=clock)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://gateway") as client,
    ):
        response = await client.post("/graphql", json={"query": VIEWER}, headers=auth(clock))
        health = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"data": {"viewer": {"id": END_USER, "payday": None}}}
    assert health.status_code == 200


def test_bad_auth_settings_fail_at_startup(settings: Settings, tmp_path: Any) -> None:
    from gateway.settings import SettingsError

    with pytest.raises(SettingsError, match="at least 32 bytes"):
        create_app(dataclasses.replace(settings, auth_hs256_secret="short"))
    with pytest.raises(SettingsError, match="cannot be read"):
        create_app(dataclasses.replace(settings, auth_jwks_file=str(tmp_path / "absent.json")))


async def test_a_writer_mutates_over_post(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, dynamodb_calls: CallCounter
) -> None:
    mutation = f'mutation {{ markInsightsRefresh(input: {{userId: "{OTHER_USER}"}}) {{ label }} }}'
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.post(
            "/graphql", json={"query": mutation}, headers=auth(clock, "writer")
        )
    assert response.status_code == 200
    assert response.json() == {"data": {"markInsightsRefresh": {"label": "REFRESH_INSIGHTS"}}}
    assert dict(dynamodb_calls.calls) == {"PutItem": 1}


async def test_rs256_and_es256_tokens_from_a_jwks_file(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, tmp_path: Any
) -> None:
    from joserfc.jwk import ECKey, RSAKey

    from support import jwt_factory

    rsa = RSAKey.generate_key(2048, parameters={"kid": "idp-rsa"})
    ec = ECKey.generate_key("P-256", parameters={"kid": "idp-ec"})
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps({"keys": [rsa.as_dict(private=False), ec.as_dict(private=False)]}))
    now = int(clock.now().timestamp())
    claims = {"sub": END_USER, "exp": now + 60, "iss": "https://idp", "aud": "insight"}
    overrides: dict[str, Any] = {
        "auth_jwks_file": str(jwks),
        "auth_issuer": "https://idp",
        "auth_audience": "insight",
    }
    async with gateway_client(settings, dynamo, clock, **overrides) as client:
        answers = [
            await client.post(
                "/graphql",
                json={"query": "{ viewer { id } }"},
                headers={"Authorization": f"Bearer {token}"},
            )
            for token in (
                jwt_factory.asymmetric(rsa, "RS256", claims, "idp-rsa"),
                jwt_factory.asymmetric(ec, "ES256", claims, "idp-ec"),
                jwt_factory.asymmetric(rsa, "RS256", {**claims, "aud": "other"}, "idp-rsa"),
                # The classic confusion: HS256 keyed with the published RSA key.
                jwt_factory.hs256(rsa.as_pem(private=False), claims, {"kid": "idp-rsa"}),
            )
        ]
    assert [answer.status_code for answer in answers] == [200, 200, 401, 401]
    assert answers[0].json() == {"data": {"viewer": {"id": END_USER}}}
    assert answers[3].json()["errors"][0]["message"] == (
        "The bearer token's signature does not verify"
    )
