"""The lease items of trimmed shards, deleted once nothing needs them.

A lease item outlives its shard: a child with no lease yet reads its parent's to know where
to start (`shards.plan_shards`). Once the parent is no longer listed (trimmed) and every
listed child has its own lease item, the parent's item tells nothing more; it is deleted,
conditioned on being released at the version seen, so that `locks` does not grow by one
item per shard every few hours.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from loaders.dynamodb import ConditionFailed, Dynamo
from loaders.live.streams.shards import LeaseView, Shard
from loaders.lock.item import ATTR_IS_RELEASED, ATTR_KEY, ATTR_RECORD_VERSION_NUMBER

log = logging.getLogger("gateway.streams")


def forgettable(shards: Sequence[Shard], leases: Mapping[str, LeaseView]) -> list[str]:
    """The unlisted parents whose released lease items no listed shard needs any more."""
    listed = {shard.shard_id for shard in shards}
    children: dict[str, list[str]] = {}
    for shard in shards:
        if shard.parent_id is not None and shard.parent_id not in listed:
            children.setdefault(shard.parent_id, []).append(shard.shard_id)
    return sorted(
        parent
        for parent, kids in children.items()
        if parent in leases and leases[parent].released and all(kid in leases for kid in kids)
    )


async def forget(dynamo: Dynamo, locks_table: str, key: str, lease: LeaseView) -> bool:
    """Delete a released lease item at the version seen; False when it changed meanwhile."""
    try:
        await dynamo.call(
            "delete_item",
            TableName=locks_table,
            Key={ATTR_KEY: {"S": key}},
            ConditionExpression="#rvn = :rvn AND attribute_exists(#released)",
            ExpressionAttributeNames={
                "#rvn": ATTR_RECORD_VERSION_NUMBER,
                "#released": ATTR_IS_RELEASED,
            },
            ExpressionAttributeValues={":rvn": {"S": lease.record_version_number}},
        )
    except ConditionFailed:
        return False
    log.info("stream lease of a trimmed shard deleted: %s", key)
    return True
