"""The prepared operation: one per (text, operation name), prepared once under concurrency,
reused across requests, bounded, and holding the figures the separate walks gave."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import strawberry
from graphql import DocumentNode, GraphQLSchema, parse

from gateway.cli.examples import DASHBOARD_QUERY
from gateway.settings import Settings
from schema import prepared as prepared_module
from schema.cost_policy import GATEWAY_COST_POLICY
from schema.extensions import request_extensions
from schema.extensions.coordinates import coordinates_of
from schema.extensions.document_cache import CachedParsing
from schema.extensions.document_shape import fragment_depth, overlap_count, selection_count
from schema.extensions.measures import alias_count, query_cost, query_depth
from schema.prepared import PreparedOperation, PreparedOperations, owner_of
from schema.root import build_schema

GRAPHQL_SCHEMA = build_schema()._schema

#: Documents of every shape the measures tell apart, with the operation and variables run.
DOCUMENTS: list[tuple[str, str | None, dict[str, Any]]] = [
    (DASHBOARD_QUERY, "Dashboard", {"ids": [f"u-{n}" for n in range(100)]}),
    (DASHBOARD_QUERY, "Dashboard", {"ids": ["u-1"]}),
    ('{ user(id: "u") { id alert { alertSent } } }', None, {}),
    (
        "query A { viewer { ...F } } query B { a: viewer { id } b: viewer { id } } "
        "fragment F on User { id recurringExpenses { merchantName } }",
        "A",
        {},
    ),
    (
        "query A { viewer { ...F } } query B { a: viewer { id } b: viewer { id } } "
        "fragment F on User { id recurringExpenses { merchantName } }",
        "B",
        {},
    ),
    (
        "query($m: Int) { viewer { savingsMonths(months: $m) { month } } }",
        None,
        {"m": 12.0},
    ),
    ("query($m: Int = 6) { viewer { savingsMonths(months: $m) { month } } }", None, {}),
    ("{ " + "viewer { __typename } " * 44 + "}", None, {}),
    (
        "{ viewer { ...F0 } } "
        + " ".join(f"fragment F{n} on User {{ ...F{n + 1} }}" for n in range(9))
        + " fragment F9 on User { id }",
        None,
        {},
    ),
    ("{ viewer { ...A } } fragment A on User { ...B } fragment B on User { ...A }", None, {}),
    ("{ __schema { types { name } } }", None, {}),
]


@pytest.mark.parametrize(("text", "name", "variables"), DOCUMENTS)
def test_the_prepared_figures_are_those_of_the_separate_walks(
    text: str, name: str | None, variables: dict[str, Any]
) -> None:
    document = parse(text)
    owner = PreparedOperations(GATEWAY_COST_POLICY)
    prepared = owner.prepare(GRAPHQL_SCHEMA, text, document, name)
    assert prepared.depth == query_depth(document, name)
    assert prepared.aliases == alias_count(document, name)
    assert prepared.selections == selection_count(document)
    assert prepared.fragment_depth == fragment_depth(document)
    assert prepared.overlaps(1000) == overlap_count(document, stop_above=1000)
    assert prepared.overlaps(3) == overlap_count(document, stop_above=3)
    expected = query_cost(GRAPHQL_SCHEMA, document, GATEWAY_COST_POLICY, name, variables)
    assert prepared.cost(variables) == expected
    assert prepared.coordinates().names == coordinates_of(GRAPHQL_SCHEMA, document, name)


def test_the_cost_follows_each_requests_variables() -> None:
    text, name, _ = DOCUMENTS[0]
    prepared = PreparedOperations(GATEWAY_COST_POLICY).prepare(
        GRAPHQL_SCHEMA, text, parse(text), name
    )
    hundred = prepared.cost({"ids": [str(n) for n in range(100)]})
    one = prepared.cost({"ids": ["1"]})
    assert hundred > one > 0
    # Coerced as execution coerces: 12.0 for an Int counts as 12.
    months = parse("query($m: Int) { viewer { savingsMonths(months: $m) { month } } }")
    prepared = PreparedOperations(GATEWAY_COST_POLICY).prepare(GRAPHQL_SCHEMA, None, months, None)
    assert prepared.cost({"m": 12.0}) == prepared.cost({"m": 12}) > prepared.cost({"m": 1.0})


def counting(monkeypatch: pytest.MonkeyPatch, names: list[str]) -> Counter[str]:
    """Counts each call of the named walks, as the prepared operation makes them."""
    calls: Counter[str] = Counter()
    for name in names:
        walk = getattr(prepared_module, name)

        def counted(*arguments: Any, _walk: Any = walk, _name: str = name) -> Any:
            calls[_name] += 1
            return _walk(*arguments)

        monkeypatch.setattr(prepared_module, name, counted)
    return calls


WALKS = [
    "query_depth",
    "alias_count",
    "selection_count",
    "fragment_depth",
    "overlap_count",
    "query_cost",
    "coordinates_of",
]


def limited_schema() -> tuple[strawberry.Schema, PreparedOperations]:
    """The gateway's schema behind its parser cache and limits, one owner for both."""
    prepared = PreparedOperations(GATEWAY_COST_POLICY)
    limits = request_extensions(Settings().query_limits, prepared)
    return build_schema([CachedParsing, *limits], prepared=prepared), prepared


async def test_a_documents_preparation_is_reused_across_requests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = counting(monkeypatch, WALKS)
    schema, prepared = limited_schema()
    query = "query Names { __typename }"
    for _ in range(5):
        result = await schema.execute(query, operation_name="Names")
        assert result.errors is None
    assert prepared.preparations == 1
    # Each later request's limits check found it; each walk was made once.
    assert prepared.reuses == 4
    assert calls == Counter({name: 1 for name in WALKS if name != "coordinates_of"})


async def test_concurrent_first_requests_prepare_once() -> None:
    schema, prepared = limited_schema()
    query = "query Concurrent { __typename }"
    results = await asyncio.gather(*(schema.execute(query) for _ in range(20)))
    assert all(result.errors is None for result in results)
    assert prepared.preparations == 1


def test_concurrent_first_preparations_in_threads_are_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started = threading.Event()

    class Slow(PreparedOperation):
        made = 0

        def __init__(self, *arguments: Any) -> None:
            Slow.made += 1
            started.set()
            time.sleep(0.2)  # long enough for every other thread to ask meanwhile
            super().__init__(*arguments)

    monkeypatch.setattr(prepared_module, "PreparedOperation", Slow)
    owner = PreparedOperations(GATEWAY_COST_POLICY)
    text = DASHBOARD_QUERY
    document = parse(text)

    def prepare() -> PreparedOperation:
        return owner.prepare(GRAPHQL_SCHEMA, text, document, "Dashboard")

    with ThreadPoolExecutor(max_workers=8) as pool:
        first = pool.submit(prepare)
        assert started.wait(5)
        others = [pool.submit(prepare) for _ in range(7)]
        answers = {id(future.result()) for future in [first, *others]}
    assert (Slow.made, owner.preparations, len(answers)) == (1, 1, 1)


def test_the_bound_evicts_the_least_recently_used() -> None:
    owner = PreparedOperations(GATEWAY_COST_POLICY, maxsize=2)
    texts = [f"query Q{n} {{ viewer {{ id }} }}" for n in range(3)]
    documents = [parse(text) for text in texts]

    def prepare(n: int) -> PreparedOperation:
        return owner.prepare(GRAPHQL_SCHEMA, texts[n], documents[n], None)

    first = prepare(0)
    prepare(1)
    assert prepare(0) is first  # used: the second is now the oldest
    prepare(2)
    assert (len(owner), owner.evictions, owner.preparations) == (2, 1, 3)
    operation = documents[1].definitions[0]
    assert owner.of_operation(operation) is None  # type: ignore[arg-type]
    assert prepare(0) is first
    prepare(1)  # prepared again: it was evicted
    assert owner.preparations == 4
    with pytest.raises(ValueError, match="at least one"):
        PreparedOperations(maxsize=0)


def test_an_entry_answers_only_for_its_own_document_and_schema() -> None:
    owner = PreparedOperations(GATEWAY_COST_POLICY)
    text = "{ viewer { id } }"
    first = owner.prepare(GRAPHQL_SCHEMA, text, parse(text), None)
    reparsed: DocumentNode = parse(text)
    again = owner.prepare(GRAPHQL_SCHEMA, text, reparsed, None)
    assert again is not first
    assert again.document is reparsed
    other: GraphQLSchema = build_schema()._schema
    assert owner.prepare(other, text, reparsed, None).schema is other
    assert owner.preparations == 3


def test_build_schema_attaches_its_owner() -> None:
    given = PreparedOperations()
    assert owner_of(build_schema(prepared=given)._schema) is given
    assert isinstance(owner_of(build_schema()._schema), PreparedOperations)
    assert owner_of(strawberry.Schema(query=Query)._schema) is None


@strawberry.type
class Query:
    name: str = "q"
