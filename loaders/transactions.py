"""A mutation's writes, staged and committed together (SPEC section 9).

A writer stages its items (`Writes.put`, with their conditions) and its guards
(`Writes.check`: a condition on an item it does not write, such as the lock it holds);
`commit` then sends them as one PutItem when there is one item and nothing else, or as one
`TransactWriteItems`: every item or none. A keyed mutation adds the key's record to the
same transaction (`loaders/idempotency.py`), so that an effect never exists without its
record, nor a record without its effect.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, TypeVar

from loaders.codec import Item, to_wire
from loaders.dynamodb import ConditionFailed, Dynamo, TransactionCanceled
from loaders.tables import Table

__all__ = ["MAX_TRANSACTION_ITEMS", "Staged", "T", "WriteConflict", "Writes", "commit"]

T = TypeVar("T")

#: DynamoDB's bound on the items of one TransactWriteItems.
MAX_TRANSACTION_ITEMS = 100


class WriteConflict(Exception):
    """A writer's own condition failed at commit: the table changed since the writer
    decided. The writer runs again (`Writes.attempt` tells it), deciding afresh."""


@dataclass(frozen=True, slots=True)
class Staged:
    """One entry of a transaction: a Put, or a ConditionCheck when `item` is None."""

    table: Table
    #: The item to put; None for a condition check on `key`.
    item: Item | None
    key: Mapping[str, Any] | None = None
    condition: str | None = None
    names: Mapping[str, str] | None = None
    values: Mapping[str, Any] | None = None
    #: A failed condition here means the key's record exists (`loaders/idempotency.py`),
    #: not a conflict with another writer.
    is_record: bool = False

    def partition(self) -> tuple[Table, str] | None:
        """The partition the entry writes, for the cache and the change feed."""
        if self.item is None:
            return None
        return self.table, str(self.item[self.table.key_names[0]])

    def write_units(self) -> int:
        """What DynamoDB charges for the entry in a transaction: 2 units per KB."""
        size = _size(self.item if self.item is not None else self.key)
        return 2 * -(-size // 1024)

    def wire(self, dynamo: Dynamo) -> dict[str, Any]:
        """The entry as a TransactWriteItems element."""
        item: Mapping[str, Any]
        if self.item is not None:
            kind, target, item = "Put", "Item", self.item
        else:
            assert self.key is not None
            kind, target, item = "ConditionCheck", "Key", self.key
        body: dict[str, Any] = {"TableName": dynamo.tables.name(self.table), target: to_wire(item)}
        if self.condition is not None:
            body["ConditionExpression"] = self.condition
        if self.names:
            body["ExpressionAttributeNames"] = dict(self.names)
        if self.values:
            body["ExpressionAttributeValues"] = to_wire(self.values)
        return {kind: body}


@dataclass
class Writes:
    """What one mutation field stages. `attempt` is 0 the first time, and counts the runs
    that a `WriteConflict` sent back."""

    attempt: int = 0
    staged: list[Staged] = field(default_factory=list)
    #: What must stay held until the writes are committed (the balance alert's lock).
    holding: AsyncExitStack = field(default_factory=AsyncExitStack)

    def put(
        self,
        table: Table,
        item: Item,
        *,
        condition: str | None = None,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        self.staged.append(Staged(table, item, None, condition, names, values))

    def check(
        self,
        table: Table,
        key: Mapping[str, Any],
        condition: str,
        *,
        names: Mapping[str, str] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        """Commit only while `condition` holds on `key`'s item (written by someone else)."""
        self.staged.append(Staged(table, None, key, condition, names, values))

    async def hold(self, context: AbstractAsyncContextManager[T]) -> T:
        """Enter `context` until the writes are committed or given up."""
        return await self.holding.enter_async_context(context)

    @property
    def writes_items(self) -> bool:
        return any(entry.item is not None for entry in self.staged)

    def partitions(self) -> list[tuple[Table, str]]:
        return list(dict.fromkeys(p for entry in self.staged if (p := entry.partition())))


async def commit(
    dynamo: Dynamo, staged: Sequence[Staged], *, token: str | None = None
) -> dict[str, Any] | None:
    """Write `staged` all or nothing; the response (for its consumed capacity), or None
    when there was nothing to write.

    One Put alone, unkeyed, is a PutItem (the same effect, half a transaction's capacity).
    Raises `WriteConflict` when a writer's condition failed, and `TransactionCanceled` when
    a record's did (its reasons say which); `token` is the transaction's
    ClientRequestToken, so that DynamoDB itself answers a resent commit without applying
    it twice (for ten minutes)."""
    if not staged:
        return None
    if len(staged) > MAX_TRANSACTION_ITEMS:
        raise ValueError(f"at most {MAX_TRANSACTION_ITEMS} items a transaction")
    if len(staged) == 1 and staged[0].item is not None and token is None:
        return await _put_one(dynamo, staged[0])
    params: dict[str, Any] = {
        "TransactItems": [entry.wire(dynamo) for entry in staged],
        "ReturnConsumedCapacity": "TOTAL",
        # botocore resends the same call when its answer is lost: DynamoDB answers the
        # resend from the first commit instead of applying it again.
        "ClientRequestToken": token or uuid.uuid4().hex,
    }
    try:
        response = await dynamo.call("transact_write_items", **params)
    except TransactionCanceled as canceled:
        failed = canceled.failed_conditions()
        if any(not staged[index].is_record for index in failed):
            raise WriteConflict(f"{len(failed)} condition(s) failed") from canceled
        raise
    log = None if dynamo.scope is None else dynamo.scope.calls
    if not response.get("ConsumedCapacity") and log is not None:
        # DynamoDB answers what the transaction consumed; a local implementation may not
        # (moto): then it is priced as DynamoDB prices it, 2 units per KB of each entry, on
        # this transaction's record (the request's other calls may have been logged since).
        record = next(r for r in reversed(log.records) if r.operation == "transact_write_items")
        record.capacity_units = float(sum(entry.write_units() for entry in staged))
    return response


async def _put_one(dynamo: Dynamo, entry: Staged) -> dict[str, Any]:
    params: dict[str, Any] = entry.wire(dynamo)["Put"]
    params["ReturnConsumedCapacity"] = "TOTAL"
    try:
        return await dynamo.call("put_item", **params)
    except ConditionFailed as failed:
        raise WriteConflict("the condition failed") from failed


def _size(value: Any) -> int:
    """An item's size as DynamoDB counts it (names and values, in bytes), near enough."""
    if isinstance(value, Mapping):
        return 3 + sum(len(str(name).encode()) + _size(inner) for name, inner in value.items())
    if isinstance(value, list | tuple):
        return 3 + sum(1 + _size(inner) for inner in value)
    if isinstance(value, bytes):
        return len(value)
    if isinstance(value, str):
        return len(value.encode())
    if isinstance(value, bool) or value is None:
        return 1
    return 1 + len(str(value)) // 2
