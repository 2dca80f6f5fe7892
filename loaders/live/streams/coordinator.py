"""The leases: one `locks` item per shard, in dynamolock's layout (a Go service sees a lock),
key `insight-gateway:stream:<table name>:<shard id>`, the checkpoint in its `data`.

Every tick (about a second, jittered) a replica reads the lease items of the listed shards,
plans the lineage (`shards.plan_shards`) and takes at most ONE more lease, while it holds
fewer than its share: ceil(readable shards / live replicas), live replicas counted from the
owners of the leases held now (itself included) whose record version moved within their
lease duration (one that stopped heart-beating does not count). A free lease (no item, or
released) is taken at once; one held by another owner only once its record version has
stood still for that owner's whole lease duration (LockClient's takeover rule: the owner
died). Nothing is stolen from a live replica: leases spread as replicas start together, as
shards roll over (DynamoDB Streams closes each shard within hours and its children are
free), and as replicas stop (a stopping replica releases its leases, so another takes them
at once).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from loaders.dynamodb import Dynamo, DynamoDBFailure
from loaders.entities import STREAMED_TABLES
from loaders.errors import DynamoDBUnavailable
from loaders.live.changes import ChangeFeed
from loaders.live.streams.api import StreamsApi
from loaders.live.streams.checkpoint import Checkpoint
from loaders.live.streams.cleanup import forget, forgettable
from loaders.live.streams.observer import StreamObserver
from loaders.live.streams.reader import Outcome, Pace, ShardGone, ShardReader
from loaders.live.streams.shards import (
    LeaseView,
    Plan,
    Shard,
    Start,
    Status,
    describe_shards,
    plan_shards,
)
from loaders.lock import Lock, LockClient, LockLost, LockNotGranted
from loaders.tables import Table

log = logging.getLogger("gateway.streams")

LEASE_PREFIX = "insight-gateway:stream:"


def lease_key(table_name: str, shard_id: str) -> str:
    return f"{LEASE_PREFIX}{table_name}:{shard_id}"


@dataclass(slots=True)
class _Held:
    table: Table
    shard_id: str
    lock: Lock
    reader: ShardReader
    task: asyncio.Task[None]
    heartbeat: asyncio.Task[None]


@dataclass(frozen=True, slots=True)
class _Candidate:
    table: Table
    stream_arn: str
    shard: Shard
    plan: Plan
    lease: LeaseView | None


class LeaseCoordinator:
    """Reads the streamed tables' shards this replica holds the leases of."""

    def __init__(
        self,
        *,
        dynamo: Dynamo,
        api: StreamsApi,
        feed: ChangeFeed,
        lease_seconds: float,
        owner_name: str | None = None,
        tables: Sequence[Table] = STREAMED_TABLES,
        pace: Pace | None = None,
        observer: StreamObserver | None = None,
        tick_seconds: float | None = None,
        discovery_seconds: float = 10.0,
    ) -> None:
        self._dynamo = dynamo
        self._api = api
        self._feed = feed
        self.locks = LockClient(
            dynamo,
            owner_name=owner_name,
            lease=timedelta(seconds=lease_seconds),
            heartbeat_period=timedelta(seconds=lease_seconds / 4),
        )
        self._heartbeat_seconds = lease_seconds / 4
        self._tables = tuple(tables)
        self._pace = pace or Pace()
        self._observer = observer or StreamObserver()
        self._tick = tick_seconds if tick_seconds is not None else min(1.0, lease_seconds / 4)
        self._discovery_seconds = discovery_seconds
        self._arns: dict[Table, str] = {}
        self._shards: dict[Table, list[Shard]] = {}
        self._discovered_at = -math.inf
        self._held: dict[str, _Held] = {}
        #: Each lease's record version and when this replica first saw it (monotonic).
        self._versions: dict[tuple[Table, str], tuple[str, float]] = {}
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        #: Tables found with no stream enabled (named by `/readyz`).
        self.missing_streams: set[Table] = set()

    @property
    def owner_name(self) -> str:
        return self.locks.owner_name

    @property
    def held(self) -> int:
        return len(self._held)

    def held_shards(self) -> list[tuple[Table, str]]:
        return [(held.table, held.shard_id) for held in self._held.values()]

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="stream-lease-coordinator")

    async def stop(self) -> None:
        """Stop reading and release every lease (kept, with its checkpoint), so that another
        replica takes over at once."""
        self._stopping.set()
        if self._task is not None:
            # The tick ends at its next pause (a lease being taken is registered first).
            try:
                await asyncio.wait_for(asyncio.shield(self._task), timeout=10.0)
            except TimeoutError:
                self._task.cancel()
                # gather, not a suppressed await: a cancel of stop() itself still ends it.
                await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        held = list(self._held.values())
        self._held.clear()
        for each in held:
            each.task.cancel()
            each.heartbeat.cancel()
        await asyncio.gather(
            *(task for each in held for task in (each.task, each.heartbeat)),
            return_exceptions=True,
        )
        await asyncio.gather(*(self._release(each, "stopping") for each in held))

    # --- the tick -----------------------------------------------------------------------

    async def _run(self) -> None:
        failing = False
        while not self._stopping.is_set():
            try:
                await self._once()
                if failing:
                    log.info("stream lease ticks work again")
                failing = False
            except asyncio.CancelledError:
                raise
            except Exception:  # DynamoDB down: the next tick tries again (logged once)
                log.log(
                    logging.DEBUG if failing else logging.WARNING,
                    "stream lease tick failed",
                    exc_info=True,
                )
                failing = True
            with contextlib.suppress(TimeoutError):
                pause = random.uniform(0.75, 1.25) * self._tick
                await asyncio.wait_for(self._stopping.wait(), timeout=pause)

    async def _once(self) -> None:
        if time.monotonic() - self._discovered_at >= self._discovery_seconds:
            await self._discover()
        candidates: list[_Candidate] = []
        owners = {self.owner_name}
        now = time.monotonic()
        for table, shards in self._shards.items():
            arn = self._arns.get(table)
            if arn is None:
                continue
            wanted = {s.shard_id for s in shards} | {s.parent_id for s in shards if s.parent_id}
            views = await self._read_leases(table, sorted(wanted))
            for parent in forgettable(shards, views):
                key = lease_key(self._table_name(table), parent)
                await forget(self._dynamo, self.locks.table_name, key, views[parent])
            for shard_id, view in views.items():
                if not view.released and self._moving(table, shard_id, view, now):
                    owners.add(view.owner_name)
            plans = plan_shards(shards, views)
            for shard in shards:
                plan = plans[shard.shard_id]
                if plan.status is Status.READY:
                    candidates.append(
                        _Candidate(table, arn, shard, plan, views.get(shard.shard_id))
                    )
        share = math.ceil(len(candidates) / len(owners)) if candidates else 0
        if len(self._held) >= share:
            return
        free = [c for c in candidates if c.lease is None or c.lease.released]
        taken = [c for c in candidates if c.lease is not None and not c.lease.released]
        random.shuffle(free)
        random.shuffle(taken)
        for candidate in free + taken:
            key = lease_key(self._table_name(candidate.table), candidate.shard.shard_id)
            # A lease in our name that we do not hold (our reader stopped when its lease ran
            # out locally) is taken again like any other: after a whole lease unchanged.
            if key in self._held:
                continue
            if await self._take(key, candidate):
                return

    def _moving(self, table: Table, shard_id: str, view: LeaseView, now: float) -> bool:
        """Whether the lease's holder heart-beat within its lease duration, as far as this
        replica has watched it (a version first seen counts from when it was seen)."""
        key = (table, shard_id)
        seen = self._versions.get(key)
        if seen is None or seen[0] != view.record_version_number:
            self._versions[key] = (view.record_version_number, now)
            return True
        return now - seen[1] <= view.lease_seconds

    async def _discover(self) -> None:
        for table in self._tables:
            # DescribeTable each time: a stream disabled and enabled again has a new ARN.
            arn = await self._stream_arn(table)
            if arn is None:
                self._shards.pop(table, None)
                continue
            try:
                self._shards[table] = await describe_shards(self._api, arn)
            except Exception:  # the stream may have been replaced
                log.warning("DescribeStream of %s failed", arn, exc_info=True)
                self._arns.pop(table, None)
        self._discovered_at = time.monotonic()

    async def _stream_arn(self, table: Table) -> str | None:
        answer = await self._dynamo.call("describe_table", TableName=self._table_name(table))
        description = answer["Table"]
        arn = description.get("LatestStreamArn")
        enabled = description.get("StreamSpecification", {}).get("StreamEnabled", False)
        if not arn or not enabled:
            if table not in self.missing_streams:
                log.error(
                    "table %s has no stream enabled: its changes cannot be followed",
                    self._table_name(table),
                )
            self.missing_streams.add(table)
            return None
        self.missing_streams.discard(table)
        self._arns[table] = arn
        return str(arn)

    async def _read_leases(self, table: Table, shard_ids: list[str]) -> dict[str, LeaseView]:
        name = self._table_name(table)

        async def read(shard_id: str) -> tuple[str, LeaseView | None]:
            seen = await self.locks.read(lease_key(name, shard_id))
            if seen is None:
                return shard_id, None
            return shard_id, LeaseView(
                owner_name=seen.owner_name,
                released=seen.released,
                record_version_number=seen.record_version_number,
                lease_seconds=seen.lease_seconds,
                checkpoint=Checkpoint.decode(seen.data),
            )

        pairs = await asyncio.gather(*(read(shard_id) for shard_id in shard_ids))
        return {shard_id: view for shard_id, view in pairs if view is not None}

    # --- one lease ----------------------------------------------------------------------

    async def _take(self, key: str, candidate: _Candidate) -> bool:
        plan = candidate.plan
        initial = Checkpoint(since=time.time()) if plan.start is Start.LATEST else Checkpoint()
        try:
            lock = await self.locks.acquire(key, data=initial.encode(), delete_on_release=False)
        except LockNotGranted:
            return False
        # The item as taken is the truth: its data may be newer than what the plan read.
        checkpoint = Checkpoint.decode(lock.data) or initial
        if checkpoint.ended:
            await self.locks.release(lock)
            return False
        if checkpoint.sequence_number is not None:
            plan = Plan(Status.READY, Start.AFTER, checkpoint, plan.gap)
        elif candidate.lease is not None:
            # Taken after another owner: from the start, filtered by its `since`.
            plan = Plan(Status.READY, Start.TRIM_HORIZON, checkpoint, plan.gap)
        else:
            plan = Plan(Status.READY, plan.start, checkpoint, plan.gap)
        takeover = candidate.lease is not None and not candidate.lease.released
        table, shard_id = candidate.table, candidate.shard.shard_id
        log.info(
            "stream lease taken: %s %s%s (from %s)",
            self._table_name(table),
            shard_id,
            f", taken over from {candidate.lease.owner_name}"
            if takeover and candidate.lease
            else "",
            plan.start.value,
        )
        self._observer.lease_taken(table, shard_id, takeover=takeover)
        reader = ShardReader(
            api=self._api,
            feed=self._feed,
            locks=self.locks,
            lock=lock,
            table=table,
            stream_arn=candidate.stream_arn,
            shard_id=shard_id,
            plan=plan,
            pace=self._pace,
            observer=self._observer,
        )
        held = _Held(
            table,
            shard_id,
            lock,
            reader,
            asyncio.create_task(asyncio.sleep(0)),
            asyncio.create_task(self._heartbeat(lock), name=f"stream-lease-heartbeat:{key}"),
        )
        held.task = asyncio.create_task(self._read(key, held), name=f"stream-reader:{key}")
        self._held[key] = held
        return True

    async def _read(self, key: str, held: _Held) -> None:
        try:
            outcome = await held.reader.run()
        except ShardGone:
            outcome = Outcome.GONE
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug or DynamoDB down: let the lease go
            log.exception("stream reader of %s %s failed", held.table.value, held.shard_id)
            outcome = Outcome.GONE
        if self._held.get(key) is not held:
            return
        del self._held[key]
        held.heartbeat.cancel()
        if outcome is Outcome.LOST:
            log.warning("stream lease lost: %s %s", self._table_name(held.table), held.shard_id)
            self._observer.lease_dropped(held.table, held.shard_id)
            return
        if outcome is Outcome.GONE:
            self._arns.pop(held.table, None)
        # Children (or a new stream) to discover at the next tick.
        self._discovered_at = -math.inf
        await self._release(held, outcome.value)

    async def _heartbeat(self, lock: Lock) -> None:
        while True:
            await asyncio.sleep(self._heartbeat_seconds)
            try:
                await asyncio.shield(self.locks.send_heartbeat(lock))
            except LockLost:
                return
            except (DynamoDBUnavailable, DynamoDBFailure):
                log.warning("heartbeat of stream lease %s failed; retrying", lock.key)

    async def _release(self, held: _Held, why: str) -> None:
        try:
            released = await asyncio.wait_for(self.locks.release(held.lock), timeout=5.0)
        except (DynamoDBUnavailable, DynamoDBFailure, TimeoutError):
            log.warning("stream lease %s not released (%s)", held.lock.key, why, exc_info=True)
            released = False
        self._observer.lease_dropped(held.table, held.shard_id)
        if released:
            name = self._table_name(held.table)
            log.info("stream lease released: %s %s (%s)", name, held.shard_id, why)

    def _table_name(self, table: Table) -> str:
        return self._dynamo.tables.name(table)
