"""When the items a request read expire: the earliest `ttl` among them, per partition."""

from __future__ import annotations

from decimal import Decimal

from loaders.entities import user_of
from loaders.table import Table

__all__ = ["Expiries"]


class Expiries:
    """The earliest `ttl` (epoch seconds) of the live items read, per partition: from then
    on, the same reads would answer differently by time alone (an expired item is absent).
    Kept by the loaders of subscriptions' re-reads, each read again at that instant; re-reads
    that share their loads (schema/live/shared_reads.py) each ask for their own user's."""

    __slots__ = ("_by_partition",)

    def __init__(self) -> None:
        self._by_partition: dict[tuple[Table, str], Decimal] = {}

    def note(self, ttl: object, table: Table, pk: str) -> None:
        if not isinstance(ttl, Decimal | int | str):
            return
        value = Decimal(ttl)
        known = self._by_partition.get((table, pk))
        if known is None or value < known:
            self._by_partition[(table, pk)] = value

    @property
    def earliest(self) -> Decimal | None:
        """The earliest of every item read."""
        return min(self._by_partition.values(), default=None)

    def earliest_of(self, user_id: str) -> Decimal | None:
        """The earliest of the items read of `user_id`'s partitions (and of any partition
        that names no user, which may be anyone's)."""
        return min(
            (
                ttl
                for (table, pk), ttl in self._by_partition.items()
                if user_of(table, pk) in (user_id, None)
            ),
            default=None,
        )
