"""`CoherentCache`: one replica's cache of what its requests read from DynamoDB, kept exact
by the change feed it listens to (SPEC section 8).

- A change to a partition drops its entry as the feed delivers it.
- A read is stored only if no change to its partition (and no reset of the cache) came
  between the moment it was sent and the moment it is stored: `begin()` gives the read a
  version before it is sent, and every store checks it.
- The cache is used only while the feed is whole (`FeedWatch`); while it is not, every
  read goes to DynamoDB (a bypass, counted by reason), and the cache starts empty once the
  feed is whole again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from loaders.cache.entries import EntryStore, Partition, PartitionEntry
from loaders.cache.items import ROWS_PER_ITEM_SIZE, cached_item
from loaders.cache.sizes import items_size, key_size, measured_size
from loaders.codec import Item
from loaders.collections import Collected, Kept, Read
from loaders.keys import ItemKey, QueryKey
from loaders.live.changes import Change, ShardPosition
from loaders.live.feed_watch import FeedWatch
from loaders.tables import Table


class Miss:
    """The cache has nothing for a read (a point read's answer may be None: absent)."""

    __slots__ = ()


MISS: Final = Miss()

#: Partitions whose last change is remembered for reads in flight; past this many the
#: memory is reset, and the reads then in flight are not stored (they are few and short).
MAX_REMEMBERED_CHANGES = 100_000

#: What an empty entry costs, measured once (the entry, its two dicts, the partition key).
_ENTRY_OVERHEAD = measured_size(PartitionEntry()) + measured_size({}) * 2 + 64


class CoherentCache:
    """Per replica: the store, the versions, the feed's state and the counters.

    It is a `ChangeListener`: give it to the change feed's `listen()`."""

    def __init__(self, max_bytes: int, watch: FeedWatch) -> None:
        self.store = EntryStore(max_bytes)
        self.watch = watch
        self.hits = 0
        self.misses = 0
        self.bypasses: dict[str, int] = {}
        # Versions: `_seq` counts drops and resets; a partition's last drop, and the last
        # reset (`_floor`), are compared with the version a read began at.
        self._seq = 0
        self._floor = 0
        self._changed: dict[Partition, int] = {}
        self._feed_whole = False

    # --- the feed (ChangeListener) ----------------------------------------------------

    def changes(self, changes: Sequence[Change]) -> None:
        for change in changes:
            self.drop((change.table, change.partition_key))

    def position(self, position: ShardPosition) -> None:
        self.watch.position(position)

    def resync(self, reason: str) -> None:
        self.watch.reconnected()
        self.clear()

    def disconnected(self) -> None:
        self.watch.disconnected()
        self.clear()

    # --- exactness --------------------------------------------------------------------

    def drop(self, partition: Partition) -> None:
        """The partition changed: forget it, and refuse to store reads begun before now."""
        self._seq += 1
        if len(self._changed) >= MAX_REMEMBERED_CHANGES:
            self._changed.clear()
            self._floor = self._seq
        self._changed[partition] = self._seq
        self.store.drop(partition)

    def clear(self) -> None:
        """Forget everything, and refuse to store any read begun before now."""
        self._seq += 1
        self._floor = self._seq
        self._changed.clear()
        self.store.clear()

    def bypass_reason(self) -> str | None:
        """Why the cache may not be used now (None: it may). The cache empties whenever
        the feed stops or starts being whole."""
        reason = self.watch.bypass_reason()
        if (reason is None) != self._feed_whole:
            self._feed_whole = reason is None
            self.clear()
        return reason

    def begin(self) -> int | None:
        """The version a read starts at (None: the feed is not whole, do not store it)."""
        return self._seq if self.bypass_reason() is None else None

    def _storable(self, version: int | None, partition: Partition) -> bool:
        return (
            version is not None
            and partition[0] in self.watch.streamed_tables
            and version >= self._floor
            and self._changed.get(partition, -1) <= version
            and self.bypass_reason() is None
        )

    # --- lookups: `now_seconds` is the request's `now` in epoch seconds ---------------

    def usable(self) -> bool:
        """True while the feed is whole; otherwise the read is counted as a bypass."""
        reason = self.bypass_reason()
        if reason is None:
            return True
        self.bypasses[reason] = self.bypasses.get(reason, 0) + 1
        return False

    def _entry(self, partition: Partition, now_seconds: int) -> PartitionEntry | None:
        entry = self.store.get(partition)
        if entry is None or entry.usable_at(now_seconds):
            return entry
        if now_seconds >= entry.expires_at:
            # An item expired: the partition is read again (DynamoDB may hold others).
            self.store.drop(partition)
        return None

    def point(self, key: ItemKey, now_seconds: int) -> Read | Miss | None:
        entry = self._entry((key.table, key.pk), now_seconds)
        found: Read | Miss | None = MISS
        if entry is not None:
            if entry.whole is not None:
                found = entry.whole.point(key)
            elif key.sk in entry.points:
                found = entry.points[key.sk]
        self._count(found)
        return found

    def query(self, query: QueryKey, now_seconds: int) -> list[Read] | Miss:
        entry = self._entry((query.table, query.pk), now_seconds)
        found: list[Read] | Miss = MISS
        if entry is not None:
            if entry.whole is not None:
                found = entry.whole.query(query)
            else:
                found = entry.queries.get(query, MISS)
        self._count(found)
        return found

    def whole(self, table: Table, pk: str, now_seconds: int) -> Collected | None:
        """The partition's items when it is held whole (not counted: the reads they answer
        are, each a hit)."""
        entry = self._entry((table, pk), now_seconds)
        return entry.whole if entry is not None else None

    def _count(self, found: object) -> None:
        if found is MISS:
            self.misses += 1
        else:
            self.hits += 1

    # --- stores: each with the version its read began at ------------------------------

    def store_whole(
        self, version: int | None, table: Table, pk: str, now_seconds: int, items: list[Item]
    ) -> None:
        """The partition's live items (decoded), read whole."""
        partition = (table, pk)
        if not self._storable(version, partition):
            return
        items = [cached_item(item) for item in items]
        collected = Collected.of_items(table, items, shared=True)
        self.store.drop(partition)
        entry = self.store.entry(partition)
        entry.whole = collected
        entry.read_at(now_seconds, items)
        size = (
            _ENTRY_OVERHEAD
            + int(items_size(items) * (1 + ROWS_PER_ITEM_SIZE))
            + measured_size(collected.sort_keys)
        )
        self.store.grew(partition, entry, size)

    def store_points(
        self, version: int | None, now_seconds: int, found: Mapping[ItemKey, Item | None]
    ) -> None:
        """Point reads' answers (None: absent or expired at `now_seconds`)."""
        for key, item in found.items():
            partition = (key.table, key.pk)
            if not self._storable(version, partition):
                continue
            entry, added = self._writable(partition, now_seconds)
            if entry.whole is not None or key.sk in entry.points:
                continue
            kept = None if item is None else cached_item(item)
            entry.points[key.sk] = kept
            entry.read_at(now_seconds, (kept,))
            added += measured_size(key.sk)
            if kept is not None:
                added += int(measured_size(kept) * (1 + ROWS_PER_ITEM_SIZE))
            self.store.grew(partition, entry, added)

    def store_query(
        self, version: int | None, now_seconds: int, query: QueryKey, items: list[Item]
    ) -> None:
        partition = (query.table, query.pk)
        if not self._storable(version, partition):
            return
        entry, added = self._writable(partition, now_seconds)
        if entry.whole is not None or query in entry.queries:
            return
        kept = [cached_item(item) for item in items]
        entry.queries[query] = Kept(kept)
        entry.read_at(now_seconds, kept)
        added += key_size(query) + measured_size(kept)
        added += int(items_size(kept) * ROWS_PER_ITEM_SIZE)
        self.store.grew(partition, entry, added)

    def _writable(self, partition: Partition, now_seconds: int) -> tuple[PartitionEntry, int]:
        """The entry to add a piece to (a fresh one in place of an expired one), and the
        bytes a fresh entry costs."""
        existing = self.store.get(partition)
        if existing is not None and now_seconds >= existing.expires_at:
            self.store.drop(partition)
            existing = None
        if existing is not None:
            return existing, 0
        return self.store.entry(partition), _ENTRY_OVERHEAD
