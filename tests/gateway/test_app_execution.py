"""The app's executor follows INSIGHT_COMPILED_EXECUTION, and a started worker's long-lived
objects are frozen out of the collector's full walks."""

from __future__ import annotations

import gc

import pytest
import strawberry
from starlette.routing import Route

from gateway.app import create_app
from gateway.http.graphql_view import GatewayGraphQL
from gateway.resources import YOUNG_COLLECTION_THRESHOLD
from gateway.settings import Settings
from schema.execution.executor import CompiledExecutionContext


def executor_of(settings: Settings) -> object:
    app = create_app(settings)
    view = next(
        route.endpoint
        for route in app.routes
        if isinstance(route, Route) and isinstance(route.endpoint, GatewayGraphQL)
    )
    schema = view.schema
    assert isinstance(schema, strawberry.Schema)
    return schema.execution_context_class


@pytest.mark.parametrize(("raw", "compiled"), [("true", True), ("false", False), ("", True)])
def test_the_setting_chooses_the_executor(raw: str, compiled: bool) -> None:
    settings = Settings.from_environ({"INSIGHT_COMPILED_EXECUTION": raw} if raw else {})
    assert settings.compiled_execution is compiled
    assert (executor_of(settings) is CompiledExecutionContext) is compiled


async def test_a_started_worker_freezes_what_it_keeps(settings: Settings) -> None:
    app = create_app(settings)
    assert gc.get_freeze_count() == 0
    before = gc.get_threshold()
    async with app.router.lifespan_context(app):
        assert gc.get_freeze_count() > 10_000
        assert gc.get_threshold() == (YOUNG_COLLECTION_THRESHOLD, *before[1:])
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before
