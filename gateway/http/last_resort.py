"""The request id every answer carries, and the last-resort answer to an unexpected failure.

An exception that escapes the app (a bug in a view, in a middleware, in writing the answer)
would otherwise reach starlette's `ServerErrorMiddleware`, which answers a text/plain 500
with no request id and no protective headers, and the server logs it as "Exception in ASGI
application". `LastResort` answers it as the GraphQL view answers its own internal errors:
JSON, `INTERNAL_SERVER_ERROR`, the request id, nothing internal; the cause is logged once,
under that id.
"""

from __future__ import annotations

import logging
import re
import uuid

import orjson
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.operations.response_headers import PROTECTIVE_HEADERS
from schema.errors import INTERNAL_MESSAGE

logger = logging.getLogger("gateway.http")

_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def scope_request_id(scope: Scope) -> str:
    """The request's id: the caller's X-Request-ID when it is a plain token (it goes into
    logs), else a new one; made once per request, kept in the scope's state, so that the
    view and this middleware answer with the same one."""
    state = scope.setdefault("state", {})
    known = state.get("request_id")
    if isinstance(known, str):
        return known
    # Read in place: `Headers(scope=…)` would put a copy of the list in the scope, and a
    # socket's connection would then hold two (gateway/subscriptions/protocol.py lets
    # the scope's go after `connection_init`).
    given = Headers(raw=list(scope["headers"])).get("x-request-id", "")
    request_id = given if _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
    state["request_id"] = request_id
    return request_id


def internal_error_body(request_id: str) -> bytes:
    return orjson.dumps(
        {
            "errors": [
                {
                    "message": INTERNAL_MESSAGE,
                    "extensions": {"code": "INTERNAL_SERVER_ERROR", "requestId": request_id},
                }
            ]
        }
    )


class LastResort:
    """Answers an exception that escaped the app with a JSON 500 (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = scope_request_id(scope)
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            logger.exception("request %s failed", request_id)
            if started:
                # Half an answer is out: nothing better than cutting it off can be done.
                raise
            body = internal_error_body(request_id)
            headers = {
                "content-type": "application/json; charset=utf-8",
                "content-length": str(len(body)),
                "x-request-id": request_id,
                **{name.lower(): value for name, value in PROTECTIVE_HEADERS.items()},
            }
            await send(
                {
                    "type": "http.response.start",
                    "status": 500,
                    "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
                }
            )
            await send({"type": "http.response.body", "body": body})
