"""The benchmark's server: the gateway's own app, plus endpoints on the same process for
comparison: `/bench/naive` (the gateway's schema over naive per-field reads),
`/bench/trivial` (a one-field strawberry schema: strawberry's own floor), `/bench/floor`
(`trivial, floor`: a bare starlette endpoint that verifies the same bearer token as the
gateway and writes the bytes the gateway answers `{ __typename }` with: what any endpoint of
this process pays per request) and `/bench/answered` (`direct, answered, served`: the
`direct, answered` floor as an endpoint of this process).

Run by uvicorn as a factory: `uvicorn --factory bench.server:create_bench_app`.
`BENCH_PLAN=prefix` turns the single-table collection off and `BENCH_PLAN=collection`
uses it for every selection, to measure the plans the access plan chooses between (the
latter prices the collection's read units at 0, so with `INSIGHT_PRICE_READ_UNIT=0` too it
is chosen only where its CPU is the lower).
`BENCH_FEED_HEARTBEAT=1` publishes shard positions on the change feed, for the cached rows
(bench/feed_heartbeat.py says why and what that does not measure)."""

from __future__ import annotations

import asyncio
import os

import strawberry
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from bench.answered import answer_body
from bench.direct import COLLECTION, read_users
from bench.feed_heartbeat import with_feed_heartbeat
from bench.naive import naive_reads
from gateway.app import create_app
from gateway.auth.tokens import TokenVerifier, Unauthenticated
from gateway.settings import Settings
from gateway.state import opened_resources
from loaders.request_scope import RequestScope
from loaders.wire.client import LeanClient
from schema import access_plan
from schema.clock import Clock, SystemClock
from schema.context import Context
from schema.principal import DASHBOARD, Principal
from schema.root import build_schema

#: The naive view's caller: a dashboard, and the user whose own data `viewer` reads (the
#: frontend query of the throughput figure).
FRONTEND_USER = "bench-000"


@strawberry.type
class TrivialQuery:
    @strawberry.field
    def hello(self) -> str:
        return "world"


class NaiveView(GraphQL[Context, None]):
    def __init__(self) -> None:
        super().__init__(build_schema(), graphql_ide=None)
        self.clock = SystemClock()

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        scope = RequestScope(self.clock.now())
        dynamo = opened_resources(request.app).dynamo.bound(scope)
        return Context(
            dynamo=dynamo,
            reads=naive_reads(dynamo, scope.now),
            principal=Principal(FRONTEND_USER, frozenset({DASHBOARD})),
            clock=self.clock,
            scope=scope,
            cost_requested=request.headers.get("x-insight-cost") == "1",
        )


#: The gateway's answer to `{ __typename }`.
TYPENAME_ANSWER = b'{"data":{"__typename":"Query"}}'


class FloorEndpoint:
    """`trivial, floor`: the token verified as the gateway verifies it, then the bytes."""

    def __init__(self, settings: Settings, clock: Clock | None = None) -> None:
        self.verifier = TokenVerifier.from_settings(settings, clock or SystemClock())

    async def respond(self, request: Request) -> Response:
        await request.body()
        try:
            self.verifier.verify_authorization(request.headers.get("authorization"))
        except Unauthenticated:
            return Response(status_code=401)
        return Response(TYPENAME_ANSWER, media_type="application/json; charset=utf-8")


class AnsweredEndpoint:
    """`direct, answered, served`: a hand-written endpoint's answer to the gateway's request
    for the bench's full-User selection. The token is verified as the gateway verifies it;
    the ids are read from the request's variables; the `direct` floor's reads (its plan, the
    same cap on calls in flight) are sent by a lean client on this process's DynamoDB
    client; and `bench/answered.py` writes the answer. In the gateway's own process, under
    uvicorn, it pays what any endpoint there pays (HTTP, the collector's settings, and the
    idle time between the bench's turns), which the in-process `direct` rows do not."""

    def __init__(self, settings: Settings, clock: Clock | None = None) -> None:
        self.clock = clock or SystemClock()
        self.verifier = TokenVerifier.from_settings(settings, self.clock)
        self.slots = asyncio.Semaphore(settings.max_pool_connections)
        self.lean: LeanClient | None = None

    async def respond(self, request: Request) -> Response:
        body = await request.json()
        try:
            self.verifier.verify_authorization(request.headers.get("authorization"))
        except Unauthenticated:
            return Response(status_code=401)
        variables = body["variables"]
        ids = variables["ids"] if "ids" in variables else [variables["id"]]
        dynamo = opened_resources(request.app).dynamo
        if self.lean is None:
            self.lean = LeanClient(dynamo.client)
        now = self.clock.now()
        reads = await read_users(
            dynamo.client, dynamo.tables, ids, now.date(), COLLECTION, self.slots, lean=self.lean
        )
        return Response(
            answer_body(reads, dynamo.tables, ids, now),
            media_type="application/json",
        )


def create_bench_app() -> Starlette:
    settings = Settings.from_environ()
    plan = os.environ.get("BENCH_PLAN")
    if plan == "prefix":
        access_plan.COLLECTION_UNITS = float("inf")
    elif plan == "collection":
        access_plan.COLLECTION_UNITS = 0.0
    app = create_app(settings)
    if os.environ.get("BENCH_FEED_HEARTBEAT") == "1":
        with_feed_heartbeat(app)
    trivial = GraphQL[None, None](strawberry.Schema(query=TrivialQuery), graphql_ide=None)
    app.router.routes[:0] = [
        Route("/bench/naive", NaiveView(), methods=["POST"]),
        Route("/bench/trivial", trivial, methods=["POST"]),
        Route("/bench/floor", FloorEndpoint(settings).respond, methods=["POST"]),
        Route("/bench/answered", AnsweredEndpoint(settings).respond, methods=["POST"]),
    ]
    return app
