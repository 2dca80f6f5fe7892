"""The cache's structure on its own: entries, versions, the feed's state, the bound."""

from __future__ import annotations

from decimal import Decimal

import pytest

from loaders.cache import MISS, CacheReader, CoherentCache, Miss
from loaders.cache.items import kept_rows, row_of
from loaders.collections import Collected
from loaders.keys import ItemKey, QueryKey
from loaders.live.changes import Change, ShardPosition
from loaders.live.feed_watch import DISCONNECTED, LAGGING, NO_POSITION, FeedWatch
from loaders.tables import Table
from tests.conftest import NOW

NOW_S = int(NOW.timestamp())
PK = "USERS#u-1"
TABLES = (Table.PAVE,)


class Wall:
    """The stream readers' clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def item(sk: str, ttl: int | None = None, **more: object) -> dict[str, object]:
    found: dict[str, object] = {"PK": PK, "SK": sk, **more}
    if ttl is not None:
        found["ttl"] = Decimal(ttl)
    return found


def whole_cache(max_bytes: int = 1 << 20) -> tuple[CoherentCache, Wall]:
    wall = Wall()
    cache = CoherentCache(max_bytes, FeedWatch(TABLES, 2.0, wall))
    cache.position(ShardPosition(Table.PAVE, "shard-1", wall.now))
    return cache, wall


def test_a_whole_partition_answers_points_prefixes_and_limits() -> None:
    cache, _ = whole_cache()
    items = [item("A#1"), item("A#2"), item("B#1")]
    cache.store_whole(cache.begin(), Table.PAVE, PK, NOW_S, items)
    assert cache.point(ItemKey(Table.PAVE, PK, "A#2"), NOW_S) == items[1]
    # Absent from a partition read whole: absent.
    assert cache.point(ItemKey(Table.PAVE, PK, "C#1"), NOW_S) is None
    newest_a = QueryKey(Table.PAVE, PK, "A#", newest_first=True, limit=1)
    assert cache.query(newest_a, NOW_S) == [items[1]]
    assert cache.query(QueryKey(Table.PAVE, PK, "B#"), NOW_S) == [items[2]]
    assert (cache.hits, cache.misses) == (4, 0)


def test_points_and_queries_answer_only_themselves() -> None:
    cache, _ = whole_cache()
    version = cache.begin()
    present, absent = ItemKey(Table.PAVE, PK, "A#1"), ItemKey(Table.PAVE, PK, "A#9")
    cache.store_points(version, NOW_S, {present: item("A#1"), absent: None})
    limited = QueryKey(Table.PAVE, PK, "B#", limit=2)
    cache.store_query(version, NOW_S, limited, [item("B#1")])
    assert cache.point(present, NOW_S) == item("A#1")
    assert cache.point(absent, NOW_S) is None
    assert cache.point(ItemKey(Table.PAVE, PK, "A#2"), NOW_S) is MISS
    assert cache.query(limited, NOW_S) == [item("B#1")]
    assert cache.query(QueryKey(Table.PAVE, PK, "B#", limit=3), NOW_S) is MISS
    assert (cache.hits, cache.misses) == (3, 2)


def test_a_change_drops_the_partition_and_a_read_begun_before_it_is_not_stored() -> None:
    cache, _ = whole_cache()
    key = ItemKey(Table.PAVE, PK, "A#1")
    cache.store_points(cache.begin(), NOW_S, {key: item("A#1")})
    racing = cache.begin()
    cache.changes([Change(Table.PAVE, PK)])
    assert cache.point(key, NOW_S) is MISS
    cache.store_points(racing, NOW_S, {key: item("A#1", stale=True)})
    assert cache.point(key, NOW_S) is MISS
    # Another partition's read, begun at the same time, is stored.
    other = ItemKey(Table.PAVE, "USERS#u-2", "A#1")
    cache.store_points(racing, NOW_S, {other: None})
    assert cache.point(other, NOW_S) is None
    # A read begun after the change is stored.
    cache.store_points(cache.begin(), NOW_S, {key: item("A#1")})
    assert cache.point(key, NOW_S) == item("A#1")


def test_an_entry_is_out_of_date_from_its_first_ttl_and_before_its_read() -> None:
    cache, _ = whole_cache()
    cache.store_whole(
        cache.begin(), Table.PAVE, PK, NOW_S, [item("A#1", ttl=NOW_S + 10), item("A#2")]
    )
    key = ItemKey(Table.PAVE, PK, "A#2")
    assert cache.point(key, NOW_S + 9) == item("A#2")
    # A request whose `now` is before the read's could see an item the read found expired.
    assert cache.point(key, NOW_S - 1) is MISS
    assert len(cache.store) == 1
    # At the first item's ttl the whole entry goes: DynamoDB is asked again.
    assert cache.point(key, NOW_S + 10) is MISS
    assert len(cache.store) == 0


@pytest.mark.parametrize("reason", [LAGGING, DISCONNECTED, NO_POSITION])
def test_the_cache_is_bypassed_unless_the_feed_is_whole_and_starts_empty(reason: str) -> None:
    cache, wall = whole_cache()
    key = ItemKey(Table.PAVE, PK, "A#1")
    reader = CacheReader(cache, NOW)
    cache.store_points(cache.begin(), NOW_S, {key: item("A#1")})
    assert reader.point(key) == item("A#1")
    in_flight = cache.begin()
    if reason == LAGGING:
        wall.now += 2.5
    elif reason == DISCONNECTED:
        cache.disconnected()
    else:
        cache = CoherentCache(1 << 20, FeedWatch((Table.PAVE, Table.INCOME_DETECTION), 2, wall))
        cache.position(ShardPosition(Table.PAVE, "shard-1", wall.now))
        reader = CacheReader(cache, NOW)
    assert reader.point(key) is MISS
    assert cache.bypasses == {reason: 1}
    assert cache.begin() is None
    cache.store_points(in_flight, NOW_S, {key: item("A#1")})
    assert len(cache.store) == 0
    # Whole again: empty, then caching.
    if reason == LAGGING:
        cache.position(ShardPosition(Table.PAVE, "shard-1", wall.now))
    elif reason == DISCONNECTED:
        cache.resync("reconnected")
    else:
        cache.position(ShardPosition(Table.INCOME_DETECTION, "shard-9", wall.now))
    assert reader.point(key) is MISS
    cache.store_points(cache.begin(), NOW_S, {key: item("A#1")})
    assert reader.point(key) == item("A#1")
    assert cache.bypasses == {reason: 1}


def test_a_position_lagging_on_one_shard_of_several_bypasses() -> None:
    cache, wall = whole_cache()
    cache.position(ShardPosition(Table.PAVE, "shard-2", wall.now))
    assert cache.usable()
    wall.now += 3
    cache.position(ShardPosition(Table.PAVE, "shard-1", wall.now))
    assert not cache.usable()
    # A late message never moves a shard back.
    cache.position(ShardPosition(Table.PAVE, "shard-2", wall.now - 10))
    cache.position(ShardPosition(Table.PAVE, "shard-2", wall.now))
    assert cache.usable()
    assert cache.watch.lag_seconds() == 0


def test_the_bound_evicts_the_least_recently_used() -> None:
    cache, _ = whole_cache()
    sizes: list[int] = []
    for n in range(3):
        partition_items = [{"PK": f"USERS#{n}", "SK": f"A#{i}", "x": "y" * 50} for i in range(5)]
        cache.store_whole(cache.begin(), Table.PAVE, f"USERS#{n}", NOW_S, partition_items)
        sizes.append(cache.store.bytes - sum(sizes))
    assert cache.store.evictions == 0
    cache.store.max_bytes = sizes[0] + sizes[1] + sizes[2] - 1
    # USERS#0 is used: USERS#1 is now the least recently used.
    assert cache.point(ItemKey(Table.PAVE, "USERS#0", "A#1"), NOW_S) is not MISS
    cache.store_whole(cache.begin(), Table.PAVE, "USERS#3", NOW_S, [])
    assert cache.store.evictions == 1
    assert (Table.PAVE, "USERS#1") not in cache.store
    assert (Table.PAVE, "USERS#0") in cache.store
    assert cache.store.bytes <= cache.store.max_bytes


def test_a_consistent_reader_never_answers_from_the_cache_but_refreshes_it() -> None:
    cache, _ = whole_cache()
    key = ItemKey(Table.PAVE, PK, "A#1")
    cache.store_points(cache.begin(), NOW_S, {key: item("A#1")})
    consistent = CacheReader(cache, NOW, consistent=True)
    assert consistent.point(key) is MISS
    cache.drop((Table.PAVE, PK))
    consistent.store_points(consistent.begin(), {key: item("A#1", fresh=True)})
    assert CacheReader(cache, NOW).point(key) == item("A#1", fresh=True)


def test_a_cached_items_row_is_built_once_and_an_uncached_ones_each_time() -> None:
    cache, _ = whole_cache()
    key = ItemKey(Table.PAVE, PK, "A#1")
    cache.store_points(cache.begin(), NOW_S, {key: item("A#1")})
    built: list[object] = []

    def build(found: dict[str, object]) -> tuple[object, ...]:
        built.append(found)
        return tuple(found.items())

    cached = cache.point(key, NOW_S)
    again = cache.point(key, NOW_S)
    assert isinstance(cached, dict)
    assert isinstance(again, dict)
    assert row_of(build, cached) is row_of(build, again)
    assert len(built) == 1
    plain = item("A#1")
    assert row_of(build, plain) == row_of(build, plain)
    assert len(built) == 3


@pytest.mark.parametrize("whole", [True, False], ids=["partition read whole", "one Query"])
def test_a_cached_querys_rows_are_built_once_and_kept_beside_its_items(whole: bool) -> None:
    cache, _ = whole_cache()
    query = QueryKey(Table.PAVE, PK, "A#")
    if whole:
        items = [item("A#1"), item("A#2"), item("B#1")]
        cache.store_whole(cache.begin(), Table.PAVE, PK, NOW_S, items)
    else:
        cache.store_query(cache.begin(), NOW_S, query, [item("A#1"), item("A#2")])
    built: list[object] = []

    def build(found: dict[str, object]) -> object:
        built.append(found)
        return found["SK"]

    answer = cache.query(query, NOW_S)
    assert not isinstance(answer, Miss)
    rows = kept_rows(build, answer)
    assert rows == ["A#1", "A#2"]
    later = cache.query(query, NOW_S)
    assert not isinstance(later, Miss)
    assert kept_rows(build, later) is rows
    assert len(built) == 2
    if whole:  # a point read of the partition finds the row kept
        point = cache.point(ItemKey(Table.PAVE, PK, "A#1"), NOW_S)
        assert isinstance(point, dict)
        assert row_of(build, point) == "A#1"
        assert len(built) == 2


def test_a_requests_own_reads_keep_no_rows() -> None:
    wire = [{"PK": {"S": PK}, "SK": {"S": "A#1"}}]
    prefix = QueryKey(Table.PAVE, PK, "A#")
    assert kept_rows(dict, Collected(Table.PAVE, wire).query(prefix)) is None
    # Read with the cache on: decoded, but the request's own (the cache keeps a copy).
    assert kept_rows(dict, Collected.of_items(Table.PAVE, [item("A#1")]).query(prefix)) is None
    assert kept_rows(dict, [item("A#1")]) is None
