"""The request scope: what one request's reads and writes carry with them, passed to the
loaders and to a `Dynamo` bound for the request (`Dynamo.bound`), never held ambiently.

A transport (an HTTP request, a socket operation, a subscription's re-read) makes one per
request, through `schema.context.build_context`; a batch's operations share their request's.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime

from loaders.call_log import CallLog

__all__ = ["RequestScope"]


@dataclass(frozen=True, slots=True)
class RequestScope:
    """One request's instant, deadline and call log."""

    #: The request's instant: every read rule and every write of the request uses it.
    now: datetime
    #: The instant, on the event loop's clock, past which no DynamoDB call of the request
    #: may still be waiting; None: no limit (a script, a test).
    deadline: float | None = None
    #: Every DynamoDB call of the request (always recorded, for the metrics).
    calls: CallLog = field(default_factory=CallLog)

    @classmethod
    def starting(
        cls, now: datetime, *, seconds: float | None = None, calls: CallLog | None = None
    ) -> RequestScope:
        """A scope whose deadline is `seconds` from now on the running loop's clock."""
        deadline = None if seconds is None else asyncio.get_running_loop().time() + seconds
        return cls(now, deadline, CallLog() if calls is None else calls)
