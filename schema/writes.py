"""The request's writes (SPEC section 9): each mutation field stages its items, then they
commit together, all or nothing.

Unkeyed, a field's writes commit as the field ends (one PutItem for one item, else one
transaction), so that a mutation is never half written. Keyed (`keyed=True`, an
`Idempotency-Key`), every field's writes wait for the operation's answer, and commit in one
transaction with the key's record (`gateway/idempotency`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from loaders.cache import WritePublisher
from loaders.dynamodb import Dynamo
from loaders.errors import DynamoDBUnavailable
from loaders.transactions import Staged, WriteConflict, Writes, commit

__all__ = ["MAX_ATTEMPTS", "T", "WriteSession"]

T = TypeVar("T")

#: Runs of a field (or of a keyed operation) whose commit found the table changed since
#: it decided; each run decides afresh, so a run lost again and again means heavy contention.
MAX_ATTEMPTS = 3


class WriteSession:
    """One operation's writes. `attempt` counts the runs of the operation before this one
    that lost to another writer (a keyed operation runs again whole)."""

    def __init__(
        self,
        dynamo: Dynamo,
        changes: WritePublisher,
        *,
        keyed: bool = False,
        attempt: int = 0,
    ) -> None:
        self.dynamo = dynamo
        self.changes = changes
        self.keyed = keyed
        self.attempt = attempt
        #: Keyed: each field's staged writes, by the field's response key.
        self.staged: dict[str, Writes] = {}
        #: Why the operation's answer may not be recorded (a LOCKED evaluation), if it may not.
        self.unrecordable: str | None = None

    async def run(self, field: str, body: Callable[[Writes], Awaitable[T]]) -> T:
        """Run one mutation field's `body`, which stages its writes; commit them now
        (unkeyed) or keep them for the operation's transaction (keyed)."""
        attempt = self.attempt
        while True:
            writes = Writes(attempt)
            try:
                result = await body(writes)
            except BaseException:
                await writes.holding.aclose()
                raise
            if self.keyed:
                self.staged[field] = writes
                return result
            try:
                await commit(self.dynamo, writes.staged)
            except WriteConflict as conflict:
                attempt += 1
                if attempt >= MAX_ATTEMPTS:
                    raise DynamoDBUnavailable(cause=conflict) from conflict
                continue
            finally:
                await writes.holding.aclose()
                # Made or failed (a write may apply though its answer was lost): the cache
                # drops the partitions and the change feed tells every replica.
                await self.changes.wrote(writes.partitions())
            return result

    async def commit_with(self, record: Staged, *, token: str) -> dict[str, Any] | None:
        """Keyed: every field's writes and the key's record, in one transaction; then what
        the fields held is let go and their partitions are published, committed or not."""
        fields = self.staged.values()
        try:
            entries = [entry for writes in fields for entry in writes.staged]
            return await commit(self.dynamo, [*entries, record], token=token)
        finally:
            await self.close()
            await self.changes.wrote([p for writes in fields for p in writes.partitions()])

    async def close(self) -> None:
        """Let go of what the fields held (their locks), writing nothing more."""
        for writes in self.staged.values():
            await writes.holding.aclose()
