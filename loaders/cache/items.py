"""`CachedItem`: an item as the cache holds it, with the rows built from it.

A row is a pure function of its item (`from_item`), so a warm read need not build it
again: `row_of` keeps each row beside its item, for as long as the cache holds the item
(they go together), as it does beside an `Undecoded` item for the request. The read rules
still run on every read, on the row: the cache keeps rows, never answers. A Query's items
keep their rows as one list too (`kept_rows`), which a rule filters.

A kept row's part of an answer is kept too: the JSON a compiled operation's completion wrote
for it (`schema.execution.generated`), in the row's `PART_SLOT`, with that completion's
mark, so that it gives the part back for the row without writing it again. A row is
immutable and its completion a function of it alone (plain fields, no arguments, no
context), so the part is what writing it again would give; the read rules still pick the
rows on every read. Only a row of a cached item has the slot set (`NO_PART` first): an
uncached request's rows end with it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from loaders.codec import Item, from_wire
from loaders.collections import Kept, Read, Undecoded
from loaders.record import Record

R = TypeVar("R")

#: What the cache charges for the rows an item may get and the parts of answers they may
#: keep, as a share of the item's own measured size: rows share the item's strings, and took
#: 0.26 of it on the test's realistic users, with the largest parts (every field) 0.41
#: (`tests/loaders/cache/test_sizes.py` holds them within this share).
ROWS_PER_ITEM_SIZE = 0.6
#: `Record`'s slot for a kept row's part of an answer: `(mark, part)`, the mark the writing
#: completion's own number; `NO_PART` while no completion has written one.
PART_SLOT = "_part"
NO_PART = (None, None)


class CachedItem(dict[str, Any]):
    __slots__ = ("rows",)

    rows: dict[object, Any]


def cached_item(item: Mapping[str, Any]) -> CachedItem:
    kept = CachedItem(item)
    kept.rows = {}
    return kept


def row_of(build: Callable[[Item], R], item: Read) -> R:
    """`build(item)`, built once per cached or undecoded item."""
    row: R | None
    if type(item) is CachedItem:  # a warm read's, the commonest
        row = item.rows.get(build)
        if row is None:
            row = item.rows[build] = build(item)
            if isinstance(row, Record):
                object.__setattr__(row, PART_SLOT, NO_PART)
        return row
    if isinstance(item, Undecoded):
        row = item.rows.get(build)
        if row is None:
            row = item.rows[build] = build(from_wire(item.wire))
        return row
    return build(item)


def kept_rows(build: Callable[[Item], R], items: list[Read]) -> list[R] | None:
    """The rows of a warm read's items, built once and kept beside them (so a rule may filter
    rows rather than attributes); None for any other read's items."""
    if type(items) is not Kept:
        return None
    rows = items.rows.get(build)
    if rows is None:
        rows = items.rows[build] = [row_of(build, item) for item in items]
    return rows
