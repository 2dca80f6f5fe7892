"""The cache's measured bytes against the memory its entries really take (tracemalloc)."""

from __future__ import annotations

import gc
import json
import tracemalloc
from collections import defaultdict

from bench.seed import user_items
from gateway.settings import Settings
from loaders.cache import CoherentCache, FeedWatch
from loaders.changes import ShardPosition
from loaders.codec import Item, from_wire, to_wire
from loaders.tables import Table
from tests.conftest import NOW

USERS = 20


def responses() -> list[tuple[Table, str, str]]:
    """Each partition of realistic users as a Query's response text (as botocore gets it)."""
    partitions: dict[tuple[Table, str], list[Item]] = defaultdict(list)
    for n in range(USERS):
        for table, found in user_items(f"user-{n:03d}", NOW, Settings()):
            pk = found["PK"] if "PK" in found else found["user_id"]
            partitions[(table, pk)].append(found)
    return [
        (table, pk, json.dumps({"Items": [to_wire(i) for i in found]}, default=str))
        for (table, pk), found in partitions.items()
        if table.key_names[1] is not None
    ]


def test_the_measured_bytes_bound_what_the_entries_take() -> None:
    texts = responses()
    wall = 1_000_000.0
    cache = CoherentCache(1 << 30, FeedWatch((Table.PAVE,), 2, lambda: wall))
    cache.position(ShardPosition(Table.PAVE, "shard-1", wall))
    now_seconds = int(NOW.timestamp())
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for table, pk, text in texts:
            # Decoded as the gateway decodes a response; the text and wire form are dropped.
            items = [from_wire(wire) for wire in json.loads(text)["Items"]]
            cache.store_whole(cache.begin(), table, pk, now_seconds, items)
            del items
        gc.collect()
        taken = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    measured = cache.store.bytes
    print(f"measured {measured} bytes, traced {taken} bytes ({measured / taken:.2f}x)")
    assert taken <= measured <= 2 * taken
