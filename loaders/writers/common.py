"""What several writers share: list bounds, transactions, and the consistent read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any, TypeVar

from loaders import validation
from loaders.codec import Item, from_wire, is_live
from loaders.dynamodb import Dynamo
from loaders.keys import ItemKey
from loaders.record import Record
from loaders.rows.income_detection import DetectedTransaction
from loaders.transactions import Writes

RecordT = TypeVar("RecordT", bound=Record)

__all__ = [
    "MAX_METHODS",
    "MAX_ML_PREDICTIONS",
    "MAX_TRANSACTIONS",
    "TransactionCommand",
    "put_written",
    "read_consistent",
    "validated_transactions",
]

#: Bounds on list inputs: far above real use, low enough to keep one item under 400 KB.
MAX_METHODS = 26
MAX_TRANSACTIONS = 500
MAX_ML_PREDICTIONS = 1000


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


@dataclass(frozen=True, slots=True)
class TransactionCommand:
    """A transaction as the detection and capture inputs give it."""

    transaction_id: str
    name: str
    amount: Decimal
    date: date

    def validated(self, field: str) -> DetectedTransaction:
        return DetectedTransaction(
            transaction_id=validation.identifier(f"{field}.transactionId", self.transaction_id),
            name=validation.text(f"{field}.name", self.name),
            amount=validation.money(f"{field}.amount", self.amount),
            date=self.date,
        )


def validated_transactions(
    field: str, transactions: Sequence[TransactionCommand]
) -> tuple[DetectedTransaction, ...]:
    validation.bounded(field, transactions, maximum=MAX_TRANSACTIONS)
    return tuple(t.validated(f"{field}[{n}]") for n, t in enumerate(transactions))
