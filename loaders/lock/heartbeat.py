"""Heartbeats: a held lock's lease renewed with a fresh record version every period, as
dynamolock's heartbeat loop does, conditioned on our owner name and current version."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import Any

from loaders.dynamodb import ConditionFailed, Dynamo, DynamoDBFailure
from loaders.errors import DynamoDBUnavailable
from loaders.lock.item import (
    ATTR_KEY,
    NAMES,
    record_version_number,
)
from loaders.lock.state import Lock, LockLost, Timer

log = logging.getLogger("loaders.lock")


class Heartbeats(ABC):
    """The heartbeat half of `LockClient`: what keeps a held lock ours."""

    _dynamo: Dynamo
    table_name: str
    owner_name: str
    lease_duration_text: str
    _lease_seconds: float
    _heartbeat_seconds: float
    _timer: Timer

    @abstractmethod
    async def _wrote(self, key: str, version: str) -> bool:
        """Whether the lock item is ours at `version`."""

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
