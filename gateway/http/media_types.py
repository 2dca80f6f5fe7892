"""Content negotiation of the GraphQL-over-HTTP specification."""

from __future__ import annotations

from functools import lru_cache

GRAPHQL_RESPONSE_JSON = "application/graphql-response+json"
JSON = "application/json"
HTML = "text/html"


def _ranges(accept: str) -> list[tuple[str, float]]:
    ranges = []
    for part in accept.split(","):
        media, *params = (piece.strip() for piece in part.split(";"))
        if not media:
            continue
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        ranges.append((media.lower(), quality))
    return ranges


def _quality(ranges: list[tuple[str, float]], media_type: str) -> float:
    kind = media_type.split("/")[0]
    specific = [q for media, q in ranges if media == media_type]
    if specific:
        return max(specific)
    partial = [q for media, q in ranges if media == f"{kind}/*"]
    if partial:
        return max(partial)
    return max((q for media, q in ranges if media == "*/*"), default=0.0)


#: Accept headers whose answer `negotiate` keeps (a client sends the same one each time).
KEPT_ACCEPTS = 64


@lru_cache(maxsize=KEPT_ACCEPTS)
def negotiate(accept: str | None) -> str | None:
    """The media type to answer in, or None when the client accepts neither JSON type.

    No Accept header means application/json (the specification's legacy rule). The newer
    application/graphql-response+json is chosen only when named, at least as preferred as
    application/json: a bare `*/*` (curl, fetch) keeps the legacy answer.
    """
    if accept is None or not accept.strip():
        return JSON
    ranges = _ranges(accept)
    explicit = max((q for media, q in ranges if media == GRAPHQL_RESPONSE_JSON), default=0.0)
    legacy = _quality(ranges, JSON)
    if explicit > 0 and explicit >= legacy:
        return GRAPHQL_RESPONSE_JSON
    if legacy > 0:
        return JSON
    return None


def prefers_html(accept: str | None) -> bool:
    """A browser navigating to the endpoint: HTML is asked for, by name, above JSON."""
    if not accept:
        return False
    ranges = _ranges(accept)
    html = max((q for media, q in ranges if media == HTML), default=0.0)
    return html > 0 and html >= max(_quality(ranges, JSON), _quality(ranges, GRAPHQL_RESPONSE_JSON))
