"""A shard's checkpoint, kept in its lease's `data` (compact JSON, so that a person or a Go
service reading the `locks` item sees what it is).

- `seq`: the sequence number of the last record whose change was published; reading
  resumes just after it;
- `ended`: the shard is closed and was read to its end (its children may be read);
- `since`: no record read yet, and reading started at LATEST at that time (epoch seconds):
  a replica taking over reads from TRIM_HORIZON and publishes only records from then on,
  so that a change made between the first start and the takeover is not lost.

No `seq` and no `since`: read from TRIM_HORIZON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson


@dataclass(frozen=True, slots=True)
class Checkpoint:
    sequence_number: str | None = None
    ended: bool = False
    since: float | None = None

    def encode(self) -> bytes:
        body: dict[str, Any] = {}
        if self.sequence_number is not None:
            body["seq"] = self.sequence_number
        if self.ended:
            body["ended"] = True
        if self.since is not None and self.sequence_number is None:
            body["since"] = round(self.since, 3)
        return orjson.dumps(body)

    @classmethod
    def decode(cls, data: bytes | None) -> Checkpoint | None:
        """The checkpoint in a lease's data; None when there is none (or it is not ours)."""
        if not data:
            return None
        try:
            body = orjson.loads(data)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(body, dict):
            return None
        seq = body.get("seq")
        since = body.get("since")
        return cls(
            sequence_number=seq if isinstance(seq, str) else None,
            ended=body.get("ended") is True,
            since=float(since) if isinstance(since, int | float) else None,
        )
