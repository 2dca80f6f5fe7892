"""One shard, read under its lease: GetRecords at most 4 times a second, one `Change` per
record published (deduplicated within a batch), then the shard's position, and only then
the checkpoint, written with the lease's heartbeat so that a replica that lost the lease
cannot overwrite its new holder's (delivery is at least once)."""

from __future__ import annotations

import asyncio
import enum
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from loaders.backoff import Backoff
from loaders.dynamodb import DynamoDBFailure
from loaders.errors import DynamoDBUnavailable
from loaders.live.changes import Change, ChangeFeed, ShardPosition
from loaders.live.streams.api import (
    EXPIRED_ITERATOR,
    NOT_FOUND,
    THROTTLING,
    TRIMMED_DATA,
    StreamsApi,
    error_code,
)
from loaders.live.streams.checkpoint import Checkpoint
from loaders.live.streams.observer import StreamObserver
from loaders.live.streams.shards import Plan, Start
from loaders.lock import Lock, LockClient, LockLost
from loaders.tables import Table

log = logging.getLogger("gateway.streams")

#: Records a GetRecords may return (DynamoDB Streams' maximum).
RECORDS_LIMIT = 1000
#: A takeover after a LATEST start publishes records from this long before that start: the
#: ApproximateCreationDateTime is DynamoDB's clock, rounded down to the second, and the
#: start was this host's; a few changes published twice are harmless, a missed one is not.
SINCE_MARGIN_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Pace:
    """How often a shard is read. DynamoDB Streams throttles above ~5 GetRecords a second
    per shard, shared by every consumer: at most 4 here (one call per `min_interval`)."""

    min_interval: float = 0.25
    #: The pause after a call that returned less than a full page (the shard is caught up).
    idle_interval: float = 0.5
    backoff_base: float = 0.25
    backoff_cap: float = 5.0

    @property
    def backoff(self) -> Backoff:
        return Backoff(self.backoff_base, self.backoff_cap)


class Outcome(enum.Enum):
    ENDED = "ended"  # closed and read to its end; checkpoint says so
    LOST = "lost"  # the lease is no longer ours
    GONE = "gone"  # the stream or shard no longer exists


class ShardReader:
    def __init__(
        self,
        *,
        api: StreamsApi,
        feed: ChangeFeed,
        locks: LockClient,
        lock: Lock,
        table: Table,
        stream_arn: str,
        shard_id: str,
        plan: Plan,
        pace: Pace,
        observer: StreamObserver,
    ) -> None:
        self._api = api
        self._feed = feed
        self._locks = locks
        self.lock = lock
        self.table = table
        self._arn = stream_arn
        self.shard_id = shard_id
        self._plan = plan
        self._pace = pace
        self._observer = observer
        self._partition_key = table.key_names[0]
        checkpoint = plan.checkpoint or Checkpoint()
        self.checkpoint = checkpoint
        # Records older than this are not published (a takeover after a LATEST start).
        self._since: float | None = None
        if checkpoint.since is not None and plan.start is Start.TRIM_HORIZON:
            self._since = checkpoint.since - SINCE_MARGIN_SECONDS
        self._last_call = -1e9
        self._failures = 0

    async def run(self) -> Outcome:
        if self._plan.gap is not None:
            try:
                await self._feed.publish_resync(f"{self.table.value}: {self._plan.gap}")
            except Exception:  # the feed is cut off: its listeners resync once it is back
                log.warning("resync for %s not published", self.shard_id, exc_info=True)
        iterator: str | None = await self._open(self._plan.start)
        while True:
            if not self._locks.is_held(self.lock):
                return Outcome.LOST
            if iterator is None:
                return await self._ended()
            if not self._feed.connected:
                # Nothing can be published: read nothing (the checkpoint stays) until the
                # feed is back; an iterator that expires meanwhile is opened again.
                await asyncio.sleep(self._pace.idle_interval)
                continue
            await self._wait_turn()
            called_at = time.time()
            try:
                answer = await self._api.get_records(ShardIterator=iterator, Limit=RECORDS_LIMIT)
            except Exception as error:  # each failure is classified
                iterator = await self._after_failure(error, iterator)
                continue
            records: list[dict[str, Any]] = answer.get("Records", [])
            try:
                await self._publish(records, called_at)
                self._failures = 0
            except LockLost:
                return Outcome.LOST
            except Exception:  # the feed failed: read again from the checkpoint
                log.warning(
                    "publishing %s %s failed; reading again from its checkpoint",
                    self.table.value,
                    self.shard_id,
                    exc_info=True,
                )
                await self._backoff()
                iterator = await self._reopen()
                continue
            iterator = answer.get("NextShardIterator")
            if iterator is not None and len(records) < RECORDS_LIMIT:
                await asyncio.sleep(self._pace.idle_interval)

    # --- one batch ----------------------------------------------------------------------

    async def _publish(self, records: Sequence[dict[str, Any]], called_at: float) -> None:
        changes: dict[Change, None] = {}
        newest: float | None = None
        for record in records:
            stream_record = record.get("dynamodb", {})
            created = _epoch(stream_record.get("ApproximateCreationDateTime"))
            if created is not None:
                newest = created if newest is None else max(newest, created)
            if self._since is not None and created is not None:
                if created < self._since:
                    continue
                self._since = None  # past the first start: publish everything from here
            key = stream_record.get("Keys", {}).get(self._partition_key, {}).get("S")
            if isinstance(key, str):
                changes[Change(self.table, key)] = None
        if records:
            self._observer.records_read(self.table, self.shard_id, len(records))
        if changes:
            await self._feed.publish(list(changes))
        # A short page means the shard is caught up as of the call; a full one, only as far
        # as its newest record.
        current = called_at if len(records) < RECORDS_LIMIT or newest is None else newest
        position = ShardPosition(self.table, self.shard_id, current)
        await self._feed.publish_position(position)
        self._observer.position(position)
        if records:
            sequence = records[-1].get("dynamodb", {}).get("SequenceNumber")
            if isinstance(sequence, str):
                await self._write(Checkpoint(sequence_number=sequence))

    async def _write(self, checkpoint: Checkpoint) -> None:
        """Write the checkpoint with a heartbeat conditioned on our owner and version.
        DynamoDB unavailable: the next batch writes a later one (at least once)."""
        try:
            # Shielded: a write cancelled on its way (the replica stopping) still lands and
            # updates the lock's version, so that the release after it is not refused.
            await asyncio.shield(self._locks.send_heartbeat(self.lock, data=checkpoint.encode()))
        except (DynamoDBUnavailable, DynamoDBFailure):
            log.warning("checkpoint of %s %s not written", self.table.value, self.shard_id)
            return
        self.checkpoint = checkpoint

    async def _ended(self) -> Outcome:
        checkpoint = Checkpoint(sequence_number=self.checkpoint.sequence_number, ended=True)
        try:
            await asyncio.shield(self._locks.send_heartbeat(self.lock, data=checkpoint.encode()))
        except LockLost:
            return Outcome.LOST
        self.checkpoint = checkpoint
        log.info("shard %s of %s read to its end", self.shard_id, self.table.value)
        return Outcome.ENDED

    # --- iterators and failures ---------------------------------------------------------

    async def _open(self, start: Start, sequence: str | None = None) -> str | None:
        for _ in range(1000):
            params: dict[str, Any] = {
                "StreamArn": self._arn,
                "ShardId": self.shard_id,
                "ShardIteratorType": start.value,
            }
            if start is Start.AFTER:
                params["SequenceNumber"] = sequence or self.checkpoint.sequence_number
            try:
                answer = await self._api.get_shard_iterator(**params)
            except Exception as error:
                code = error_code(error)
                if code == TRIMMED_DATA and start is Start.AFTER:
                    await self._trimmed()
                    start = Start.TRIM_HORIZON
                    continue
                if code == NOT_FOUND:
                    raise ShardGone(self.shard_id) from error
                log.warning("GetShardIterator %s failed: %r", self.shard_id, error)
                await self._backoff()
                continue
            iterator: str | None = answer.get("ShardIterator")
            return iterator
        raise ShardGone(self.shard_id)

    async def _reopen(self) -> str | None:
        """A new iterator just after the checkpoint (or where reading began)."""
        if self.checkpoint.sequence_number is not None:
            return await self._open(Start.AFTER)
        start = self._plan.start if self._plan.start is not Start.AFTER else Start.TRIM_HORIZON
        if start is Start.LATEST:
            # Nothing read yet: from the start, publishing only what came after ours.
            start = Start.TRIM_HORIZON
            if self._since is None:
                self._since = (self.checkpoint.since or time.time()) - SINCE_MARGIN_SECONDS
        return await self._open(start)

    async def _after_failure(self, error: Exception, iterator: str) -> str | None:
        code = error_code(error)
        if code == EXPIRED_ITERATOR:
            log.info("iterator of %s %s expired; reopening", self.table.value, self.shard_id)
            return await self._reopen()
        if code == TRIMMED_DATA:
            await self._trimmed()
            return await self._open(Start.TRIM_HORIZON)
        if code == NOT_FOUND:
            raise ShardGone(self.shard_id) from error
        if code in THROTTLING:
            log.info("GetRecords on %s throttled (%s); backing off", self.shard_id, code)
        else:
            log.warning("GetRecords on %s failed: %r", self.shard_id, error)
        await self._backoff()
        return iterator

    async def _trimmed(self) -> None:
        """The records after the checkpoint are gone: read from the oldest kept, and have
        every replica's listeners read afresh what they derived (resync)."""
        log.warning(
            "%s %s: records after the checkpoint were trimmed; resuming at TRIM_HORIZON",
            self.table.value,
            self.shard_id,
        )
        self._since = None
        while True:
            try:
                await self._feed.publish_resync(
                    f"{self.table.value}: stream records of shard {self.shard_id} were trimmed"
                )
                return
            except Exception:  # the feed is down; it resyncs when back
                log.warning("resync after trimmed data not published", exc_info=True)
                await self._backoff()
                if not self._locks.is_held(self.lock):
                    return

    async def _wait_turn(self) -> None:
        loop = asyncio.get_running_loop()
        wait = self._last_call + self._pace.min_interval - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        self._last_call = loop.time()

    async def _backoff(self) -> None:
        self._failures += 1
        pause = self._pace.backoff.pause(self._failures - 1)
        await asyncio.sleep(pause)


class ShardGone(Exception):
    """The stream or the shard no longer exists."""


def _epoch(value: object) -> float | None:
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, int | float):
        return float(value)
    return None
