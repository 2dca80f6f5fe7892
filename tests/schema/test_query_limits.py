from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
import strawberry
from graphql import FragmentDefinitionNode

from gateway.settings import Settings
from schema.extensions import CostPolicy, QueryLimitsCheck, measures, request_extensions
from schema.extensions.measures import token_count
from schema.prepared import PreparedOperations

FragmentMeasure = Callable[[FragmentDefinitionNode, Callable[[str], int]], int]

# Every resolver that stands for a table read appends here: a refused query leaves it empty.
READS: list[str] = []


@strawberry.type
class Score:
    value: int


def person_scores(root: Person, limit: int = 10) -> list[Score]:
    READS.append(f"scores:{root.id}")
    return [Score(value=n) for n in range(limit)]


@strawberry.type
class Person:
    id: strawberry.ID
    # `scores` declares its cost on the field; `friend` and `months` take it from the table.
    scores: list[Score] = strawberry.field(resolver=person_scores, metadata={"cost": 1})

    @strawberry.field
    def friend(self) -> Person:
        READS.append(f"friend:{self.id}")
        return Person(id=strawberry.ID(f"{self.id}'"))

    @strawberry.field
    def months(self, months: int = 3) -> list[str]:
        READS.append(f"months:{self.id}")
        return [f"2026-{m:02}" for m in range(1, months + 1)]


@strawberry.type
class Query:
    @strawberry.field
    def person(self, id: strawberry.ID) -> Person:
        return Person(id=id)

    @strawberry.field
    def people(self, ids: list[strawberry.ID]) -> list[Person]:
        return [Person(id=i) for i in ids]


# Overlaps are left high here: the token case below repeats one field 190 times.
LIMITS = Settings(
    max_query_tokens=200,
    max_query_depth=4,
    max_query_aliases=3,
    max_query_cost=50,
    max_query_overlaps=20_000,
)
POLICY = CostPolicy(field_costs={"Person.friend": 1, "Person.months": 1})


def limited_schema(settings: Settings = LIMITS) -> strawberry.Schema:
    extensions: list[Any] = request_extensions(settings.query_limits, PreparedOperations(POLICY))
    return strawberry.Schema(query=Query, extensions=extensions)


SCHEMA = limited_schema()


@pytest.fixture(autouse=True)
def _no_reads_yet() -> None:
    READS.clear()


def fragment_bomb(levels: int) -> str:
    """F0 has two aliases; each further level spreads the one below twice: 2**levels."""
    fragments = ["fragment F0 on Person { a: id b: id }"]
    fragments += [
        f"fragment F{n} on Person {{ ...F{n - 1} ...F{n - 1} }}" for n in range(1, levels)
    ]
    return f'{{ person(id: "1") {{ ...F{levels - 1} }} }} ' + " ".join(fragments)


REFUSED: list[tuple[str, str, dict[str, Any] | None, str | None, str, int]] = [
    # id, query, variables, operationName, limit, figure
    (
        "depth 5",
        "{ person(id: 1) { friend { friend { friend { id } } } } }",
        None,
        None,
        "depth",
        5,
    ),
    (
        "depth through a fragment",
        "{ person(id: 1) { ...F } } fragment F on Person { friend { friend { friend { id } } } }",
        None,
        None,
        "depth",
        5,
    ),
    (
        "depth through an inline fragment",
        "{ person(id: 1) { ... on Person { friend { friend { friend { id } } } } } }",
        None,
        None,
        "depth",
        5,
    ),
    (
        "depth of the named operation",
        "query A { person(id: 1) { id } } "
        "query B { person(id: 1) { friend { friend { friend { friend { id } } } } } }",
        None,
        "B",
        "depth",
        6,
    ),
    (
        "4 aliases",
        "{ a: person(id: 1) { id } b: person(id: 2) { x: id y: id z: id } }",
        None,
        None,
        "aliases",
        5,
    ),
    (
        "aliases counted per fragment spread",
        "{ person(id: 1) { ...F ...F } } fragment F on Person { a: id b: id }",
        None,
        None,
        "aliases",
        4,
    ),
    ("fragment bomb of 12 levels", fragment_bomb(12), None, None, "aliases", 2**12),
    (
        "ids multiply",
        "query($ids: [ID!]!) { people(ids: $ids) { scores(limit: 5) { value } } }",
        {"ids": [str(n) for n in range(11)]},
        None,
        "cost",
        55,
    ),
    (
        "limit multiplies",
        "{ person(id: 1) { scores(limit: 51) { value } } }",
        None,
        None,
        "cost",
        51,
    ),
    (
        "nested multipliers",
        "{ people(ids: [1, 2, 3, 4, 5, 6]) { friend { scores(limit: 8) { value } } } }",
        None,
        None,
        "cost",
        6 * (1 + 8),
    ),
    (
        "months from the cost table",
        "{ people(ids: [1, 2, 3, 4, 5, 6, 7, 8, 9]) { months(months: 6) } }",
        None,
        None,
        "cost",
        54,
    ),
    (
        "a variable's default",
        "query($n: Int = 60) { person(id: 1) { scores(limit: $n) { value } } }",
        None,
        None,
        "cost",
        60,
    ),
    (
        "an unknown list size counts as 100",
        "query($n: Int) { person(id: 1) { scores(limit: $n) { value } } }",
        None,
        None,
        "cost",
        100,
    ),
    (
        "cost through a fragment",
        "{ people(ids: [1, 2, 3]) { ...S } } fragment S on Person { scores(limit: 20) { value } }",
        None,
        None,
        "cost",
        60,
    ),
    ("201 tokens", "{ person(id: 1) { " + "id " * 191 + "} }", None, None, "tokens", 201),
    (
        "token flood counted to twice the limit",
        "{ person(id: 1) { " + "id " * 50_000 + "} }",
        None,
        None,
        "tokens",
        400,
    ),
    (
        "301 tokens: counted exactly",
        "{ person(id: 1) { " + "id " * 291 + "} }",
        None,
        None,
        "tokens",
        301,
    ),
]


@pytest.mark.parametrize(
    ("query", "variables", "operation", "limit", "figure"),
    [case[1:] for case in REFUSED],
    ids=[case[0] for case in REFUSED],
)
async def test_refused_before_any_resolver(
    query: str, variables: dict[str, Any] | None, operation: str | None, limit: str, figure: int
) -> None:
    result = await SCHEMA.execute(query, variable_values=variables, operation_name=operation)
    assert result.data is None
    assert result.errors is not None
    assert [error.extensions for error in result.errors] == [
        {
            "code": "QUERY_TOO_COMPLEX",
            "limit": limit,
            "maximum": getattr(LIMITS, f"max_query_{limit}"),
            "actual": figure,
        }
    ]
    assert str(figure) in result.errors[0].message
    assert READS == []


ACCEPTED: list[tuple[str, str, dict[str, Any] | None, str | None, list[str]]] = [
    (
        "depth 4",
        "{ person(id: 1) { friend { friend { id } } } }",
        None,
        None,
        ["friend:1", "friend:1'"],
    ),
    ("3 aliases", "{ a: person(id: 1) { x: id y: id } }", None, None, []),
    (
        "cost 50 exactly",
        "query($ids: [ID!]!) { people(ids: $ids) { scores(limit: 5) { value } } }",
        {"ids": [str(n) for n in range(10)]},
        None,
        [f"scores:{n}" for n in range(10)],
    ),
    (
        "defaults",
        "{ person(id: 1) { scores { value } months } }",
        None,
        None,
        ["scores:1", "months:1"],
    ),
    (
        "the shallow operation of two",
        "query A { person(id: 1) { id } } "
        "query B { person(id: 1) { friend { friend { friend { friend { id } } } } } }",
        None,
        "A",
        [],
    ),
    (
        "introspection is left to the token limit",
        "{ __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } }",
        None,
        None,
        [],
    ),
    ("200 tokens", "{ person(id: 1) { " + "id " * 190 + "} }", None, None, []),
]


@pytest.mark.parametrize(
    ("query", "variables", "operation", "reads"),
    [case[1:] for case in ACCEPTED],
    ids=[case[0] for case in ACCEPTED],
)
async def test_within_the_limits_runs(
    query: str, variables: dict[str, Any] | None, operation: str | None, reads: list[str]
) -> None:
    result = await SCHEMA.execute(query, variable_values=variables, operation_name=operation)
    assert result.errors is None
    assert result.data is not None
    assert sorted(READS) == sorted(reads)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("{ person(id: 1) { ", "Syntax Error"),
        ("{ person(id: 1) { nope } }", "Cannot query field 'nope'"),
        (
            "{ person(id: 1) { ...A } } fragment A on Person { friend { ...B } } "
            "fragment B on Person { friend { ...A } }",
            "Cannot spread fragment 'A' within itself",
        ),
        ('{ person(id: 1) { scores(limit: "x") { value } } }', "Int cannot represent"),
    ],
)
async def test_other_errors_are_left_to_parsing_and_validation(query: str, message: str) -> None:
    result = await SCHEMA.execute(query)
    assert result.errors is not None
    assert message in result.errors[0].message
    assert all(
        (error.extensions or {}).get("code") != "QUERY_TOO_COMPLEX" for error in result.errors
    )
    assert READS == []


async def test_a_fragment_bomb_is_measured_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # Counts, not a stopwatch: each measure walks each fragment once, whatever it expands to.
    walked: list[str] = []
    remember = measures.fragment_values  # type: ignore[attr-defined]

    def counting(document: Any, measure: FragmentMeasure) -> Callable[[str], int]:
        def counted(fragment: FragmentDefinitionNode, spread: Callable[[str], int]) -> int:
            walked.append(fragment.name.value)
            # An exponential walk fails here, long before it would end.
            assert len(walked) <= 1000, "a fragment is walked again"
            return measure(fragment, spread)

        return remember(document, counted)

    monkeypatch.setattr(measures, "fragment_values", counting)
    result = await limited_schema(Settings()).execute(fragment_bomb(60))
    assert result.errors is not None
    assert result.errors[0].extensions == {
        "code": "QUERY_TOO_COMPLEX",
        "limit": "aliases",
        "maximum": 30,
        "actual": 2**60,
    }
    # The depth limit's walk and the alias limit's (which refuses; the cost limit then waits).
    assert Counter(walked) == {f"F{n}": 2 for n in range(60)}


def test_default_limits_are_the_documented_ones() -> None:
    settings = Settings.from_environ({})
    assert (
        settings.max_query_tokens,
        settings.max_query_depth,
        settings.max_query_aliases,
        settings.max_query_cost,
    ) == (2000, 10, 30, 10_000)
    configured = Settings.from_environ({"INSIGHT_MAX_QUERY_DEPTH": "3"})
    [check] = [
        factory()
        for factory in request_extensions(configured.query_limits, PreparedOperations(POLICY))
    ]
    assert isinstance(check, QueryLimitsCheck)
    assert check.limits.max_tokens == 2000
    assert [(name, maximum) for name, maximum, _ in check.measures] == [
        ("depth", 3),
        ("aliases", 30),
        ("cost", 10_000),
        ("selections", 1000),
        ("fragment depth", 50),
        ("overlapping field pairs", 1000),
    ]
    closed = Settings.from_environ({"INSIGHT_INTROSPECTION": "false"})
    assert [
        type(factory()).__name__
        for factory in request_extensions(closed.query_limits, PreparedOperations(POLICY))
    ] == ["QueryLimitsCheck", "DisableIntrospection"]


def test_token_count_matches_the_parser_and_ignores_comments() -> None:
    assert token_count('{ a(x: "s") # comment\n b }', cap=100) == 9
    assert token_count("{ a b c d }", cap=3) == 3
    assert token_count("{ a \u0007 b }", cap=100) == 2


async def test_the_token_limit_holds_behind_a_parser_cache() -> None:
    """strawberry's ParserCache parses in its own hook, where a syntax error raises through
    the operation instead of ending in a result; the refusal must be the same."""
    from strawberry.extensions import ParserCache

    extensions: list[Any] = [
        ParserCache,
        *request_extensions(LIMITS.query_limits, PreparedOperations(POLICY)),
    ]
    schema = strawberry.Schema(query=Query, extensions=extensions)
    flood = "{ person(id: 1) { " + "id " * 300 + "} }"
    result = await schema.execute(flood)
    assert result.errors is not None
    assert [error.extensions for error in result.errors] == [
        {"code": "QUERY_TOO_COMPLEX", "limit": "tokens", "maximum": 200, "actual": 310}
    ]
    broken = await schema.execute("{ person(id: 1) { ")
    assert broken.errors is not None
    assert "Syntax Error" in broken.errors[0].message
    assert READS == []


def cached_schema() -> tuple[strawberry.Schema, PreparedOperations]:
    """A schema behind a parser cache, as the gateway's, with the limits' prepared operations."""
    from strawberry.extensions import ParserCache

    prepared = PreparedOperations(POLICY)
    extensions: list[Any] = [ParserCache, *request_extensions(LIMITS.query_limits, prepared)]
    return strawberry.Schema(query=Query, extensions=extensions), prepared


async def test_a_repeated_query_is_measured_once_and_refused_alike() -> None:
    schema, prepared = cached_schema()
    deep = "{ person(id: 1) { friend { friend { friend { id } } } } }"
    results = [await schema.execute(deep) for _ in range(3)]
    for result in results:
        assert result.errors is not None
        assert result.errors[0].extensions == {
            "code": "QUERY_TOO_COMPLEX",
            "limit": "depth",
            "maximum": 4,
            "actual": 5,
        }
    # Prepared by the first request's check, and found by the next two.
    assert (prepared.preparations, prepared.reuses) == (1, 2)
    assert READS == []
    shallow = "{ person(id: 1) { friend { id } } }"
    for _ in range(2):
        assert (await schema.execute(shallow)).errors is None
    # One look a request for every limit: the first request's prepares it.
    assert (prepared.preparations, prepared.reuses) == (2, 2 + 1)
    assert READS == ["friend:1", "friend:1"]


async def test_the_cost_memo_follows_the_sizes_of_the_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    walks: list[object] = []
    measure = measures.query_cost

    def counted(*arguments: Any) -> int:
        walks.append(arguments[4])
        return measure(*arguments)

    monkeypatch.setattr("schema.prepared.query_cost", counted)
    schema, _ = cached_schema()
    query = "query($ids: [ID!]!) { people(ids: $ids) { scores(limit: 5) { value } } }"
    ten = await schema.execute(query, variable_values={"ids": [str(n) for n in range(10)]})
    assert ten.errors is None
    other_ten = await schema.execute(query, variable_values={"ids": [f"x{n}" for n in range(10)]})
    assert other_ten.errors is None
    assert len(walks) == 1
    READS.clear()
    eleven = await schema.execute(query, variable_values={"ids": [str(n) for n in range(11)]})
    assert eleven.errors is not None
    assert eleven.errors[0].extensions == {
        "code": "QUERY_TOO_COMPLEX",
        "limit": "cost",
        "maximum": 50,
        "actual": 55,
    }
    assert READS == []


async def test_each_operation_of_a_document_is_measured_for_itself() -> None:
    schema, _ = cached_schema()
    query = (
        "query A { person(id: 1) { id } } "
        "query B { person(id: 1) { friend { friend { friend { friend { id } } } } } }"
    )
    assert (await schema.execute(query, operation_name="A")).errors is None
    refused = await schema.execute(query, operation_name="B")
    assert refused.errors is not None
    assert refused.errors[0].extensions is not None
    assert refused.errors[0].extensions["actual"] == 6
    assert (await schema.execute(query, operation_name="A")).errors is None
