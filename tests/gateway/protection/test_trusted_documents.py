"""Trusted documents over HTTP: a listed operation named by text, sha256Hash or documentId,
over POST and GET, from an Apollo or a Relay manifest; enforce refuses the rest before
parsing (no DynamoDB call), bypass roles may send anything, audit serves, logs once, counts."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from gateway.app import create_app
from gateway.http.media_types import GRAPHQL_RESPONSE_JSON
from gateway.protection.trusted_documents import ManifestError
from gateway.settings import Settings, SettingsError
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import END_USER, gateway_client, tokens
from support.metrics_text import value
from tests.conftest import CallCounter

LISTED = "query Viewer { viewer { id payday { nextDate } } }"
RELAY_ID = "5f3e0c1b9a"  # Relay's ids are its own (md5 by default), not a SHA-256
UNLISTED = "query Other { viewer { id alert { alertSent } } }"
SERVED = {"data": {"viewer": {"id": END_USER, "payday": None}}}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def apq(text: str) -> dict[str, Any]:
    return {"persistedQuery": {"version": 1, "sha256Hash": sha(text)}}


def apollo_manifest(path: Path, *bodies: str) -> str:
    operations = [
        {"id": sha(body), "name": body.split()[1], "type": "query", "body": body} for body in bodies
    ]
    manifest = {"format": "apollo-persisted-query-manifest", "version": 1, "operations": operations}
    path.write_text(json.dumps(manifest))
    return str(path)


def relay_manifest(path: Path) -> str:
    path.write_text(json.dumps({RELAY_ID: LISTED}))
    return str(path)


def auth(clock: FixedClock, kind: str = "end user") -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens(clock)[kind]()}"}


# Every way a request may name the listed operation: (method, request fields).
NAMINGS: dict[str, dict[str, Any]] = {
    "text": {"query": LISTED},
    "sha256Hash alone": {"extensions": apq(LISTED)},
    "text and sha256Hash": {"query": LISTED, "extensions": apq(LISTED)},
    "documentId sha256:": {"documentId": f"sha256:{sha(LISTED)}"},
}


async def send(
    client: httpx.AsyncClient, method: str, fields: dict[str, Any], headers: dict[str, str]
) -> httpx.Response:
    if method == "POST":
        return await client.post("/graphql", json=fields, headers=headers)
    params = {k: json.dumps(v) if isinstance(v, dict) else v for k, v in fields.items()}
    return await client.get("/graphql", params=params, headers=headers)


@pytest.mark.parametrize("method", ["POST", "GET"])
@pytest.mark.parametrize("naming", sorted(NAMINGS))
async def test_enforce_serves_a_listed_operation_however_it_is_named(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, tmp_path: Path, method: str, naming: str
) -> None:
    manifest = apollo_manifest(tmp_path / "manifest.json", LISTED)
    async with gateway_client(
        settings, dynamo, clock, trusted_documents="enforce", trusted_documents_file=manifest
    ) as client:
        response = await send(client, method, NAMINGS[naming], auth(clock))
    assert response.status_code == 200, response.text
    assert response.json() == SERVED


@pytest.mark.parametrize("method", ["POST", "GET"])
@pytest.mark.parametrize(
    "fields",
    [{"documentId": RELAY_ID}, {"query": LISTED}, {"extensions": apq(LISTED)}],
    ids=["relay id", "text", "sha256Hash"],
)
async def test_a_relay_manifest(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    tmp_path: Path,
    method: str,
    fields: dict[str, Any],
) -> None:
    manifest = relay_manifest(tmp_path / "relay.json")
    async with gateway_client(
        settings, dynamo, clock, trusted_documents="enforce", trusted_documents_file=manifest
    ) as client:
        response = await send(client, method, fields, auth(clock))
    assert response.json() == SERVED


@pytest.mark.parametrize(
    "fields",
    [
        {"query": UNLISTED},
        {"query": UNLISTED, "extensions": apq(UNLISTED)},
        {"extensions": apq(UNLISTED)},
        {"documentId": f"sha256:{sha(UNLISTED)}"},
        {"query": "{ viewer { id "},  # never parsed: no syntax error, the same refusal
    ],
    ids=["text", "text and hash", "hash alone", "documentId", "unparsable"],
)
async def test_enforce_refuses_the_rest_before_reading(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    tmp_path: Path,
    dynamodb_calls: CallCounter,
    fields: dict[str, Any],
) -> None:
    manifest = apollo_manifest(tmp_path / "manifest.json", LISTED)
    async with gateway_client(
        settings, dynamo, clock, trusted_documents="enforce", trusted_documents_file=manifest
    ) as client:
        legacy = await client.post("/graphql", json=fields, headers=auth(clock))
        modern = await client.post(
            "/graphql", json=fields, headers={**auth(clock), "Accept": GRAPHQL_RESPONSE_JSON}
        )
        metrics = (await client.get("/metrics")).text
    refused = {
        "errors": [
            {
                "message": "This operation is not in the gateway's list of trusted documents",
                "extensions": {"code": "PERSISTED_QUERY_NOT_IN_LIST"},
            }
        ]
    }
    assert (legacy.status_code, legacy.json()) == (200, refused)
    assert (modern.status_code, modern.json()) == (400, refused)
    assert dynamodb_calls.total == 0
    assert value(metrics, "gateway_untrusted_operations_total", outcome="refused") == 2


async def test_enforce_never_registers_an_automatic_persisted_query(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, tmp_path: Path
) -> None:
    manifest = apollo_manifest(tmp_path / "manifest.json", LISTED)
    with_hash = {"query": UNLISTED, "extensions": apq(UNLISTED)}
    async with gateway_client(
        settings, dynamo, clock, trusted_documents="enforce", trusted_documents_file=manifest
    ) as client:
        # A dashboard may send it (a bypass role), and it is served, but not registered...
        served = await client.post("/graphql", json=with_hash, headers=auth(clock, "dashboard"))
        # ...so its hash alone finds nothing, for the dashboard or anyone.
        missed = await client.post(
            "/graphql", json={"extensions": apq(UNLISTED)}, headers=auth(clock, "dashboard")
        )
        refused = await client.post(
            "/graphql", json={"extensions": apq(UNLISTED)}, headers=auth(clock)
        )
    assert served.json()["data"]["viewer"]["id"] == END_USER
    assert missed.json()["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_FOUND"
    assert refused.json()["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_IN_LIST"


async def test_bypass_roles_may_send_anything(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, tmp_path: Path
) -> None:
    manifest = apollo_manifest(tmp_path / "manifest.json", LISTED)
    async with gateway_client(
        settings,
        dynamo,
        clock,
        trusted_documents="enforce",
        trusted_documents_file=manifest,
        trusted_documents_bypass_roles=frozenset({"writer"}),
    ) as client:
        writer = await client.post(
            "/graphql", json={"query": UNLISTED}, headers=auth(clock, "writer")
        )
        dashboard = await client.post(
            "/graphql", json={"query": UNLISTED}, headers=auth(clock, "dashboard")
        )
    assert writer.json() == {"data": {"viewer": {"id": END_USER, "alert": None}}}
    assert dashboard.json()["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_IN_LIST"


async def test_audit_serves_logs_each_document_once_and_counts(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    manifest = apollo_manifest(tmp_path / "manifest.json", LISTED)
    caplog.set_level(logging.WARNING, logger="gateway.trusted_documents")
    async with gateway_client(
        settings, dynamo, clock, trusted_documents="audit", trusted_documents_file=manifest
    ) as client:
        answers = [
            await client.post("/graphql", json={"query": q}, headers=auth(clock))
            for q in (UNLISTED, UNLISTED, LISTED, UNLISTED)
        ]
        # A bypass role is not what audit is looking for: neither logged nor counted.
        await client.post(
            "/graphql", json={"query": UNLISTED + " "}, headers=auth(clock, "dashboard")
        )
        metrics = (await client.get("/metrics")).text
    assert [a.status_code for a in answers] == [200] * 4
    assert answers[0].json() == {"data": {"viewer": {"id": END_USER, "alert": None}}}
    logged = [r.getMessage() for r in caplog.records if r.name == "gateway.trusted_documents"]
    assert len(logged) == 1
    assert sha(UNLISTED) in logged[0]
    assert "operationName None" in logged[0]
    assert value(metrics, "gateway_untrusted_operations_total", outcome="served") == 3
    # The listed operation's metrics carry its name; every other text shares one label.
    operations = "gateway_graphql_operations_total"
    listed = {"operation": "query", "operation_name": "Viewer", "outcome": "ok"}
    assert value(metrics, operations, **listed) == 1
    others = {"operation": "query", "operation_name": "(unlisted)", "outcome": "ok"}
    assert value(metrics, operations, **others) == 4


async def test_the_manifest_is_validated_against_the_schema_at_start(
    settings: Settings, clock: FixedClock, tmp_path: Path
) -> None:
    broken = "query Broken { viewer { id noSuchField } }"
    manifest = apollo_manifest(tmp_path / "manifest.json", LISTED, broken)
    configured = dataclasses.replace(
        settings, trusted_documents="enforce", trusted_documents_file=manifest
    )
    with pytest.raises(
        ManifestError, match=r"operation Broken does not fit the schema.*noSuchField"
    ):
        create_app(configured, clock=clock)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "is not JSON"),
        ('{"format": "apollo-persisted-query-manifest", "version": 2}', "version 1"),
        (
            json.dumps(
                {
                    "format": "apollo-persisted-query-manifest",
                    "version": 1,
                    "operations": [{"id": "0" * 64, "name": "A", "type": "query", "body": LISTED}],
                }
            ),
            "operation A: its id is not the SHA-256 of its body",
        ),
        (json.dumps({"x": "query { viewer { id "}), "operation x: Syntax Error"),
        ("{}", "lists no operation"),
    ],
)
def test_bad_manifests_are_named(
    settings: Settings, clock: FixedClock, tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "manifest.json"
    path.write_text(content)
    configured = Settings(
        tables=settings.tables, trusted_documents="audit", trusted_documents_file=str(path)
    )
    with pytest.raises(ManifestError, match=message) as raised:
        create_app(configured, clock=clock)
    assert str(path) in str(raised.value)


def test_a_mode_without_a_manifest_is_a_settings_error() -> None:
    with pytest.raises(SettingsError, match="INSIGHT_TRUSTED_DOCUMENTS_FILE"):
        Settings.from_environ({"INSIGHT_TRUSTED_DOCUMENTS": "enforce"})
    with pytest.raises(SettingsError, match="off, audit or enforce"):
        Settings.from_environ({"INSIGHT_TRUSTED_DOCUMENTS": "strict"})


@pytest.mark.parametrize("mode", ["off", "audit", "no manifest"])
async def test_an_unknown_document_id_is_not_found_outside_enforce(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    tmp_path: Path,
    dynamodb_calls: CallCounter,
    mode: str,
) -> None:
    overrides: dict[str, Any] = {}
    if mode != "no manifest":
        manifest = apollo_manifest(tmp_path / "manifest.json", LISTED)
        overrides = {"trusted_documents": mode, "trusted_documents_file": manifest}
    async with gateway_client(settings, dynamo, clock, **overrides) as client:
        answer = await client.post(
            "/graphql", json={"documentId": "sha256:" + "0" * 64}, headers=auth(clock)
        )
    error = answer.json()["errors"][0]
    assert error["extensions"] == {"code": "PERSISTED_QUERY_NOT_FOUND"}
    assert error["message"] == f"No trusted document has the id 'sha256:{'0' * 64}'"
    assert dynamodb_calls.total == 0


async def test_enforce_refuses_an_unlisted_operation_of_a_batch_at_its_own_place(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    tmp_path: Path,
    dynamodb_calls: CallCounter,
) -> None:
    manifest = apollo_manifest(tmp_path / "manifest.json", LISTED)
    async with gateway_client(
        settings, dynamo, clock, trusted_documents="enforce", trusted_documents_file=manifest
    ) as client:
        response = await client.post(
            "/graphql",
            json=[{"query": LISTED}, {"query": UNLISTED}, {"extensions": apq(LISTED)}],
            headers=auth(clock),
        )
    assert response.status_code == 200
    listed, unlisted, by_hash = response.json()
    assert listed == SERVED
    assert by_hash == SERVED
    assert unlisted["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_IN_LIST"
    assert "data" not in unlisted
    # The two listed operations' payday keys went out together; the unlisted alert never did.
    assert dynamodb_calls.calls == {"BatchGetItem": 1}
