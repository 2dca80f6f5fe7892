"""`/healthz` (the process answers) and `/readyz` (DynamoDB answers for every table).

`/readyz` needs no token (probes have none), so anyone who reaches it may call it as often
as they like: its answer is remembered for `INSIGHT_READYZ_CACHE_SECONDS`, and probes that
arrive while a look is under way wait for that look, so that a replica makes at most one
round of DescribeTable calls (one per table) per that many seconds, however many probes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from gateway.settings.live import LiveSettings
from gateway.state import resources_of
from loaders.dynamodb import Dynamo, DynamoDBFailure
from loaders.entities import STREAMED_TABLES
from loaders.errors import DynamoDBUnavailable

logger = logging.getLogger("gateway.health")

#: A table that is being updated still serves reads and writes.
SERVING_STATUSES = frozenset({"ACTIVE", "UPDATING"})


async def healthz(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


class ReadinessMemory:
    """The last look at the tables (ready or not), for `seconds` after it ended; one look at
    a time, later probes waiting for it rather than starting their own."""

    def __init__(self, seconds: float, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.monotonic = monotonic
        self._lock = asyncio.Lock()
        self._last: tuple[float, bool] | None = None

    def _remembered(self) -> bool | None:
        if self._last is None:
            return None
        ended, ready = self._last
        return ready if self.monotonic() - ended < self.seconds else None

    async def ready(self, look: Callable[[], Awaitable[bool]]) -> bool:
        if self.seconds <= 0:
            return await look()
        remembered = self._remembered()
        if remembered is not None:
            return remembered
        async with self._lock:
            # A look that ended while this probe waited answers it too.
            remembered = self._remembered()
            if remembered is not None:
                return remembered
            ready = await look()
            self._last = (self.monotonic(), ready)
            return ready


async def readyz(request: Request) -> JSONResponse:
    """200 when every table is described, serving, within the readiness timeout; else 503.
    The answer names nothing internal: the reason goes to the log only."""
    resources = resources_of(request.app)
    if resources is None:
        # Known without a call, and must show at once (shutting down): never remembered.
        ready = _not_ready("the DynamoDB client is not open (lifespan not run, or shutting down)")
    else:
        dynamo = resources.dynamo
        memory: ReadinessMemory | None = request.app.state.readiness

        async def look() -> bool:
            return await _tables_ready(request.app.state.settings, dynamo)

        ready = await (memory.ready(look) if memory is not None else look())
    if ready:
        return JSONResponse({"status": "ready"})
    return JSONResponse({"status": "unavailable"}, status_code=503)


async def _tables_ready(settings: LiveSettings, dynamo: Dynamo) -> bool:
    """One look: every table described and serving (with its stream, for subscriptions);
    why not is logged."""
    names = settings.tables.all()
    try:
        async with asyncio.timeout(settings.readiness_timeout_seconds):
            tables = await _describe_tables(dynamo, names.values())
    except TimeoutError:
        return _not_ready("DescribeTable did not answer within the readiness timeout")
    except (DynamoDBUnavailable, DynamoDBFailure) as error:
        return _not_ready(f"DescribeTable failed: {error.__cause__!r}")
    statuses = [table["TableStatus"] for table in tables]
    if not all(status in SERVING_STATUSES for status in statuses):
        return _not_ready(f"a table is not serving: {statuses}")
    if settings.subscriptions:
        described = dict(zip(names.values(), tables, strict=True))
        for table in STREAMED_TABLES:
            name = names[table]
            if not described[name].get("StreamSpecification", {}).get("StreamEnabled", False):
                return _not_ready(
                    f"table {name} has no stream enabled: subscriptions need its DynamoDB "
                    "Stream (KEYS_ONLY is enough; `insight-gateway create-tables` enables it)"
                )
    return True


async def _describe_tables(dynamo: Dynamo, names: Iterable[str]) -> list[dict[str, Any]]:
    # A task group, not gather: the first failure cancels the other tables' calls, so none
    # is left running (and retrying on a client about to close) after the answer.
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(dynamo.call("describe_table", TableName=n)) for n in names]
    except BaseExceptionGroup as failures:
        raise failures.exceptions[0]  # noqa: B904 (its own cause is the one to keep)
    return [task.result()["Table"] for task in tasks]


def _not_ready(reason: str) -> bool:
    logger.warning("not ready: %s", reason)
    return False
