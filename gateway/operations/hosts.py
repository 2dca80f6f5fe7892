"""Which `Host` names the gateway answers: the INSIGHT_ALLOWED_HOSTS setting.

A request naming another host (a DNS name rebound to the gateway's address, a scanner) gets
400 from starlette's TrustedHostMiddleware, before anything runs; so does a socket's upgrade,
through the same middleware on the sockets' lane (gateway/subscriptions/lane.py). Unset:
any host, as before (a proxy in front often checks it).
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware

from gateway.settings.requests import RequestSettings

#: `serve --embedded`'s hosts when none are set: its GraphiQL page holds a dashboard token,
#: so only the loopback names open it, whatever a DNS name pointing here says.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def hosts_middleware(settings: RequestSettings) -> list[Middleware]:
    if not settings.allowed_hosts:
        return []
    # No redirect to `www.`: an API client follows no such thing.
    return [
        Middleware(
            TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts), www_redirect=False
        )
    ]


def host_allowed(host: str, allowed: Sequence[str]) -> bool:
    """Whether `host` (no port) is one of `allowed`, as TrustedHostMiddleware matches."""
    host = host.lower()
    return any(
        pattern == "*"
        or host == pattern
        or (pattern.startswith("*.") and host.endswith(pattern[1:]))
        for pattern in allowed
    )
