"""Which browser origins may call the gateway: the INSIGHT_CORS_ORIGINS setting."""

from __future__ import annotations

from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware

from gateway.settings.requests import RequestSettings


def cors_middleware(settings: RequestSettings) -> list[Middleware]:
    """starlette's CORS middleware for the configured origins; none configured, none added,
    so a browser on another origin cannot read any answer (the same-origin policy)."""
    if not settings.cors_origins:
        return []
    return [
        Middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST"],
            # The gateway's own request headers: the token, the body's type, the request id,
            # the cost report (X-Insight-Cost) and W3C trace context for tracing.
            allow_headers=[
                "Authorization",
                "Content-Type",
                "Accept",
                "X-Request-ID",
                "X-Insight-Cost",
                "traceparent",
                "tracestate",
            ],
            # A browser frontend may read its budget and when to retry (issue 12).
            expose_headers=["X-Request-ID", "RateLimit", "RateLimit-Policy", "Retry-After"],
            # The bearer token travels in a header; the stream cookie (an EventSource's,
            # gateway/live_http/stream_cookie.py) serves the gateway's own origin alone.
            allow_credentials=False,
            max_age=600,
        )
    ]
