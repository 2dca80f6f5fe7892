"""Transactions under concurrency, on a backend that applies them atomically: moto's
server one request at a time (support/serial_moto.py says why the suite's threaded moto
server is not such a backend: its TransactWriteItems holds no lock between its checks,
its writes and its restore of copied tables; dynalite has no transactions at all)."""

from __future__ import annotations

import asyncio

from loaders.dynamodb import TransactionCanceled
from loaders.table import Table
from tests.conftest import AtomicBackend

COPIES = 12


async def test_of_concurrent_transactions_on_one_absent_key_exactly_one_writes(
    atomic: AtomicBackend,
) -> None:
    tables = atomic.tables

    async def claim(copy: int) -> bool:
        # The idempotency pattern: a record conditioned on its absence, and an effect.
        try:
            await atomic.dynamo.call(
                "transact_write_items",
                TransactItems=[
                    {
                        "Put": {
                            "TableName": tables.idempotency,
                            "Item": {"key": {"S": "one-key"}, "copy": {"N": str(copy)}},
                            "ConditionExpression": "attribute_not_exists(#k)",
                            "ExpressionAttributeNames": {"#k": "key"},
                        }
                    },
                    {
                        "Put": {
                            "TableName": tables.datacapture,
                            "Item": {"PK": {"S": "USERS#u"}, "SK": {"S": f"EFFECT#{copy}"}},
                        }
                    },
                ],
            )
        except TransactionCanceled:
            return False
        return True

    claimed = await asyncio.gather(*(claim(copy) for copy in range(COPIES)))

    assert sum(claimed) == 1
    winner = claimed.index(True)
    record = await atomic.dynamodb.get_item(
        TableName=tables.idempotency, Key={"key": {"S": "one-key"}}, ConsistentRead=True
    )
    assert record["Item"]["copy"] == {"N": str(winner)}
    effects = await atomic.dynamodb.scan(TableName=tables.name(Table.DATACAPTURE))
    assert [item["SK"]["S"] for item in effects["Items"]] == [f"EFFECT#{winner}"]
