"""Whether a browser page may use the gateway's ambient credentials: a WebSocket upgrade
(always sent with `Origin`) and a live stream authenticated by its cookie
(gateway/live_http/stream_cookie.py) are refused from a page on another origin unless it is
one the gateway allows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from strawberry.http.websocket_origin import is_same_origin, normalize_origin

from gateway.operations.hosts import host_allowed

__all__ = ["origin_allowed"]


def origin_allowed(
    headers: Mapping[str, str], cors_origins: Sequence[str], allowed_hosts: Sequence[str]
) -> bool:
    """A request with no `Origin` is no cross-origin page's (the caller decides what else it
    needs). A same-origin page may (its Host is one of the allowed hosts, checked before); a
    page on another origin when CORS allows its origin (INSIGHT_CORS_ORIGINS), or it names
    one of the allowed hosts (INSIGHT_ALLOWED_HOSTS: `localhost` opening `127.0.0.1`)."""
    origin = headers.get("origin")
    if origin is None:
        return True
    if headers.get("sec-fetch-site") == "same-origin" or is_same_origin(
        origin, headers.get("host")
    ):
        return True
    normalized = normalize_origin(origin)
    if "*" in cors_origins or (
        normalized is not None and normalized in {normalize_origin(o) for o in cors_origins}
    ):
        return True
    if not allowed_hosts or "*" in allowed_hosts:
        return False
    try:
        host = urlsplit(origin.strip()).hostname
    except ValueError:
        return False
    return host is not None and host_allowed(f"[{host}]" if ":" in host else host, allowed_hosts)
