"""A browser's credential for a GraphQL over SSE stream. An `EventSource` cannot send an
`Authorization` header, and a token in its URL would reach every proxy's access log; so a
page hands its bearer token to the gateway once, `POST /graphql/stream-cookie` with
`Authorization: Bearer <JWT>`, and gets it back as a cookie only the gateway reads:
`HttpOnly` (no script reads it), `Secure`, `SameSite=Strict` (no other site's page sends
it), `Path=/graphql`, for as long as the token lives. `DELETE` removes it. Not a `__Host-`
cookie: that prefix requires `Path=/`, which would send the token with every request to the
origin, the frontend's own pages (and whatever serves them) included.

The cookie is accepted on one kind of request only: a GraphQL over SSE request to /graphql
(`Accept: text/event-stream`) without an `Authorization` header (the header wins), for a
subscription, from the gateway's own origin or one it allows (the socket's rule:
gateway/operations/browser_origin.py). From any other page (its `Origin`, or a browser's
`Sec-Fetch-Site: cross-site`/`same-site` without one) it counts as no token: 401
UNAUTHENTICATED, as does a cookie holding an invalid or expired token. Every other request
ignores it, so it never authorizes a query or a mutation.

When the token a cookie stream was opened with expires, the stream ends with `retry:`
rather than `complete`: the EventSource comes back by itself with `Last-Event-ID` and the
cookie as it is then, which the page renews by posting its new token; an expired one is
refused (401) and the EventSource stops."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gateway.auth.tokens import TokenVerifier, Unauthenticated
from gateway.http.graphql_response import error_response
from gateway.http.media_types import JSON
from gateway.operations.browser_origin import origin_allowed
from gateway.operations.response_headers import PROTECTIVE_HEADERS
from schema.clock import Clock

__all__ = ["COOKIE", "PATH", "cookie_authorization", "stream_cookie_route"]

#: The cookie's name, and where it is set and removed.
COOKIE = "insight_stream_token"
PATH = "/graphql/stream-cookie"
#: Where the browser sends it: /graphql and below, nowhere else.
COOKIE_PATH = "/graphql"
#: A compact JWT's characters: nothing else is ever put in the cookie.
_COMPACT_JWT = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")
#: What a browser says of a request from another site's page (Fetch Metadata).
_OTHER_SITE = frozenset({"cross-site", "same-site"})


def cookie_authorization(
    headers: Mapping[str, str],
    cookies: Mapping[str, str],
    cors_origins: Sequence[str],
    allowed_hosts: Sequence[str],
) -> str | None:
    """The stream's `Authorization` from its cookie (`Bearer <JWT>`); None when it carries
    none. A cookie sent from a page the gateway does not allow is refused (Unauthenticated)."""
    token = cookies.get(COOKIE)
    if not token:
        return None
    foreign = headers.get("origin") is None and headers.get("sec-fetch-site") in _OTHER_SITE
    if foreign or not origin_allowed(headers, cors_origins, allowed_hosts):
        raise Unauthenticated(
            "The stream cookie is accepted only from this gateway's own origin (or one it "
            "allows): send 'Authorization: Bearer <JWT>'"
        )
    return f"Bearer {token}"


def stream_cookie_route(verifier: TokenVerifier, clock: Clock) -> Route:
    """PATH's route: `POST` (the token in `Authorization`, checked as any request's): 204
    and the cookie, which lives as long as the token; `DELETE`: 204 and the cookie removed."""

    async def endpoint(request: Request) -> Response:
        response = Response(status_code=204, headers=PROTECTIVE_HEADERS)
        if request.method == "DELETE":
            response.delete_cookie(
                COOKIE, path=COOKIE_PATH, secure=True, httponly=True, samesite="strict"
            )
            return response
        authorization = request.headers.get("authorization")
        try:
            _, expires_at = verifier.verify_session(authorization)
            token = (authorization or "").strip().partition(" ")[2].strip()
            if not _COMPACT_JWT.fullmatch(token):
                raise Unauthenticated("The bearer token is not a compact JWT")
        except Unauthenticated as error:
            refused = error_response(401, [error], JSON)
            refused.headers.update(
                {**PROTECTIVE_HEADERS, "WWW-Authenticate": 'Bearer realm="insight"'}
            )
            return refused
        lifetime = max(0, int(expires_at - verifier.leeway_seconds - clock.now().timestamp()))
        response.set_cookie(
            COOKIE,
            token,
            max_age=lifetime,
            path=COOKIE_PATH,
            secure=True,
            httponly=True,
            samesite="strict",
        )
        return response

    return Route(PATH, endpoint, methods=["POST", "DELETE"])
