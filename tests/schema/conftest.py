from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Protocol

import pytest
import strawberry
from strawberry.types import ExecutionResult

from gateway.settings import Settings
from loaders.dynamodb import Dynamo, FinishedCall
from schema.context import build_context
from schema.field_reads import reads
from schema.principal import DASHBOARD, Principal
from schema.root import build_schema
from support.faults import FaultProxy, fault_proxy
from support.fixed_clock import FixedClock

DASHBOARD_USER = Principal(sub="dash-1", roles=frozenset({DASHBOARD}))


@strawberry.type(name="User")
class UndeclaredUser:
    """A User whose `shoeSize` declares no reads: the access plan refuses it
    (`UndeclaredRead`) rather than price it at 0."""

    id: strawberry.ID = strawberry.field(metadata=reads())
    shoe_size: int = 0


class Execute(Protocol):
    def __call__(
        self,
        query: str,
        variables: dict[str, Any] | None = None,
        principal: Principal = DASHBOARD_USER,
    ) -> Awaitable[ExecutionResult]: ...


@pytest.fixture(scope="session")
def gateway_schema() -> Any:
    return build_schema()


@pytest.fixture
def execute(gateway_schema: Any, settings: Settings, dynamo: Dynamo, clock: FixedClock) -> Execute:
    """Run a query as one request: a fresh context (loaders, `now`) per call."""

    async def run(
        query: str,
        variables: dict[str, Any] | None = None,
        principal: Principal = DASHBOARD_USER,
    ) -> ExecutionResult:
        context = build_context(dynamo=dynamo, principal=principal, clock=clock)
        result: ExecutionResult = await gateway_schema.execute(
            query, variable_values=variables, context_value=context
        )
        return result

    return run


def data_of(result: ExecutionResult) -> Any:
    assert result.errors is None, result.errors
    return result.data


ExecuteFn = Callable[..., Awaitable[ExecutionResult]]


# The fault tests' proxy (support/faults.py) and what their `faulty` client (each module's own,
# with its own timeouts) sent through it.
@pytest.fixture(scope="module")
async def module_proxy(endpoint_url: str) -> AsyncIterator[FaultProxy]:
    async with fault_proxy(endpoint_url) as proxy:
        yield proxy


@pytest.fixture
def proxy(module_proxy: FaultProxy) -> FaultProxy:
    module_proxy.reset()
    return module_proxy


@pytest.fixture
def observed(faulty: Dynamo) -> Iterator[list[FinishedCall]]:
    calls: list[FinishedCall] = []
    faulty.observers.append(calls.append)
    yield calls
    faulty.observers.remove(calls.append)
