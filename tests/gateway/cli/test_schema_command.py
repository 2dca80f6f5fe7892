"""`insight-gateway schema [--federation]`: the plain SDL, or the subgraph's for a router."""

from __future__ import annotations

import pytest

from gateway.cli.main import main, schema_sdl


def test_schema_federation_prints_the_subgraph_sdl(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--federation"]) == 0

    printed = capsys.readouterr().out
    assert printed == schema_sdl(federation=True)
    assert '@link(url: "https://specs.apollo.dev/federation/v2.0", import: ["@key"])' in printed
    assert 'type User @key(fields: "id") {' in printed
    assert "_entities(representations: [_Any!]!): [_Entity]!" in printed


def test_schema_without_the_flag_is_the_plain_sdl(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0

    printed = capsys.readouterr().out
    assert printed == schema_sdl()
    assert "@key" not in printed
    assert "_service" not in printed
