"""What the lifespan opened for the requests, typed: `Resources`, as `app.state.resources`.

starlette's `State` is untyped; `resources_of` is its one read, and `app_context` makes a
request's Context over what it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.applications import Starlette

from gateway.live.feed_wiring import LiveData
from loaders.cache import CoherentCache, WritePublisher
from loaders.dynamodb import Dynamo
from loaders.live.changes import ChangeFeed
from loaders.lock import LockClient
from schema.clock import Clock
from schema.context import Context, LiveSubscriptions, build_context
from schema.live import LiveHub
from schema.principal import Principal


@dataclass(frozen=True, slots=True)
class Resources:
    """The process's shared resources, opened once by the lifespan (the gateway's own
    writes' publisher, the cache, the live data and the hub only where the settings turn
    them on); None in `app.state.resources` before it opened them and once it closes them."""

    dynamo: Dynamo
    #: One lock client per process: one owner name, as a Go service has.
    locks: LockClient | None = None
    #: The change feed and the stream readers that publish on it.
    live_data: LiveData | None = None
    cache: CoherentCache | None = None
    #: Where the requests' own writes go once made (the cache, the change feed).
    write_publisher: WritePublisher | None = None
    #: The subscriptions' hub.
    live: LiveHub | None = None

    @property
    def change_feed(self) -> ChangeFeed | None:
        return None if self.live_data is None else self.live_data.feed


def resources_of(app: Starlette) -> Resources | None:
    """The app's resources: None before the lifespan opened them, and while it closes them."""
    resources: Resources | None = app.state.resources
    return resources


def opened_resources(app: Starlette) -> Resources:
    """The app's resources, which a request or a socket served needs opened."""
    resources = resources_of(app)
    if resources is None:
        raise RuntimeError("the lifespan has not opened the resources (or is closing them)")
    return resources


def app_context(
    resources: Resources,
    *,
    principal: Principal,
    clock: Clock,
    request_id: str,
    cost_requested: bool = False,
    deadline_seconds: float | None = None,
    reread: bool = False,
    live: LiveSubscriptions | None = None,
) -> Context:
    """A request's Context over the process's resources; its scope's deadline
    `deadline_seconds` from now."""
    return build_context(
        dynamo=resources.dynamo,
        principal=principal,
        clock=clock,
        request_id=request_id,
        cost_requested=cost_requested,
        locks=resources.locks,
        cache=resources.cache,
        changes=resources.write_publisher,
        deadline_seconds=deadline_seconds,
        reread=reread,
        live=live,
    )
