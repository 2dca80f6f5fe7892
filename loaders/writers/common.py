"""What several writers share: the declared row's write, transactions, and the consistent
read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from loaders import validation
from loaders.codec import Item, from_wire, is_live
from loaders.dynamodb import Dynamo
from loaders.keys import ItemKey
from loaders.record import Record
from loaders.rows.income_detection import MAX_TRANSACTIONS, DetectedTransaction
from loaders.transactions import Writes

RecordT = TypeVar("RecordT", bound=Record)

__all__ = ["put_written", "read_consistent", "validated_transactions"]


def put_written(
    writes: Writes, declared: type[RecordT], values: Mapping[str, Any], now: datetime
) -> RecordT:
    """Stages the row of a mutation's input `values` (by field name), every one checked as
    its record declares (`Record.written`), and answers it."""
    row = declared.written(values, now)
    writes.put(row.entity().table, row.to_item())
    return row


async def read_consistent(dynamo: Dynamo, key: ItemKey, now: datetime) -> Item | None:
    """The item as stored right now (strongly consistent), None when absent or expired.

    Writers read this way, not through the request's loaders, because they decide on what is
    in the table at this moment, not on what the request saw earlier."""
    answer = await dynamo.call(
        "get_item",
        TableName=dynamo.tables.name(key.table),
        Key=key.attributes(),
        ConsistentRead=True,
    )
    wire = answer.get("Item")
    if wire is None:
        return None
    item = from_wire(wire)
    return item if is_live(item, now) else None


def validated_transactions(
    field: str, transactions: Sequence[Mapping[str, Any]], now: datetime
) -> tuple[DetectedTransaction, ...]:
    """The input's transactions (by field name), each checked as `DetectedTransaction`
    declares (`filteredTransactions[2].amount`)."""
    validation.bounded(field, transactions, maximum=MAX_TRANSACTIONS)
    return tuple(
        DetectedTransaction.written(transaction, now, f"{field}[{n}].")
        for n, transaction in enumerate(transactions)
    )
