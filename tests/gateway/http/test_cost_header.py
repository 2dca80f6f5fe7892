"""`X-Insight-Cost: 1` asks for `extensions.cost`; nothing else does."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from starlette.requests import Request

from gateway.http.graphql_view import GatewayGraphQL
from gateway.idempotency import Idempotency
from gateway.operations.gate import OperationGate
from gateway.settings import Settings
from gateway.state import Resources
from loaders.dynamodb import Dynamo
from schema.graphql_schema import graphql_schema
from schema.principal import Principal
from schema.root import build_schema
from support.fixed_clock import FixedClock
from tests.conftest import NOW


def _request(dynamo: Dynamo, headers: list[tuple[bytes, bytes]]) -> Request:
    app = SimpleNamespace(state=SimpleNamespace(resources=Resources(dynamo)))
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/graphql",
        "headers": headers,
        "app": app,
    }
    return Request(scope)


@pytest.mark.parametrize(
    ("headers", "requested"),
    [
        ([(b"x-insight-cost", b"1")], True),
        ([(b"x-insight-cost", b" 1 ")], True),
        ([(b"x-insight-cost", b"0")], False),
        ([(b"x-insight-cost", b"yes")], False),
        ([], False),
    ],
)
async def test_the_header_sets_cost_requested(
    dynamo: Dynamo, headers: list[tuple[bytes, bytes]], requested: bool
) -> None:
    schema, settings = build_schema(), Settings()
    view = GatewayGraphQL(
        schema,
        settings=settings,
        clock=FixedClock(NOW),
        gate=OperationGate.from_settings(settings, graphql_schema(schema)),
        keys=Idempotency.from_settings(settings),
    )
    context = view.get_context(_request(dynamo, headers), Principal("u-1"), "r-1")
    assert context.cost_requested is requested
    assert context.calls.calls == 0
