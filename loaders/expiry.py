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

    __slots__ = ("_by_partition", "_by_user")

    def __init__(self) -> None:
        self._by_partition: dict[tuple[Table, str], Decimal] = {}
        # Per user (None: a partition that names none), found once for all the re-reads
        # that ask, after their loads; a later note finds it again.
        self._by_user: dict[str | None, Decimal] | None = None

    def note(self, ttl: object, table: Table, pk: str) -> None:
        if not isinstance(ttl, Decimal | int | str):
            return
        value = ttl if type(ttl) is Decimal else Decimal(ttl)
        known = self._by_partition.get((table, pk))
        if known is None or value < known:
            self._by_partition[(table, pk)] = value
            self._by_user = None

    def earliest_of(self, user_id: str) -> Decimal | None:
        """The earliest of the items read of `user_id`'s partitions (and of any partition
        that names no user, which may be anyone's)."""
        by_user = self._by_user
        if by_user is None:
            by_user = self._by_user = {}
            for (table, pk), ttl in self._by_partition.items():
                user = user_of(table, pk)
                known = by_user.get(user)
                if known is None or ttl < known:
                    by_user[user] = ttl
        return min(
            (ttl for ttl in (by_user.get(user_id), by_user.get(None)) if ttl is not None),
            default=None,
        )
