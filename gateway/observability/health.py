"""`/healthz` (the process answers) and `/readyz` (DynamoDB answers for every table)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from gateway.settings import Settings
from loaders.dynamodb import Dynamo, DynamoDBFailure
from loaders.errors import DynamoDBUnavailable
from loaders.tables import STREAMED_TABLES

logger = logging.getLogger("gateway.health")

#: A table that is being updated still serves reads and writes.
SERVING_STATUSES = frozenset({"ACTIVE", "UPDATING"})


async def healthz(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    """200 when every table is described, serving, within the readiness timeout; else 503.
    The answer names nothing internal: the reason goes to the log only."""
    settings: Settings = request.app.state.settings
    dynamo: Dynamo | None = getattr(request.app.state, "dynamo", None)
    if dynamo is None:
        return _unready("the DynamoDB client is not open (lifespan not run, or shutting down)")
    names = settings.tables.all()
    try:
        async with asyncio.timeout(settings.readiness_timeout_seconds):
            tables = await _describe_tables(dynamo, names.values())
    except TimeoutError:
        return _unready("DescribeTable did not answer within the readiness timeout")
    except (DynamoDBUnavailable, DynamoDBFailure) as error:
        return _unready(f"DescribeTable failed: {error.__cause__!r}")
    statuses = [table["TableStatus"] for table in tables]
    if not all(status in SERVING_STATUSES for status in statuses):
        return _unready(f"a table is not serving: {statuses}")
    if settings.subscriptions:
        described = dict(zip(names.values(), tables, strict=True))
        for table in STREAMED_TABLES:
            name = names[table]
            if not described[name].get("StreamSpecification", {}).get("StreamEnabled", False):
                return _unready(
                    f"table {name} has no stream enabled: subscriptions need its DynamoDB "
                    "Stream (KEYS_ONLY is enough; `insight-gateway create-tables` enables it)"
                )
    return JSONResponse({"status": "ready"})


async def _describe_tables(dynamo: Dynamo, names: Iterable[str]) -> list[dict[str, Any]]:
    # A task group, not gather: the first failure cancels the other tables' calls, so none
    # is left running (and retrying on a client about to close) after the answer.
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(_table_status(dynamo, name)) for name in names]
    except BaseExceptionGroup as failures:
        raise failures.exceptions[0]  # noqa: B904 (its own cause is the one to keep)
    return [task.result() for task in tasks]


async def _table_status(dynamo: Dynamo, name: str) -> dict[str, Any]:
    response = await dynamo.call("describe_table", TableName=name)
    table: dict[str, Any] = response["Table"]
    return table


def _unready(reason: str) -> JSONResponse:
    logger.warning("not ready: %s", reason)
    return JSONResponse({"status": "unavailable"}, status_code=503)
