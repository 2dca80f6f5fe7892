"""The strawberry ASGI view: builds each request's Context."""

from __future__ import annotations

import uuid

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.schema.base import BaseSchema

from gateway.clock import Clock
from gateway.context import Context, build_context
from gateway.graphiql import GraphiQLDefaults
from gateway.principal import Principal
from gateway.settings import Settings

#: A request with `X-Insight-Cost: 1` gets its DynamoDB cost in `extensions.cost`.
COST_HEADER = "x-insight-cost"


class GatewayGraphQL(GraphQL[Context, None]):
    def __init__(
        self,
        schema: BaseSchema,
        *,
        settings: Settings,
        clock: Clock,
        graphiql: GraphiQLDefaults | None = None,
    ) -> None:
        super().__init__(schema, graphql_ide="graphiql", allow_queries_via_get=True)
        self.settings = settings
        self.clock = clock
        # Rendered once: choosing local or CDN assets hashes the asset files.
        self.graphiql_html = (graphiql or GraphiQLDefaults()).render()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # strawberry builds the request's context (principal, loaders) before it renders the
        # page; the page needs neither, and a browser opening it has no token yet.
        if scope["type"] == "http" and self.graphql_ide:
            request = Request(scope, receive)
            if self.should_render_graphql_ide(self.request_adapter_class(request)):
                await (await self.render_graphql_ide(request))(scope, receive, send)
                return
        await super().__call__(scope, receive, send)

    async def render_graphql_ide(self, request: Request) -> Response:
        # Our page loads GraphiQL from the gateway's own static files, not strawberry's CDN.
        return HTMLResponse(self.graphiql_html)

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        request_id = request.headers.get("x-request-id") or uuid.uuid4().hex
        return build_context(
            settings=self.settings,
            dynamo=request.app.state.dynamo,
            principal=self.principal_of(request),
            clock=self.clock,
            request_id=request_id,
            cost_requested=request.headers.get(COST_HEADER, "").strip() == "1",
            locks=getattr(request.app.state, "locks", None),
        )

    def principal_of(self, request: Request | WebSocket) -> Principal:
        principal: Principal = request.state.principal
        return principal
