"""Counting the HTTP attempts botocore makes for one `Dynamo.call` (its retries included),
per call and without any ambient state."""

from __future__ import annotations

from typing import Any

__all__ = ["ATTEMPTS_PARAM", "count_attempt", "take_attempts"]

# The HTTP attempts botocore makes for one call (retries included): `Dynamo.call` hands a
# counter to botocore in this parameter, which `take_attempts` moves into the call's own
# request context first thing (`provide-client-params`, before any other handler sees the
# parameters), and `count_attempt` counts each request botocore creates for that context.
ATTEMPTS_PARAM = "_GatewayAttempts"
_ATTEMPTS_CONTEXT = "gateway_attempts"


def take_attempts(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
    counter = params.pop(ATTEMPTS_PARAM, None)
    if counter is not None:
        context[_ATTEMPTS_CONTEXT] = counter


def count_attempt(request: Any, **_: Any) -> None:
    counter = request.context.get(_ATTEMPTS_CONTEXT)
    if counter is not None:
        counter[0] += 1
