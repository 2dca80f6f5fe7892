"""The GraphQL view's live HTTP side (mixed into gateway/http/graphql_view.py): a request to
/graphql whose Accept asks for `text/event-stream` (GraphQL over SSE, the `graphql-sse`
protocol's distinct-connections mode) or `multipart/mixed;subscriptionSpec="1.0"` (Apollo's
multipart subscriptions) is answered with a stream.

The same checks as a socket's, in the same order of cost: the bearer token (401; a
browser's `EventSource` sends it as a cookie: gateway/live_http/stream_cookie.py), the
replica's and the principal's bounds on open connections, which a stream shares with the
sockets (503 with `Retry-After`, 429), then the trusted documents, the limits, validation,
the read rule and the budget, each refusal sent as the stream's one event (the protocol's
way: an EventSource reads nothing of a 400), then `complete`. Its events are the hub's,
each named by its state (`id:`); the stream ends when the token expires (an UNAUTHENTICATED
event, then `complete`), and at a restart with `retry:` (gateway/live_http/stream.py)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from typing import Any

from graphql import GraphQLError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from strawberry.schema.base import BaseSchema
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.types import ExecutionResult
from strawberry.types.execution import PreExecutionError
from strawberry.types.graphql import OperationType
from strawberry.utils.aio import aclosing

from gateway.auth.tokens import TokenVerifier, Unauthenticated
from gateway.http.graphql_request import read_get, read_post, require_json_body
from gateway.http.http_problem import HttpProblem
from gateway.live_http.framing import Framing, MultipartFraming, SseFraming, StreamKind
from gateway.live_http.stream import LiveStream, OpenStreams
from gateway.live_http.stream_cookie import cookie_authorization
from gateway.operations.gate import OperationGate
from gateway.operations.operation import BadRequest, Operation
from gateway.operations.payload import coded_errors, formatted, payload_of
from gateway.operations.response_headers import PROTECTIVE_HEADERS
from gateway.operations.resume import EXTENSION, given_event_id
from gateway.settings import Settings
from gateway.state import app_context, opened_resources
from gateway.subscriptions.capacity import RETRY_AFTER_SECONDS, ReplicaSockets
from gateway.subscriptions.keepalive import Keepalive
from gateway.subscriptions.principal_sockets import PrincipalSockets
from loaders.errors import GatewayError
from schema.clock import Clock
from schema.live import LiveSession, Payload
from schema.principal import Principal

__all__ = ["LiveStreams"]

logger = logging.getLogger("gateway.subscriptions")

#: What each transport may run: SSE any read (a query is one event, then `complete`);
#: Apollo's multipart spec, subscriptions. Mutations go as a plain POST (their key, their
#: answer's status).
ALLOWED: Mapping[StreamKind, tuple[OperationType, ...]] = {
    "sse": (OperationType.QUERY, OperationType.SUBSCRIPTION),
    "multipart": (OperationType.SUBSCRIPTION,),
}
#: What a stream authenticated by its cookie may run: subscriptions alone.
BY_COOKIE = (OperationType.SUBSCRIPTION,)
FRAMINGS: Mapping[StreamKind, Callable[[], Framing]] = {
    "sse": SseFraming,
    "multipart": MultipartFraming,
}
#: What an EventSource sends back on its reconnect (the SSE specification's header).
LAST_EVENT_ID_HEADER = "last-event-id"


def last_event_id(headers: Mapping[str, str], operation: Operation, kind: StreamKind) -> str | None:
    """The id of the state the client last saw: SSE's `Last-Event-ID` header, else the
    operation's `extensions.lastEventId` (gateway/operations/resume.py); None for a first
    subscribe."""
    given: object = headers.get(LAST_EVENT_ID_HEADER) if kind == "sse" else None
    if given is None and operation.extensions is not None:
        given = operation.extensions.get(EXTENSION)
    try:
        return given_event_id(given)
    except GatewayError as error:
        raise HttpProblem(400, error) from error


class LiveStreams:
    """The hook gateway/http/graphql_view.py calls for a streamed request."""

    settings: Settings
    clock: Clock
    verifier: TokenVerifier
    gate: OperationGate
    schema: BaseSchema
    count_errors: Callable[[Iterable[Mapping[str, Any]]], None] | None
    # The socket side's (gateway/subscriptions/view.py): one bound for both transports.
    principal_sockets: PrincipalSockets
    replica_sockets: ReplicaSockets
    keepalive: Keepalive | None

    @cached_property
    def open_streams(self) -> OpenStreams:
        """The replica's live streams (ended at a restart: gateway/live_http/server_protocol)."""
        return OpenStreams()

    async def stream_response(
        self, request: Request, kind: StreamKind, request_id: str
    ) -> Response:
        """The streamed answer to `request`, or the refusal (raised as HttpProblem) that
        comes before any stream: no subscriptions, a bad request, no valid token, a full
        replica or principal."""
        if not self.settings.subscriptions:
            raise HttpProblem(400, BadRequest("Subscriptions are turned off on this gateway"))
        if request.method == "POST":
            require_json_body(request)
        authorization = request.headers.get("authorization")
        by_cookie = False
        try:
            if authorization is None and kind == "sse":
                authorization = cookie_authorization(
                    request.headers,
                    request.cookies,
                    self.settings.cors_origins,
                    self.settings.allowed_hosts,
                )
                by_cookie = authorization is not None
            principal, expires_at = self.verifier.verify_session(authorization)
        except Unauthenticated as error:
            raise HttpProblem(401, error, {"WWW-Authenticate": 'Bearer realm="insight"'}) from error
        graphql_request = (
            read_get(request)
            if request.method == "GET"
            else await read_post(request, max_bytes=self.settings.max_body_bytes, max_batch=1)
        )
        if graphql_request.batched:
            raise HttpProblem(400, BadRequest("A stream carries one operation, not a batch"))
        (operation,) = graphql_request.operations
        last_seen = last_event_id(request.headers, operation, kind)
        if not self.replica_sockets.acquire():
            limit = self.replica_sockets.maximum
            raise HttpProblem(
                503,
                GatewayError(
                    f"This replica holds its maximum of connections ({limit}): retry, or "
                    "another one",
                    extensions={"code": "SERVICE_UNAVAILABLE"},
                ),
                {"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        if not self.principal_sockets.acquire(principal.sub):
            self.replica_sockets.release()
            limit = self.principal_sockets.maximum
            raise HttpProblem(
                429,
                GatewayError(
                    f"Too many connections open for this user on this replica (at most {limit})",
                    extensions={"code": "RATE_LIMITED"},
                ),
            )
        return _StreamedAnswer(
            self, kind, operation, principal, expires_at, last_seen, request_id, by_cookie
        )

    def release_connection(self, principal: Principal) -> None:
        self.principal_sockets.release(principal.sub)
        self.replica_sockets.release()


class _StreamedAnswer(Response):
    """The stream as the view's answer: its headers are the view's (`X-Request-ID`, the
    protective ones); its body is written as events come, until the client goes."""

    def __init__(
        self,
        view: LiveStreams,
        kind: StreamKind,
        operation: Operation,
        principal: Principal,
        expires_at: float,
        last_seen: str | None,
        request_id: str,
        by_cookie: bool,
    ) -> None:
        framing = FRAMINGS[kind]()
        super().__init__(
            headers={**PROTECTIVE_HEADERS, "X-Accel-Buffering": "no"},
            media_type=framing.media_type,
        )
        # A stream has no length (starlette's Response gives an empty body one of 0).
        self.raw_headers = [(n, v) for n, v in self.raw_headers if n != b"content-length"]
        self.view = view
        self.kind = kind
        self.framing = framing
        self.operation = operation
        self.principal = principal
        self.expires_at = expires_at
        self.last_seen = last_seen
        self.request_id = request_id
        self.by_cookie = by_cookie

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        view = self.view
        stream = LiveStream(
            self.framing, send, last_seen=self.last_seen, count_errors=view.count_errors
        )
        try:
            await stream.start(self.raw_headers)
            session = await self._subscribe(scope, stream)
            if session is None:
                await stream.complete()
                return
            # What the stream lives on from here: the subscriber, not the request. Its
            # headers (read: the token, the Accept, CORS's Origin) and the operation's text
            # go, as a socket's do after `connection_init` and its hand-over.
            scope["headers"].clear()
            self.operation = self.raw_headers = None  # type: ignore[assignment]
            session.query, session.variables = "", None
            await self._hold(stream, session, receive)
        finally:
            view.release_connection(self.principal)

    async def _subscribe(self, scope: Scope, stream: LiveStream) -> LiveSession | None:
        """Run the operation: a subscription hands its subscriber to the hub (the session
        returned); anything else is answered on the stream (None)."""
        view = self.view
        operation = self.operation
        try:
            query = view.gate.query_of(operation, self.principal)
            if query is None or not query.strip():
                raise BadRequest("The request has no GraphQL query")
        except GatewayError as error:
            await stream.answer({"errors": [formatted(error)]})
            return None
        resources = opened_resources(scope["app"])
        assert resources.live is not None, "subscriptions are on"
        session = LiveSession(
            resources.live,
            query,
            operation.operation_name,
            operation.variables,
            stream.send,
            resuming=self.last_seen is not None,
        )
        context = app_context(
            resources,
            principal=self.principal,
            clock=view.clock,
            request_id=self.request_id,
            deadline_seconds=view.settings.request_deadline_seconds,
            live=session,
        )
        try:
            results = await view.schema.stream(
                query,
                variable_values=operation.variables,
                context_value=context,
                operation_name=operation.operation_name,
                operation_extensions=operation.extensions,
                allowed_operation_types=BY_COOKIE if self.by_cookie else ALLOWED[self.kind],
            )
            async with aclosing(results):
                async for result in results:
                    if not isinstance(result, ExecutionResult):
                        raise BadRequest("@defer and @stream are not served")
                    await stream.answer(self._payload(result))
        except GatewayError as error:
            await stream.answer({"errors": [formatted(error)]})
        except GraphQLError as error:
            # A document that does not parse (strawberry's parser cache raises it).
            shown = coded_errors([error], pre_execution=True, request_id=self.request_id)
            await stream.answer({"errors": shown})
        except Exception:
            logger.exception("a live stream failed (request %s)", self.request_id)
            internal = GatewayError(extensions={"requestId": self.request_id})
            await stream.answer({"errors": [formatted(internal)]})
        finally:
            context.reads.release()
        if session.subscriber is None:
            return None
        return session

    def _payload(self, result: ExecutionResult) -> Payload:
        """A result as the stream's event; an operation of a type the transport does not
        carry is refused as a request error (BAD_REQUEST), as over HTTP."""
        errors = result.errors or []
        cause = errors[0].original_error if len(errors) == 1 else None
        if isinstance(result, PreExecutionError) and isinstance(cause, InvalidOperationTypeError):
            refused = BadRequest(
                f"A {cause.operation_type.value} is not run on the stream cookie: send "
                "'Authorization: Bearer <JWT>'"
                if self.by_cookie
                else f"A {cause.operation_type.value} is not sent as a stream: POST it as "
                "application/json"
            )
            return {"errors": [formatted(refused)]}
        return payload_of(result, self.request_id)

    async def _hold(self, stream: LiveStream, session: LiveSession, receive: Receive) -> None:
        """Until the client goes (or the stream is ended: its token expired, a restart)."""
        view = self.view
        streams = view.open_streams
        streams.add(stream)
        keepalive = view.keepalive
        slot = keepalive.join(stream) if keepalive is not None else None

        # A cookie's EventSource comes back by itself, with the cookie the page renewed.
        expired = stream.renew if self.by_cookie else stream.expired
        stream.expire_at(self.expires_at - view.clock.now().timestamp(), expired)
        if streams.restarting:
            await stream.restart(RESTARTING_RETRY_MS)
        try:
            while not stream.ended:
                message = await receive()
                if message["type"] == "http.disconnect":
                    break
        finally:
            session.unsubscribe()
            stream.disarm()
            streams.discard(stream)
            if slot is not None and keepalive is not None:
                keepalive.leave(stream, slot)
            with contextlib.suppress(Exception):
                await stream.end(b"")


#: A stream that opens while the replica restarts is sent away at once.
RESTARTING_RETRY_MS = 100
