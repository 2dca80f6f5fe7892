"""Headers every GraphQL answer carries: no cache keeps it, no browser sniffs it, and the
caller sees its budget (the IETF RateLimit header fields draft)."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.responses import Response

from gateway.protection.rate_limit import Charge

#: Answers carry a user's financial data: no shared or private cache may store one, and a
#: browser must take the JSON for what its Content-Type says.
PROTECTIVE_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


def forbid_framing(response: Response) -> Response:
    """A Content-Security-Policy of `frame-ancestors 'none'`: the GraphiQL page runs queries
    with the token in its headers, and the embedded mode's holds a dashboard token, so no
    other site may frame it and steer a user's clicks (clickjacking)."""
    response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"
    return response


def rate_limit_headers(charges: Sequence[Charge]) -> dict[str, str]:
    """`RateLimit-Policy` (the budget) and `RateLimit` (what is left, and the seconds until
    the oldest charge frees up) after the request's last charge; a charge let through
    while the storage failed has no known remainder, so only the policy is sent."""
    if not charges:
        return {}
    last = charges[-1]
    policy = f'"{last.budget.policy}"'
    headers = {
        "RateLimit-Policy": f"{policy};q={last.budget.points};w={last.budget.window_seconds}"
    }
    if last.remaining is not None and last.reset_seconds is not None:
        headers["RateLimit"] = f"{policy};r={last.remaining};t={last.reset_seconds}"
    return headers
