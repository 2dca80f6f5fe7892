"""The GraphQL endpoint: GraphQL-over-HTTP, authentication, and each request's Context.

The order of the checks is the order of their cost, so that a refused request costs as
little as possible and never reaches DynamoDB:
method (405) → Accept (406) → content type (415, the CSRF rule) → bearer token (401)
→ body size (413) → JSON shape and batching (400) → trusted documents and persisted query
(refused before parsing) → limits, parse and validation (the schema's extensions; 400 or 200
by media type) → the principal's budget (429) → execution.

A batch (a JSON array of operations, docs/batching.md) is read and refused whole only for its
shape and size; each of its operations then goes through the checks from the trusted
documents on by itself, over the request's one Context, its queries together and its
mutations in order (gateway/http/batch.py), and the answer is 200 with a result per operation.

Every answer carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.schema.base import BaseSchema
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType

from gateway import idempotency
from gateway import subscriptions as sockets
from gateway.auth.tokens import TokenVerifier, Unauthenticated
from gateway.http.batch import Arrival, run_in_order
from gateway.http.graphiql import GraphiQLDefaults
from gateway.http.graphiql_assets import assets_present
from gateway.http.graphql_request import (
    GraphQLRequest,
    keyed_by_header,
    read_get,
    read_post,
    require_json_body,
)
from gateway.http.graphql_response import (
    GraphQLResponse,
    Result,
    answered_errors,
    batched_payload,
    error_response,
    refuse_over_budget,
    status_of,
)
from gateway.http.http_problem import HttpProblem
from gateway.http.last_resort import scope_request_id
from gateway.http.media_types import GRAPHQL_RESPONSE_JSON, JSON, negotiate, prefers_html
from gateway.idempotency import Answer, Idempotency
from gateway.live_http import LiveStreams, stream_kind
from gateway.observability.field_usage import bind_client
from gateway.observability.logs import bind_request_id
from gateway.operations.gate import OperationGate
from gateway.operations.kinds import OperationKinds
from gateway.operations.operation import BadRequest, Operation
from gateway.operations.payload import payload_of
from gateway.operations.response_headers import (
    PROTECTIVE_HEADERS,
    forbid_framing,
    rate_limit_headers,
)
from gateway.protection.rate_limit import start_charges
from gateway.settings import Settings
from gateway.state import app_context, opened_resources
from loaders.errors import GatewayError
from schema.clock import Clock
from schema.context import Context
from schema.principal import Principal

logger = logging.getLogger("gateway.http")

ALLOWED_METHODS = "GET, POST"

#: A request with `X-Insight-Cost: 1` gets its DynamoDB cost in `extensions.cost`.
COST_HEADER = "x-insight-cost"


class GatewayGraphQL(LiveStreams, sockets.SubscriptionSockets):
    """The GraphQL endpoint, the gateway's own ASGI app over strawberry's public
    `Schema.execute` (and `Schema.stream` for the live streams and the socket): every request
    is answered here, so that every status and error code is the contract's, and the
    GraphiQL page is the gateway's own (gateway/http/graphiql.py)."""

    def __init__(
        self,
        schema: BaseSchema,
        *,
        settings: Settings,
        clock: Clock,
        gate: OperationGate,
        keys: Idempotency,
        graphiql: GraphiQLDefaults | None = None,
        count_errors: Callable[[Iterable[Mapping[str, Any]]], None] | None = None,
    ) -> None:
        """`count_errors` is given the errors of every answer as the client sees them, over
        HTTP and over the socket alike (the metrics' `gateway_graphql_errors`); `keys`
        runs keyed mutations (SPEC section 9)."""
        self.schema = schema
        self.settings = settings
        self.configure_sockets(settings)
        self.clock = clock
        self.verifier = TokenVerifier.from_settings(settings, clock)
        self.gate = gate
        self.kinds = OperationKinds(settings.max_query_tokens)
        # Rendered once: choosing local or CDN assets hashes the asset files.
        self.graphiql = graphiql or GraphiQLDefaults()
        self.local_assets = assets_present()
        self.graphiql_html = self.graphiql.render(local_assets=self.local_assets)
        self.count_errors = count_errors
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self.serve_socket(WebSocket(scope, receive=receive, send=send))
            return
        request = Request(scope, receive=receive)
        request_id = scope_request_id(scope)
        bind_request_id(request_id)
        media_type = negotiate(request.headers.get("accept")) or JSON
        try:
            response = await self.respond(request, request_id)
        except HttpProblem as problem:
            response = error_response(problem.status, [problem.error], media_type)
            response.headers.update(problem.headers)
        except Exception:
            logger.exception("request %s failed", request_id)
            internal = GatewayError(extensions={"requestId": request_id})
            response = error_response(500, [internal], media_type)
        response.headers["X-Request-ID"] = request_id
        response.headers.update(PROTECTIVE_HEADERS)
        if self.count_errors is not None and isinstance(response, GraphQLResponse):
            # Counted from the payload as answered, once every code is final.
            self.count_errors(answered_errors(response.payload))
        await response(scope, receive, send)

    async def render_graphiql(self, request: Request) -> Response:
        # The gateway's page loads GraphiQL from its own static files (or a pinned CDN).
        query = request.query_params.get("query")
        if not query:
            return forbid_framing(HTMLResponse(self.graphiql_html))
        # A link to a query (`/graphql?query=…`) opens GraphiQL on it; the browser sends no
        # token on a navigation, so it runs when the user presses run, with their headers.
        page = self.graphiql.render(
            query=query,
            variables=request.query_params.get("variables"),
            local_assets=self.local_assets,
        )
        return forbid_framing(HTMLResponse(page))

    def wants_graphiql(self, request: Request, accept: str | None) -> bool:
        """A browser navigating here: no query, or a query and no token (a link opened)."""
        if request.method != "GET" or not prefers_html(accept):
            return False
        if "query" not in request.query_params:
            return True
        # GraphiQL is served on a browser's GET (INSIGHT_GRAPHIQL).
        return self.settings.graphiql and "authorization" not in request.headers

    async def respond(self, request: Request, request_id: str) -> Response:
        if request.method not in ("GET", "POST"):
            raise HttpProblem(
                405,
                BadRequest(f"{request.method} is not allowed: use GET for queries or POST"),
                {"Allow": ALLOWED_METHODS},
            )
        accept = request.headers.get("accept")
        if self.wants_graphiql(request, accept):
            if not self.settings.graphiql:
                raise HttpProblem(404, BadRequest("GraphiQL is turned off on this gateway"))
            return await self.render_graphiql(request)
        if (kind := stream_kind(accept)) is not None:  # SSE or multipart: gateway/live_http
            return await self.stream_response(request, kind, request_id)
        media_type = negotiate(accept)
        if media_type is None:
            raise HttpProblem(406, BadRequest(f"Responses are {JSON} or {GRAPHQL_RESPONSE_JSON}"))
        if request.method == "POST":
            require_json_body(request)
        principal = self.authenticate(request)
        bind_client(request.headers)
        graphql_request = keyed_by_header(
            await self.read(request), request.headers.get(idempotency.HEADER)
        )
        context = self.get_context(request, principal, request_id)
        charges = start_charges()
        allowed = (
            frozenset({OperationType.QUERY})
            if request.method == "GET"
            else frozenset({OperationType.QUERY, OperationType.MUTATION})
        )
        operations = graphql_request.operations
        # Read by the access log: each operation of a batch is counted (and, by the schema's
        # metrics extension, each one's outcome).
        request.state.graphql_operations = len(operations)
        try:
            if graphql_request.batched:
                results = await self.run_batch(operations, context, allowed)
            else:
                results = [await self.run_operation(operations[0], context, allowed, media_type)]
        finally:
            context.reads.release()
        if graphql_request.batched:
            # A batch answers 200 whatever its operations' outcomes (as Apollo Server and
            # strawberry do): each result carries its own errors. Only a batch refused whole
            # (its shape, its size, its token) or refused whole by the budgets is not 200.
            payloads = [batched_payload(result, request_id) for result in results]
            response = GraphQLResponse(payloads, 200, media_type)
        elif isinstance(answer := results[0], Answer):
            response = GraphQLResponse(answer.payload, answer.status, media_type)
            if answer.replayed:
                response.headers[idempotency.REPLAYED_HEADER] = "true"
        else:
            status = status_of(answer, media_type)
            response = GraphQLResponse(payload_of(answer, request_id), status, media_type)
        refuse_over_budget(response, results)
        response.headers.update(rate_limit_headers(charges))
        return response

    async def serve_socket(self, websocket: WebSocket) -> None:
        """A WebSocket on /graphql (gateway/subscriptions/view.py), with its request id."""
        await self.serve_websocket(websocket, scope_request_id(websocket.scope))

    def get_context(self, request: Request, principal: Principal, request_id: str) -> Context:
        """The request's Context, for its authenticated principal (a socket's operations get
        theirs in gateway/subscriptions/view.py)."""
        return app_context(
            opened_resources(request.app),
            principal=principal,
            clock=self.clock,
            request_id=request_id,
            cost_requested=request.headers.get(COST_HEADER, "").strip() == "1",
            deadline_seconds=self.settings.request_deadline_seconds,
        )

    def authenticate(self, request: Request) -> Principal:
        try:
            return self.verifier.verify_authorization(request.headers.get("authorization"))
        except Unauthenticated as error:
            raise HttpProblem(401, error, {"WWW-Authenticate": 'Bearer realm="insight"'}) from error

    async def read(self, request: Request) -> GraphQLRequest:
        if request.method == "GET":
            return read_get(request)
        return await read_post(
            request,
            max_bytes=self.settings.max_body_bytes,
            max_batch=self.settings.max_batch_operations,
        )

    async def run_batch(
        self,
        operations: list[Operation],
        context: Context,
        allowed: frozenset[OperationType],
    ) -> list[Result]:
        """Every operation of a batch, each checked and answered on its own, over the one
        Context (so one set of loaders) of the request: queries together, mutations in
        order (gateway/http/batch.py). An operation the HTTP layer would refuse (no query,
        a subscription) fails only its own result."""
        texts = [self.batched_text_of(operation, context.principal) for operation in operations]

        def step(index: int) -> Callable[[Arrival | None], Awaitable[Result]]:
            async def run(arrival: Arrival | None) -> Result:
                text = texts[index]
                if isinstance(text, GatewayError):
                    return text
                operation = context.for_operation(arrival)
                try:
                    return await self.execute_keyed(
                        text, operations[index], operation, allowed, None
                    )
                except HttpProblem as problem:
                    return problem.error

            return run

        barriers = [
            isinstance(text, str) and self.kinds.is_mutation(text, operation.operation_name)
            for text, operation in zip(texts, operations, strict=True)
        ]
        return await run_in_order([step(index) for index in range(len(operations))], barriers)

    def text_of(self, operation: Operation, principal: Principal) -> str | GatewayError:
        """The operation's text under the trusted documents, or why it is refused; raises
        HttpProblem (400) when there is no text at all."""
        try:
            query = self.gate.query_of(operation, principal)
        except GatewayError as error:
            return error
        if query is None or not query.strip():
            raise HttpProblem(400, BadRequest("The request has no GraphQL query"))
        return query

    def batched_text_of(self, operation: Operation, principal: Principal) -> str | GatewayError:
        try:
            return self.text_of(operation, principal)
        except HttpProblem as problem:
            return problem.error

    async def run_operation(
        self,
        operation: Operation,
        context: Context,
        allowed: frozenset[OperationType],
        media_type: str,
    ) -> Result:
        text = self.text_of(operation, context.principal)
        if isinstance(text, GatewayError):
            return text
        return await self.execute_keyed(text, operation, context, allowed, media_type)

    async def execute_keyed(
        self,
        text: str,
        operation: Operation,
        context: Context,
        allowed: frozenset[OperationType],
        media_type: str | None,
    ) -> Result:
        """The operation executed; a keyed mutation through its key's record (answered
        with its HTTP status: `media_type` None in a batch, where each answer is 200)."""
        try:
            # Over GET (no mutation allowed) a mutation is refused by its execution: not keyed.
            is_mutation = self.kinds.is_mutation(text, operation.operation_name)
            is_mutation = is_mutation and OperationType.MUTATION in allowed
            keyed = self.keys.keyed(operation, text, context.principal, is_mutation=is_mutation)
        except GatewayError as refused:
            # A batch's operation answers it as its own result (`run_batch`).
            raise HttpProblem(400, refused) from refused
        if keyed is None:
            return await self.execute(text, operation, context, allowed)

        async def answer() -> Answer:
            result = await self.execute(text, operation, context, allowed)
            status = 200 if media_type is None else status_of(result, media_type)
            return Answer(payload_of(result, context.request_id), status, source=result)

        return await self.keys.run(context, keyed, answer)

    async def execute(
        self,
        query: str,
        operation: Operation,
        context: Context,
        allowed: frozenset[OperationType],
    ) -> ExecutionResult:
        try:
            result: ExecutionResult = await self.schema.execute(
                query,
                variable_values=operation.variables,
                context_value=context,
                operation_name=operation.operation_name,
                allowed_operation_types=allowed,
                operation_extensions=operation.extensions,
            )
        except InvalidOperationTypeError as error:
            # Queries are always allowed, mutations everywhere but on GET.
            if error.operation_type == OperationType.MUTATION:
                raise HttpProblem(
                    405, BadRequest("Mutations are only accepted over POST"), {"Allow": "POST"}
                ) from error
            raise HttpProblem(400, BadRequest(sockets.NOT_OVER_WEBSOCKET)) from error
        except CannotGetOperationTypeError as error:
            raise HttpProblem(400, BadRequest(error.as_http_error_reason())) from error
        return result
