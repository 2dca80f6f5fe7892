"""The cache's entries: per partition `(table, partition key)`, what the loaders read of it,
in a store bounded in bytes that evicts the least recently used partition first.

An entry holds decoded items, never answers: a whole partition (answers every point and
prefix read of it), the items of point reads (an item or "absent" per sort key), and the
items of Queries with a prefix or a limit (answer the same Query). Each piece was read at
some request's `now`; the entry remembers the latest such second (`as_of`) and the
earliest `ttl` among its items (`expires_at`), so that a reader can tell whether the items
are still exactly what DynamoDB would answer at its own `now`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from loaders.codec import Item
from loaders.collections import Collected, Kept
from loaders.keys import QueryKey
from loaders.tables import Table

Partition = tuple[Table, str]

_NEVER = Decimal("Infinity")


def earliest_ttl(items: Iterable[Item | None]) -> Decimal:
    """The smallest `ttl` among `items` (Infinity when none has one)."""
    earliest = _NEVER
    for item in items:
        if item is not None:
            ttl = item.get("ttl")
            if ttl is not None and Decimal(ttl) < earliest:
                earliest = Decimal(ttl)
    return earliest


@dataclass(slots=True)
class PartitionEntry:
    """What the cache holds of one partition."""

    #: The partition read whole, live items in sort-key order.
    whole: Collected | None = None
    #: Point reads by sort key (None for a table without one): the item, or None: absent.
    points: dict[str | None, Item | None] = field(default_factory=dict)
    #: Queries with a prefix or a limit, and the live items each answered.
    queries: dict[QueryKey, Kept] = field(default_factory=dict)
    #: Measured bytes of everything above (see `loaders.cache.sizes`).
    size: int = 0
    #: The latest `now` (epoch seconds) at which a piece was read.
    as_of: int = 0
    #: The earliest `ttl` among the items held: from then on the entry is out of date.
    expires_at: Decimal = _NEVER

    def read_at(self, now_seconds: int, items: Iterable[Item | None]) -> None:
        self.as_of = max(self.as_of, now_seconds)
        self.expires_at = min(self.expires_at, earliest_ttl(items))

    def usable_at(self, now_seconds: int) -> bool:
        """True when the items are exactly what a read at `now_seconds` would find: none
        has expired since, and none was read later (an item expired then may be live at
        an earlier `now`)."""
        return self.as_of <= now_seconds < self.expires_at


class EntryStore:
    """Entries by partition, least recently used first, within `max_bytes` in all."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self.evictions = 0
        self._entries: OrderedDict[Partition, PartitionEntry] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, partition: Partition) -> bool:
        return partition in self._entries

    def get(self, partition: Partition) -> PartitionEntry | None:
        """The partition's entry, now the most recently used."""
        entry = self._entries.get(partition)
        if entry is not None:
            self._entries.move_to_end(partition)
        return entry

    def entry(self, partition: Partition) -> PartitionEntry:
        """The partition's entry, created empty if need be, the most recently used."""
        entry = self.get(partition)
        if entry is None:
            entry = self._entries[partition] = PartitionEntry()
        return entry

    def grew(self, partition: Partition, entry: PartitionEntry, added: int) -> None:
        """`entry` holds `added` more bytes: evict the least recently used until within the
        bound (the entry itself last, when it alone is over it)."""
        entry.size += added
        self.bytes += added
        while self.bytes > self.max_bytes and self._entries:
            oldest, evicted = next(iter(self._entries.items()))
            del self._entries[oldest]
            self.bytes -= evicted.size
            self.evictions += 1
            if evicted is entry:
                break

    def drop(self, partition: Partition) -> None:
        entry = self._entries.pop(partition, None)
        if entry is not None:
            self.bytes -= entry.size

    def clear(self) -> None:
        self._entries.clear()
        self.bytes = 0
