"""A key to read or write (`ItemKey`) and a Query (`QueryKey`). Each entity's key formats
are spelled once, in its declaration (`loaders.entities`), which builds these."""

from __future__ import annotations

from typing import NamedTuple

from loaders.table import Table

__all__ = ["MAX_PARTITION_KEY_BYTES", "MAX_SORT_KEY_BYTES", "ItemKey", "QueryKey"]

#: DynamoDB's key limits: over either, it refuses the whole call that carries the key.
MAX_PARTITION_KEY_BYTES = 2048
MAX_SORT_KEY_BYTES = 1024


class ItemKey(NamedTuple):
    """The primary key of one item: a point read or a write. A tuple, as `Partition` is:
    every read builds and hashes one, and a tuple is built in two thirds of a frozen
    dataclass's time and hashed in C."""

    table: Table
    pk: str
    sk: str | None = None

    def within_limits(self) -> bool:
        """Whether DynamoDB would take this key (its UTF-8 bytes within the limits)."""
        return _fits(self.pk, MAX_PARTITION_KEY_BYTES) and (
            self.sk is None or _fits(self.sk, MAX_SORT_KEY_BYTES)
        )

    def attributes(self) -> dict[str, dict[str, str]]:
        """The key as DynamoDB's wire form: {"PK": {"S": ...}, "SK": {"S": ...}}."""
        partition, sort = self.table.key_names
        key = {partition: {"S": self.pk}}
        if sort is not None:
            if self.sk is None:
                raise ValueError(f"{self.table.name} keys need a sort key")
            key[sort] = {"S": self.sk}
        return key


class QueryKey(NamedTuple):
    """One Query: a partition, a sort-key prefix, an order and a limit of live items.

    `whole`: a collected partition's one Query (`QueryLoader.collect`), whose items stay in
    wire form, each decoded only when a rule builds its row (with the coherent cache, all
    of them at once, which it keeps); never equal to the Query of the same partition that
    is not, so the two are never answered from each other's entry."""

    table: Table
    pk: str
    sk_prefix: str = ""
    newest_first: bool = False
    limit: int | None = None
    whole: bool = False


def _fits(text: str, limit: int) -> bool:
    # A character is at most 4 bytes: encode only text that could be over.
    return len(text) * 4 <= limit or len(text.encode("utf-8", "surrogatepass")) <= limit
