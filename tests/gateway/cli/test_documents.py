"""`insight-gateway documents FILE.graphql...`: a manifest the gateway then enforces, and
exit 2 naming the file for what the schema or the parser refuses."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gateway.cli.main import main
from gateway.protection.trusted_documents import TrustedDocuments
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema.root import build_schema
from support.fixed_clock import FixedClock
from support.http_client import END_USER, gateway_client, tokens
from support.processes import free_port

VIEWER = """\
query Viewer {
  viewer { ...Basics payday { nextDate } }
}
"""
FRAGMENTS = """\
fragment Basics on User { id alert { ...Alert } }
fragment Alert on BalanceAlert { alertSent }
fragment Unused on User { lowBalanceAlert }
"""
MUTATION = """\
mutation Refresh($id: ID!) { markInsightsRefresh(input: { userId: $id }) { label } }
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_prints_a_manifest_the_gateway_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [
        write(tmp_path, "viewer.graphql", VIEWER),
        write(tmp_path, "fragments.graphql", FRAGMENTS),
        write(tmp_path, "refresh.graphql", MUTATION),
    ]
    assert main(["documents", *files]) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert manifest["format"] == "apollo-persisted-query-manifest"
    assert manifest["version"] == 1
    by_name = {op["name"]: op for op in manifest["operations"]}
    assert sorted(by_name) == ["Refresh", "Viewer"]
    assert by_name["Refresh"]["type"] == "mutation"
    viewer = by_name["Viewer"]
    assert viewer["type"] == "query"
    assert viewer["id"] == hashlib.sha256(viewer["body"].encode()).hexdigest()
    # The operation with the fragments it uses, across files, and no other.
    assert "fragment Basics on User" in viewer["body"]
    assert "fragment Alert on BalanceAlert" in viewer["body"]
    assert "Unused" not in viewer["body"]
    manifest_path = tmp_path / "manifest.json"
    manifest_path.write_text(json.dumps(manifest))
    trusted = TrustedDocuments.from_file(manifest_path, build_schema()._schema)
    listed = trusted.by_sha256(viewer["id"])
    assert listed is not None
    assert listed.name == "Viewer"


async def test_the_printed_manifest_is_enforced(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
) -> None:
    files = [write(tmp_path, "v.graphql", VIEWER), write(tmp_path, "f.graphql", FRAGMENTS)]
    assert main(["documents", *files]) == 0
    manifest_path = tmp_path / "manifest.json"
    manifest_path.write_text(capsys.readouterr().out)
    viewer = json.loads(manifest_path.read_text())["operations"][0]
    async with gateway_client(
        settings,
        dynamo,
        clock,
        trusted_documents="enforce",
        trusted_documents_file=str(manifest_path),
    ) as client:
        answer = await client.post(
            "/graphql",
            json={"extensions": {"persistedQuery": {"version": 1, "sha256Hash": viewer["id"]}}},
            headers={"Authorization": f"Bearer {tokens(clock)['end user']()}"},
        )
    assert answer.json() == {"data": {"viewer": {"id": END_USER, "alert": None, "payday": None}}}


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "bad.graphql",
            "query Bad { viewer { id nope } }",
            "operation Bad: Cannot query field 'nope'",
        ),
        ("syntax.graphql", "query Broken { viewer { id }", "Syntax Error"),
        ("anonymous.graphql", "{ viewer { id } }", "every operation needs a name"),
        ("twice.graphql", "query Viewer { viewer { id } }", "operation Viewer is also in"),
        ("empty.graphql", "fragment F on User { id }", "the files hold no operation"),
    ],
)
def test_refused_files_exit_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, message: str
) -> None:
    files = [write(tmp_path, name, text)]
    if name == "twice.graphql":
        files.insert(0, write(tmp_path, "viewer.graphql", "query Viewer { viewer { id } }"))
    assert main(["documents", *files]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err
    if name != "empty.graphql":
        assert name in captured.err


def test_serve_stops_on_an_invalid_manifest_naming_the_operation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "query Stale { viewer { id removedField } }"
    operation = {"id": hashlib.sha256(body.encode()).hexdigest(), "name": "Stale", "body": body}
    manifest = {
        "format": "apollo-persisted-query-manifest",
        "version": 1,
        "operations": [operation],
    }
    monkeypatch.setenv("INSIGHT_TRUSTED_DOCUMENTS", "enforce")
    monkeypatch.setenv(
        "INSIGHT_TRUSTED_DOCUMENTS_FILE", write(tmp_path, "m.json", json.dumps(manifest))
    )
    monkeypatch.setenv("INSIGHT_AUTH_HS256_SECRET", "s" * 32)
    # A free port: serve binds its port before anything else.
    port = str(free_port())
    assert main(["serve", "--endpoint", "http://127.0.0.1:9", "--port", port]) == 2
    error = capsys.readouterr().err
    assert "operation Stale does not fit the schema" in error
    assert "removedField" in error


ENTITIES = """\
query Members($representations: [_Any!]!) {
  _entities(representations: $representations) { ... on User { id } }
}
"""


def test_federation_operations_validate_against_the_subgraph_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = [write(tmp_path, "members.graphql", ENTITIES)]
    assert main(["documents", *files]) == 2
    assert "Cannot query field '_entities'" in capsys.readouterr().err
    assert main(["documents", "--federation", *files]) == 0
    by_flag = json.loads(capsys.readouterr().out)
    monkeypatch.setenv("INSIGHT_FEDERATION", "true")
    assert main(["documents", *files]) == 0
    assert json.loads(capsys.readouterr().out) == by_flag
    assert [operation["name"] for operation in by_flag["operations"]] == ["Members"]
