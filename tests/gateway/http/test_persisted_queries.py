from __future__ import annotations

import hashlib
from typing import Any

import pytest

from gateway.operations.operation import BadRequest
from gateway.operations.persisted_queries import (
    PersistedQueries,
    PersistedQueryNotFound,
    PersistedQueryNotSupported,
)

QUERY = "{ viewer { id } }"


def sha(query: str) -> str:
    return hashlib.sha256(query.encode("utf-8")).hexdigest()


def apq(sha256_hash: str, version: Any = 1) -> dict[str, Any]:
    return {"persistedQuery": {"version": version, "sha256Hash": sha256_hash}}


def test_requests_without_the_protocol_pass_through() -> None:
    cache = PersistedQueries(10)
    assert cache.resolve(QUERY, None) == QUERY
    assert cache.resolve(QUERY, {"other": 1}) == QUERY
    assert cache.resolve(None, {}) is None
    assert len(cache) == 0


def test_miss_then_register_then_hit() -> None:
    cache = PersistedQueries(10)
    with pytest.raises(PersistedQueryNotFound) as missed:
        cache.resolve(None, apq(sha(QUERY)))
    assert missed.value.graphql_extensions() == {"code": "PERSISTED_QUERY_NOT_FOUND"}
    assert missed.value.message == "PersistedQueryNotFound"
    assert cache.resolve(QUERY, apq(sha(QUERY))) == QUERY
    assert cache.resolve(None, apq(sha(QUERY))) == QUERY
    assert cache.resolve(None, apq(sha(QUERY).upper())) == QUERY


def test_a_wrong_hash_is_refused_and_not_registered() -> None:
    cache = PersistedQueries(10)
    other = sha("{ users(ids: []) { id } }")
    with pytest.raises(BadRequest, match="does not match the query"):
        cache.resolve(QUERY, apq(other))
    assert other not in cache
    assert len(cache) == 0


@pytest.mark.parametrize(
    ("extensions", "message"),
    [
        ({"persistedQuery": "abc"}, "must be an object"),
        (apq(sha(QUERY), version=2), "version must be 1"),
        (apq(sha(QUERY), version=True), "version must be 1"),
        (apq(sha(QUERY), version=None), "version must be 1"),
        (apq("abc"), "64 hex digits"),
        (apq(sha(QUERY) + "0"), "64 hex digits"),
        ({"persistedQuery": {"version": 1}}, "64 hex digits"),
    ],
)
def test_malformed_protocol_fields(extensions: dict[str, Any], message: str) -> None:
    with pytest.raises(BadRequest, match=message):
        PersistedQueries(10).resolve(QUERY, extensions)


def test_least_recently_used_is_evicted_first() -> None:
    cache = PersistedQueries(2)
    queries = [f"{{ user(id: {n}) {{ id }} }}" for n in range(3)]
    cache.resolve(queries[0], apq(sha(queries[0])))
    cache.resolve(queries[1], apq(sha(queries[1])))
    cache.resolve(None, apq(sha(queries[0])))  # touch 0: 1 is now the oldest
    cache.resolve(queries[2], apq(sha(queries[2])))
    assert [sha(q) in cache for q in queries] == [True, False, True]
    assert len(cache) == 2


def test_the_cache_is_bounded_by_characters_too() -> None:
    cache = PersistedQueries(100, max_total_chars=50)
    small = [f"{{ a{n}: id }}" for n in range(6)]  # 10 characters each
    for query in small:
        cache.resolve(query, apq(sha(query)))
    assert len(cache) == 5  # 50 characters; the sixth evicted the first
    assert sha(small[0]) not in cache
    huge = "{ " + "a " * 40 + "}"
    assert cache.resolve(huge, apq(sha(huge))) == huge  # still answered, never stored
    assert sha(huge) not in cache
    assert len(cache) == 5


def test_a_zero_sized_cache_says_the_protocol_is_off() -> None:
    with pytest.raises(PersistedQueryNotSupported) as raised:
        PersistedQueries(0).resolve(None, apq(sha(QUERY)))
    assert raised.value.code == "PERSISTED_QUERY_NOT_SUPPORTED"
