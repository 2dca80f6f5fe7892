"""Shards: discovery through DescribeStream (paging), and the lineage plan.

DynamoDB Streams splits a stream into shards that close (about every four hours, or when a
partition splits) and hand over to children naming them as `ParentShardId`. A key's records
are in order only along that lineage, so a child is read only once its parent is finished:
closed and read to its end (its checkpoint says `ended`), never to be read (a closed shard
from before the gateway first read the stream), or no longer listed (trimmed after 24 h).

Where a shard with no checkpoint starts:
- TRIM_HORIZON when its parent was read by the gateway (the parent's lease exists, or the
  parent is itself on a followed lineage): nothing between the two is missed;
- LATEST when it is open and nothing before it was followed: the first start of all does
  not replay a day of history;
- a closed shard that nothing before it was followed is skipped (history from before).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from loaders.live.streams.api import StreamsApi
from loaders.live.streams.checkpoint import Checkpoint

#: DescribeStream pages at most 100 shards; a stream rarely has more than a few dozen.
_MAX_PAGES = 1000


@dataclass(frozen=True, slots=True)
class Shard:
    shard_id: str
    parent_id: str | None
    #: The shard has an ending sequence number: no record will be added to it.
    closed: bool


async def describe_shards(api: StreamsApi, stream_arn: str) -> list[Shard]:
    """Every shard DescribeStream lists, following `LastEvaluatedShardId`."""
    shards: list[Shard] = []
    start: str | None = None
    for _ in range(_MAX_PAGES):
        params: dict[str, Any] = {"StreamArn": stream_arn}
        if start is not None:
            params["ExclusiveStartShardId"] = start
        answer = await api.describe_stream(**params)
        description = answer["StreamDescription"]
        for shard in description.get("Shards", []):
            ending = shard.get("SequenceNumberRange", {}).get("EndingSequenceNumber")
            shards.append(Shard(shard["ShardId"], shard.get("ParentShardId"), ending is not None))
        start = description.get("LastEvaluatedShardId")
        if not start:
            break
    return shards


@dataclass(frozen=True, slots=True)
class LeaseView:
    """A shard's lease item as last read: who holds it, and its checkpoint."""

    owner_name: str
    released: bool
    record_version_number: str
    lease_seconds: float
    checkpoint: Checkpoint | None

    @property
    def ended(self) -> bool:
        return self.checkpoint is not None and self.checkpoint.ended


class Start(enum.Enum):
    LATEST = "LATEST"
    TRIM_HORIZON = "TRIM_HORIZON"
    AFTER = "AFTER_SEQUENCE_NUMBER"


class Status(enum.Enum):
    ENDED = "ended"  # read to its end
    SKIPPED = "skipped"  # closed, from before the gateway followed the stream
    WAITING = "waiting"  # its parent is not finished
    READY = "ready"  # may be read now


@dataclass(frozen=True, slots=True)
class Plan:
    status: Status
    start: Start = Start.LATEST
    checkpoint: Checkpoint | None = None
    #: Changes may have been missed before this shard (its parent was trimmed before it
    #: was read to its end): say so to the listeners when reading starts.
    gap: str | None = None


def plan_shards(shards: Sequence[Shard], leases: Mapping[str, LeaseView]) -> dict[str, Plan]:
    """What to do with each listed shard, given the lease items of the listed shards and
    of their parents (`leases` by shard id; absent: no item)."""
    listed = {shard.shard_id: shard for shard in shards}
    plans: dict[str, Plan] = {}

    def plan(shard: Shard, depth: int = 0) -> Plan:
        known = plans.get(shard.shard_id)
        if known is not None:
            return known
        result = _plan(shard, depth)
        plans[shard.shard_id] = result
        return result

    def _plan(shard: Shard, depth: int) -> Plan:
        lease = leases.get(shard.shard_id)
        if lease is not None and lease.ended:
            return Plan(Status.ENDED, checkpoint=lease.checkpoint)
        parent_id = shard.parent_id
        parent_followed = False
        gap: str | None = None
        if parent_id is not None and parent_id in listed and depth < len(listed):
            parent = plan(listed[parent_id], depth + 1)
            if parent.status in (Status.WAITING, Status.READY):
                return Plan(Status.WAITING)
            parent_followed = parent.status is Status.ENDED
        elif parent_id is not None and parent_id in leases:
            # The parent was read by the gateway and is trimmed now.
            parent_followed = True
            if not leases[parent_id].ended:
                gap = f"shard {parent_id} was trimmed before it was read to its end"
        if lease is not None and lease.checkpoint is not None:
            checkpoint = lease.checkpoint
            if checkpoint.sequence_number is not None:
                return Plan(Status.READY, Start.AFTER, checkpoint)
            return Plan(Status.READY, Start.TRIM_HORIZON, checkpoint)
        if parent_followed or lease is not None:
            return Plan(Status.READY, Start.TRIM_HORIZON, gap=gap)
        if not shard.closed:
            return Plan(Status.READY, Start.LATEST)
        return Plan(Status.SKIPPED)

    for shard in shards:
        plan(shard)
    return plans
