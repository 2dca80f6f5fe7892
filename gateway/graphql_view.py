"""The strawberry ASGI view: builds each request's Context."""

from __future__ import annotations

import uuid

from starlette.requests import Request
from starlette.responses import Response
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.schema.base import BaseSchema

from gateway.clock import Clock
from gateway.context import Context, build_context
from gateway.principal import Principal
from gateway.settings import Settings


class GatewayGraphQL(GraphQL[Context, None]):
    def __init__(self, schema: BaseSchema, *, settings: Settings, clock: Clock) -> None:
        super().__init__(schema, graphql_ide="graphiql", allow_queries_via_get=True)
        self.settings = settings
        self.clock = clock

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
        )

    def principal_of(self, request: Request | WebSocket) -> Principal:
        principal: Principal = request.state.principal
        return principal
