"""Figures computed from a parsed query, remembered per parsed document.

The parser cache hands every request of a repeated query text the same `DocumentNode`,
so what depends only on the document (and a few request values, in the key) is computed
once per text. Entries are found by the document's identity, never by its value: a
graphql-core node hashes and compares by walking its whole tree, which is the cost
being saved. Each entry holds a weak reference to its document and is used only while
that very document is alive, so an id reused after the parser cache dropped a document
never answers for another one; the least recently used entry goes past `maxsize`.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")

#: Entries per memo: as many as the parser cache keeps texts, with room for a few
#: operation names or variable shapes per text.
DOCUMENT_MEMO_SIZE = 1024


class DocumentMemo(Generic[V]):
    """A bounded LRU of values per (parsed document or node, key)."""

    def __init__(self, maxsize: int = DOCUMENT_MEMO_SIZE) -> None:
        if maxsize < 1:
            raise ValueError("a DocumentMemo keeps at least one entry")
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[tuple[int, Hashable], tuple[weakref.ref[object], V]] = (
            OrderedDict()
        )

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, anchor: object, key: Hashable, compute: Callable[[], V]) -> V:
        """The value for `anchor` (a document or one of its nodes) and `key`, computed by
        `compute` the first time."""
        slot = (id(anchor), key)
        entry = self._entries.get(slot)
        if entry is not None and entry[0]() is anchor:
            self._entries.move_to_end(slot)
            self.hits += 1
            return entry[1]
        self.misses += 1
        value = compute()
        self._entries[slot] = (weakref.ref(anchor), value)
        self._entries.move_to_end(slot)
        while len(self._entries) > self.maxsize:
            self._entries.popitem(last=False)
        return value
