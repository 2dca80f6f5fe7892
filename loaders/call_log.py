"""The DynamoDB calls of one request: how many, how many waits, how much read capacity.

`Dynamo.call` records into the log of the request it is bound to (`Dynamo.bound`, with the
request's `RequestScope`); the process's unbound `Dynamo` records nowhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "READ_OPERATIONS",
    "WRITE_OPERATIONS",
    "CallLog",
    "CallRecord",
    "consumed_capacity_units",
]

#: The operations whose consumed capacity is read capacity.
READ_OPERATIONS = frozenset(
    {"batch_get_item", "get_item", "query", "scan", "transact_get_items", "execute_statement"}
)
#: The writer paths' operations (sent with ReturnConsumedCapacity).
WRITE_OPERATIONS = frozenset({"put_item", "transact_write_items"})


@dataclass(slots=True)
class CallRecord:
    """One DynamoDB call. `depth` is its round trip: 1 for a call issued before any call
    of the request had answered, else one more than the deepest call answered by then."""

    operation: str
    depth: int
    capacity_units: float = 0.0


@dataclass(slots=True)
class CallLog:
    """Every DynamoDB call of one request, in the order they were issued.

    Round trips count waits, not calls: a call issued after another call's answer came
    back may have needed that answer, so it is one round trip later. This never
    under-counts a real chain; calls queued behind the in-flight cap (issued together,
    sent later) are not a chain and do not count.
    """

    records: list[CallRecord] = field(default_factory=list)
    #: Reads answered by the coherent cache instead (None: the cache is off).
    cached_reads: int | None = None
    _deepest_answered: int = 0

    def issue(self, operation: str) -> CallRecord:
        record = CallRecord(operation, self._deepest_answered + 1)
        self.records.append(record)
        return record

    def answer(self, record: CallRecord, response: Mapping[str, Any] | None) -> None:
        """Close `record` (response None: the call failed), taking its consumed capacity."""
        if response is not None:
            record.capacity_units = consumed_capacity_units(response)
        self._deepest_answered = max(self._deepest_answered, record.depth)

    @property
    def calls(self) -> int:
        return len(self.records)

    @property
    def round_trips(self) -> int:
        return max((record.depth for record in self.records), default=0)

    @property
    def read_capacity_units(self) -> float:
        return sum(r.capacity_units for r in self.records if r.operation in READ_OPERATIONS)

    @property
    def write_capacity_units(self) -> float:
        return sum(r.capacity_units for r in self.records if r.operation in WRITE_OPERATIONS)

    def summary(self) -> dict[str, float | int]:
        """The figures of `extensions.cost` (`cachedReads` only with the cache on)."""
        summary: dict[str, float | int] = {
            "dynamodbCalls": self.calls,
            "roundTrips": self.round_trips,
            "readCapacityUnits": self.read_capacity_units,
        }
        if self.cached_reads is not None:
            summary["cachedReads"] = self.cached_reads
        written = self.write_capacity_units
        if written:
            # A keyed mutation's transaction: 2 write units per item, its record included.
            summary["writeCapacityUnits"] = written
        return summary


def consumed_capacity_units(response: Mapping[str, Any]) -> float:
    """The capacity units of a response sent with ReturnConsumedCapacity: one entry for a
    single-table operation, a list (one per table) for the batch operations."""
    consumed = response.get("ConsumedCapacity")
    if consumed is None:
        return 0.0
    entries = consumed if isinstance(consumed, list) else [consumed]
    return float(sum(entry.get("CapacityUnits", 0) for entry in entries))
