"""The ASGI application: `create_app(settings)`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import replace

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp

from gateway.http.batch import BatchStart
from gateway.http.cors import cors_middleware
from gateway.http.graphiql import GraphiQLDefaults, graphiql_redirect_route, graphiql_static_mount
from gateway.http.graphql_view import GatewayGraphQL
from gateway.http.last_resort import LastResort
from gateway.http.operation_choice import OneOperationOrNamed
from gateway.idempotency import OUTCOMES, Idempotency
from gateway.live.feed_wiring import open_live_data
from gateway.live.hub_wiring import open_subscriptions
from gateway.live_http.stream_cookie import stream_cookie_route
from gateway.observability.cache_metrics import CacheMetrics
from gateway.observability.dynamodb_failures import FailureLog
from gateway.observability.execution_metrics import ExecutionMetrics
from gateway.observability.field_usage import FieldUsage
from gateway.observability.health import ReadinessMemory, healthz, readyz
from gateway.observability.logs import AccessLog
from gateway.observability.metrics import HttpMetrics, Metrics
from gateway.observability.subscription_metrics import SubscriptionMetrics
from gateway.observability.tracing import tracing_from_settings
from gateway.operations.gate import OperationGate
from gateway.operations.hosts import hosts_middleware
from gateway.protection.budget_charge import BudgetCharge
from gateway.protection.rate_limit import Budgets
from gateway.resources import open_dynamo, settled_collector
from gateway.settings import Settings
from gateway.state import Resources, resources_of
from gateway.subscriptions.lane import SOCKET_PATH, GatewayApp
from loaders.cache import CoherentCache, WritePublisher
from loaders.live.feed_watch import FeedWatch
from loaders.lock import LockClient
from schema.clock import Clock, SystemClock
from schema.cost_policy import GATEWAY_COST_POLICY
from schema.extensions import request_extensions
from schema.graphql_schema import graphql_schema
from schema.prepared import PreparedOperations
from schema.root import build_schema


def create_app(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    graphiql: GraphiQLDefaults | None = None,
) -> Starlette:
    """The gateway's ASGI app. Its lifespan opens the process's one DynamoDB client.

    `graphiql` is what the GraphiQL page opens with (the embedded mode's demo query and token).
    """
    settings = settings or Settings.from_environ()
    clock = clock or SystemClock()

    tracing = tracing_from_settings(settings)
    metrics = Metrics()
    CacheMetrics(
        metrics.registry, lambda: None if (opened := resources_of(app)) is None else opened.cache
    )
    subscription_metrics = SubscriptionMetrics(metrics.registry)
    field_usage = FieldUsage(metrics.registry, settings.field_usage_max_clients)
    failures = FailureLog()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with open_dynamo(settings) as dynamo:
            dynamo.observers.append(metrics.observe_call)
            dynamo.observers.append(failures.observe_call)
            dynamo.abandon_observers.append(failures.observe_abandoned)
            # One lock client per process: one owner name, as a Go service has.
            locks = LockClient(dynamo)
            resources = Resources(dynamo, locks=locks)
            # Live data (SPEC section 7): the change feed, fed by the stream readers; stopped
            # (and their leases released) before the DynamoDB client closes.
            async with AsyncExitStack() as live_stack:
                if settings.subscriptions or settings.cache:
                    live = await live_stack.enter_async_context(
                        open_live_data(settings, dynamo, metrics.registry, locks.owner_name)
                    )
                    # The cache (SPEC section 8) listens to the feed whether or not
                    # subscriptions are served.
                    cache = None
                    if settings.cache:
                        cache = CoherentCache(
                            settings.cache_max_bytes,
                            FeedWatch(max_lag_seconds=settings.cache_max_lag_seconds),
                        )
                        live_stack.callback(live.feed.listen(cache))
                    # The gateway's own writes: dropped from the cache and published as they
                    # are answered, so every replica and subscriber sees them at once (the
                    # stream carries them later too).
                    resources = replace(
                        resources,
                        live_data=live,
                        cache=cache,
                        write_publisher=WritePublisher(cache, live.feed),
                    )
                if settings.subscriptions:
                    # The hub on that feed: subscribers woken by its changes.
                    hub = await live_stack.enter_async_context(
                        open_subscriptions(
                            resources,
                            settings=settings,
                            schema=schema,
                            clock=clock,
                            budgets=budgets,
                            metrics=subscription_metrics,
                        )
                    )
                    resources = replace(resources, live=hub)
                app.state.resources = resources
                try:
                    with settled_collector():
                        yield
                finally:
                    # From here /readyz answers 503 while the client closes.
                    app.state.resources = None
        await tracing.shutdown()

    # Per-client protection (issue 12): budgets charged after the limits, before execution;
    # the trusted documents, validated against the schema served, before parsing.
    budgets = Budgets.from_settings(settings, metrics.rate_limit_storage_errors.inc)
    # The process's prepared operations (schema/prepared.py): each document measured once,
    # for the limits, the charge, field usage, the access plan and completion alike; it
    # holds the prices the access plan chooses by.
    prepared = PreparedOperations(GATEWAY_COST_POLICY, prices=settings.plan_prices)
    ExecutionMetrics(metrics.registry, prepared)
    schema = build_schema(
        [
            # First: a document whose operation cannot be chosen is refused before any other
            # extension measures it.
            OneOperationOrNamed,
            metrics.schema_extension,
            *request_extensions(settings.query_limits, prepared),
            lambda: BudgetCharge(budgets, prepared),
            field_usage.schema_extension,
            # Last before execution: a batch's queries start resolving together.
            BatchStart,
            *tracing.schema_extensions,
        ],
        federation=settings.federation,
        compiled_execution=settings.compiled_execution,
        prepared=prepared,
    )
    gate = OperationGate.from_settings(
        settings,
        graphql_schema(schema),
        lambda outcome: metrics.untrusted_operations.labels(outcome).inc(),
    )
    if gate.trusted is not None:
        metrics.operation_label = gate.trusted.label_of
    graphql = GatewayGraphQL(
        schema,
        settings=settings,
        clock=clock,
        graphiql=graphiql,
        gate=gate,
        count_errors=metrics.count_errors,
        keys=Idempotency.from_settings(settings, metrics.count_idempotency),
    )
    for outcome in OUTCOMES:
        # Every outcome is a series from the start, so that rates and alerts see zeros.
        metrics.idempotency.labels(outcome)
    app = GatewayApp(
        routes=[
            # Every method reaches the view, which answers the wrong ones with a GraphQL 405.
            Route("/graphql", graphql),
            # The subscriptions' socket (refused when INSIGHT_SUBSCRIPTIONS is off).
            WebSocketRoute(SOCKET_PATH, graphql),
            # A browser's EventSource credential (gateway/live_http/stream_cookie.py).
            *([stream_cookie_route(graphql.verifier, clock)] if settings.subscriptions else []),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
            Route("/metrics", metrics.endpoint, methods=["GET"]),
            graphiql_static_mount(),
            # With GraphiQL on, `/` leads a browser to it; off, `/` stays a plain 404.
            *([graphiql_redirect_route()] if settings.graphiql else []),
        ],
        # Outermost: every answer is counted, CORS refusals too.
        middleware=[
            Middleware(AccessLog),
            # A Host not allowed is refused (400) before anything else runs.
            *hosts_middleware(settings),
            # Inside the access log, which then logs its 500: nothing escapes as text/plain.
            Middleware(LastResort),
            Middleware(HttpMetrics, metrics=metrics),
            *cors_middleware(settings),
        ],
        lifespan=lifespan,
    )
    # The paths outside the middleware stack, behind the checks of it they need.
    app.serve_sockets(graphql.serve_socket, lambda lane: _wrapped(lane, hosts_middleware(settings)))
    app.serve_stream = _wrapped(graphql, [*hosts_middleware(settings), *cors_middleware(settings)])
    # Ended at SIGTERM by uvicorn's HTTP protocol (gateway/live_http/server_protocol.py).
    app.state.live_streams = graphql.open_streams
    app.state.resources = None
    app.state.settings = settings
    app.state.readiness = ReadinessMemory(settings.readyz_cache_seconds)
    app.state.subscription_metrics = subscription_metrics
    tracing.install(app)
    return app


def _wrapped(app: ASGIApp, middleware: list[Middleware]) -> ASGIApp:
    """`app` behind `middleware`, the first outermost (as in Starlette's stack)."""
    for cls, args, options in reversed(middleware):
        app = cls(app, *args, **options)
    return app
