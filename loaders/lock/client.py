"""dynamolock's Client: acquire (with takeover of a dead owner's lock after a whole lease),
release, heartbeats (a held lock's lease renewed with a fresh record version every period,
conditioned on our owner name and current version, as dynamolock's heartbeat loop does), and
`hold`, which heartbeats a lock for the life of a block."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

from loaders.dynamodb import ConditionFailed, Dynamo, DynamoDBFailure
from loaders.errors import DynamoDBUnavailable
from loaders.lock.go_duration import SECOND, format_go_duration
from loaders.lock.item import (
    ATTR_DATA,
    ATTR_IS_RELEASED,
    ATTR_KEY,
    ATTR_LEASE_DURATION,
    ATTR_OWNER_NAME,
    ATTR_RECORD_VERSION_NUMBER,
    IS_RELEASED,
    NAMES,
    Seen,
    nanoseconds,
    random_name,
    record_version_number,
    seen_from_item,
)
from loaders.lock.state import Lock, LockLost, LockNotGranted, RealTimer, Timer

log = logging.getLogger("loaders.lock")

# The gateway's defaults (section 5 of the contract); Go's own are 20 s and 5 s.
DEFAULT_LEASE = timedelta(seconds=60)
DEFAULT_HEARTBEAT = timedelta(seconds=1)
_MAX_SIGHTINGS = 10_000


class LockClient:
    """dynamolock's Client over the process's `Dynamo` (so its calls are bounded and
    counted like every other) and the configured `locks` table.

    `owner_name` defaults to a random name, as Go's does; `timer` is its clock (and its
    heartbeats' sleep).
    """

    def __init__(
        self,
        dynamo: Dynamo,
        *,
        owner_name: str | None = None,
        lease: timedelta = DEFAULT_LEASE,
        heartbeat_period: timedelta = DEFAULT_HEARTBEAT,
        timer: Timer | None = None,
    ) -> None:
        if lease < 2 * heartbeat_period:
            raise ValueError("the heartbeat period must be at most half the lease duration")
        self._dynamo = dynamo
        self.table_name = dynamo.tables.locks
        self.owner_name = owner_name or random_name()
        self._lease_nanoseconds = nanoseconds(lease)
        self.lease_duration_text = format_go_duration(self._lease_nanoseconds)
        self._lease_seconds = self._lease_nanoseconds / SECOND
        self._heartbeat_seconds = heartbeat_period.total_seconds()
        self._timer: Timer = timer or RealTimer()
        # Versions of other owners' locks seen by a fail-fast acquire, so that a later
        # acquire can take over a lock whose owner died once it has stayed unchanged for a
        # whole lease, without any single request waiting that long.
        self._sightings: OrderedDict[str, Seen] = OrderedDict()

    def bound(self, dynamo: Dynamo) -> LockClient:
        """This client for one request: its calls through `dynamo` (the process's bound to
        the request), its owner name and sightings the process's."""
        bound = copy.copy(self)
        bound._dynamo = dynamo
        return bound

    # --- acquire ------------------------------------------------------------------------

    async def acquire(
        self,
        key: str,
        *,
        data: bytes | None = None,
        delete_on_release: bool = True,
    ) -> Lock:
        """Take the lock `key` without waiting (Go's FailIfLocked): `LockNotGranted` at once
        when another owner holds it, unless an earlier sighting of that same version is
        already a lease old (its owner died: taken over, docs/schema.md)."""
        existing = await self.read(key)
        item = self._new_item(key, existing, data)
        if existing is not None and not existing.released:
            return await self._take_over_seen_or_refuse(key, existing, item, delete_on_release)
        lock = await self._put(item, existing, delete_on_release, takeover=False)
        if lock is None:
            # The conditional put lost to another acquirer: it holds the lock now.
            raise LockNotGranted(key, "acquired by another owner meanwhile")
        return lock

    async def _take_over_seen_or_refuse(
        self, key: str, existing: Seen, item: dict[str, Any], delete_on_release: bool
    ) -> Lock:
        seen = self._sightings.get(key)
        if seen is not None and seen.record_version_number == existing.record_version_number:
            if seen.expired(self._timer.monotonic()):
                lock = await self._put(item, seen, delete_on_release, takeover=True)
                if lock is not None:
                    return lock
        else:
            self._remember(key, existing)
        raise LockNotGranted(key, "held by another owner")

    def _remember(self, key: str, seen: Seen) -> None:
        self._sightings[key] = seen
        self._sightings.move_to_end(key)
        while len(self._sightings) > _MAX_SIGHTINGS:
            self._sightings.popitem(last=False)

    def _new_item(self, key: str, existing: Seen | None, data: bytes | None) -> dict[str, Any]:
        # Like Go: keep the item's extra attributes and its data (`data` when it has none).
        new_data = existing.data if existing is not None and existing.data is not None else data
        item: dict[str, Any] = dict(existing.additional_attributes) if existing else {}
        item[ATTR_KEY] = {"S": key}
        item[ATTR_OWNER_NAME] = {"S": self.owner_name}
        item[ATTR_LEASE_DURATION] = {"S": self.lease_duration_text}
        item[ATTR_RECORD_VERSION_NUMBER] = {"S": record_version_number()}
        if new_data is not None:
            item[ATTR_DATA] = {"B": new_data}
        return item

    async def _put(
        self,
        item: dict[str, Any],
        existing: Seen | None,
        delete_on_release: bool,
        *,
        takeover: bool,
    ) -> Lock | None:
        """The conditional PutItem; None when its condition failed (someone else won)."""
        if takeover:
            assert existing is not None
            condition = "attribute_exists(#key) AND #rvn = :rvn"
            names = {"#key": ATTR_KEY, "#rvn": ATTR_RECORD_VERSION_NUMBER}
            values = {":rvn": {"S": existing.record_version_number}}
        else:
            condition = (
                "attribute_not_exists(#key) OR (attribute_exists(#key) AND #released = :released)"
            )
            names = {"#key": ATTR_KEY, "#released": ATTR_IS_RELEASED}
            values = {":released": {"S": IS_RELEASED}}
        # Err on the early side: the lease counts from before the write is sent.
        lookup_time = self._timer.monotonic()
        key = item[ATTR_KEY]["S"]
        try:
            await self._dynamo.call(
                "put_item",
                TableName=self.table_name,
                Item=item,
                ConditionExpression=condition,
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
            )
        except ConditionFailed:
            # A retried put (its first answer lost on the way back) fails its condition on
            # the item it wrote itself: that is ours, not another owner's win.
            if not await self._wrote(key, item[ATTR_RECORD_VERSION_NUMBER]["S"]):
                return None
        self._sightings.pop(key, None)
        data = item.get(ATTR_DATA)
        return Lock(
            key=key,
            owner_name=self.owner_name,
            record_version_number=item[ATTR_RECORD_VERSION_NUMBER]["S"],
            lease_seconds=self._lease_seconds,
            lookup_time=lookup_time,
            data=None if data is None else bytes(data["B"]),
            delete_on_release=delete_on_release,
        )

    async def _wrote(self, key: str, version: str) -> bool:
        """Whether the lock item is ours at `version`: record versions are fresh random
        strings, so only our own write can have put it there."""
        seen = await self.read(key)
        return (
            seen is not None
            and seen.owner_name == self.owner_name
            and seen.record_version_number == version
            and not seen.released
        )

    async def read(self, key: str) -> Seen | None:
        """The lock item under `key` as it is now (a consistent read), or None."""
        answer = await self._dynamo.call(
            "get_item", TableName=self.table_name, Key={ATTR_KEY: {"S": key}}, ConsistentRead=True
        )
        item = answer.get("Item")
        if item is None:
            return None
        # The reader errs on the side of not expiring: its count starts after the read.
        return seen_from_item(item, self._timer.monotonic())

    # --- release ------------------------------------------------------------------------

    async def release(self, lock: Lock) -> bool:
        """Release `lock`: True when the item was ours to release, False when it was not
        (already released, or taken over after our lease). Sent even when the request is
        past its deadline: a release cut short leaves the lock held for its whole lease."""
        if lock.owner_name != self.owner_name:
            raise LockLost(f"{lock.key}: owned by {lock.owner_name}, not {self.owner_name}")
        async with lock.mutex:
            if lock.released:
                return False
            lock.released = True
            keep = not lock.delete_on_release
            condition = "attribute_exists(#key) AND #rvn = :rvn AND #owner = :owner"
            names = {name: NAMES[name] for name in ("#key", "#rvn", "#owner")}
            values: dict[str, Any] = {
                ":rvn": {"S": lock.record_version_number},
                ":owner": {"S": lock.owner_name},
            }
            try:
                if keep:
                    names["#released"] = ATTR_IS_RELEASED
                    values[":released"] = {"S": IS_RELEASED}
                    await self._dynamo.past_deadline().call(
                        "update_item",
                        TableName=self.table_name,
                        Key={ATTR_KEY: {"S": lock.key}},
                        UpdateExpression="SET #released = :released",
                        ConditionExpression=condition,
                        ExpressionAttributeNames=names,
                        ExpressionAttributeValues=values,
                    )
                else:
                    await self._dynamo.past_deadline().call(
                        "delete_item",
                        TableName=self.table_name,
                        Key={ATTR_KEY: {"S": lock.key}},
                        ConditionExpression=condition,
                        ExpressionAttributeNames=names,
                        ExpressionAttributeValues=values,
                    )
            except ConditionFailed:
                lock.lost = True
                return False
            return True

    # --- heartbeats ---------------------------------------------------------------------

    def is_held(self, lock: Lock) -> bool:
        """Ours and within its lease on this process's clock."""
        return not (
            lock.released
            or lock.lost
            or self._timer.monotonic() - lock.lookup_time > lock.lease_seconds
        )

    def ensure_held(self, lock: Lock) -> None:
        if not self.is_held(lock):
            raise LockLost(f"{lock.key}: the lock is no longer held")

    async def send_heartbeat(self, lock: Lock, *, data: bytes | None = None) -> None:
        """Renew the lease with a new record version; `LockLost` when it is not ours.

        `data` replaces the item's data in the same conditional write, as Go's
        `SendHeartbeat(lock, ReplaceHeartbeatData(data))` does: a holder that lost the lock
        cannot overwrite the new holder's data."""
        async with lock.mutex:
            await self._send_heartbeat(lock, data)

    async def _send_heartbeat(self, lock: Lock, data: bytes | None = None) -> None:
        if not self.is_held(lock) or lock.owner_name != self.owner_name:
            lock.lost = lock.lost or not lock.released
            raise LockLost(f"{lock.key}: cannot heartbeat a lock that is not held")
        new_version = record_version_number()
        lookup_time = self._timer.monotonic()
        update = "SET #lease = :lease, #rvn = :new_rvn"
        names = {name: NAMES[name] for name in ("#key", "#lease", "#rvn", "#owner")}
        values: dict[str, Any] = {
            ":lease": {"S": self.lease_duration_text},
            ":new_rvn": {"S": new_version},
            ":rvn": {"S": lock.record_version_number},
            ":owner": {"S": lock.owner_name},
        }
        if data is not None:
            update += ", #data = :data"
            names["#data"] = NAMES["#data"]
            values[":data"] = {"B": data}
        try:
            await self._dynamo.call(
                "update_item",
                TableName=self.table_name,
                Key={ATTR_KEY: {"S": lock.key}},
                UpdateExpression=update,
                ConditionExpression="attribute_exists(#key) AND #rvn = :rvn AND #owner = :owner",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
            )
        except ConditionFailed as error:
            # As in `_put`: a retry of a heartbeat that landed finds its own new version.
            if not await self._wrote(lock.key, new_version):
                lock.lost = True
                raise LockLost(f"{lock.key}: taken over by another owner") from error
        lock.record_version_number = new_version
        lock.lookup_time = lookup_time
        if data is not None:
            lock.data = data
        lock.lease_seconds = self._lease_seconds

    async def _heartbeat_until_released(self, lock: Lock) -> None:
        while True:
            await self._timer.sleep(self._heartbeat_seconds)
            async with lock.mutex:
                if lock.released:
                    return
                try:
                    await self._send_heartbeat(lock)
                except LockLost:
                    log.warning("lock %s lost; heartbeats stop", lock.key)
                    return
                except (DynamoDBUnavailable, DynamoDBFailure):
                    # Like Go: log and try again on the next beat; the lease decides.
                    log.warning("heartbeat of lock %s failed; retrying", lock.key, exc_info=True)

    # --- the whole life of a lock -------------------------------------------------------

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[Lock]:
        """Acquire `key`, heartbeat it in a background task, and release it on the way out,
        whatever the block raised."""
        lock = await self.acquire(key)
        heartbeat = asyncio.create_task(
            self._heartbeat_until_released(lock), name=f"lock-heartbeat:{key}"
        )
        try:
            yield lock
        finally:
            try:
                # Shielded: a cancelled request still frees its lock for the next one.
                await asyncio.shield(self.release(lock))
            except (DynamoDBUnavailable, DynamoDBFailure):
                # The block's outcome stands; the lease frees the item for the next owner.
                log.warning("release of lock %s failed", key, exc_info=True)
            finally:
                heartbeat.cancel()
                # gather, not a suppressed await: a cancel of this block still ends it.
                await asyncio.gather(heartbeat, return_exceptions=True)
