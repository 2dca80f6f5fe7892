"""The order a batch runs in (gateway/http/batch.py): which operations are mutations, queries
together, each mutation alone after everything before it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from gateway.http.batch import Arrival, run_in_order
from gateway.operations.kinds import OperationKinds

TWO = 'query Q { viewer { id } } mutation M { markInsightsRefresh(input: {userId: "u"}) { id } }'


@pytest.mark.parametrize(
    ("text", "name", "mutation"),
    [
        ("{ viewer { id } }", None, False),
        ('mutation { markInsightsRefresh(input: {userId: "u"}) { id } }', None, True),
        (TWO, "M", True),
        (TWO, "Q", False),
        (TWO, None, False),  # ambiguous: its execution refuses it
        (TWO, "Nope", False),
        ("mutation {", None, False),  # unparsable: its execution says so
        ("{ viewer { mutation: id } }", None, False),  # the word alone is not a mutation
    ],
)
def test_which_operations_are_mutations(text: str, name: str | None, mutation: bool) -> None:
    assert OperationKinds(max_tokens=2000).is_mutation(text, name) is mutation


def test_a_text_over_the_token_limit_is_not_parsed_whole() -> None:
    huge = "mutation { " + "a " * 5000 + "}"
    assert OperationKinds(max_tokens=100).is_mutation(huge, None) is False


async def test_queries_run_together_and_mutations_alone_in_order() -> None:
    events: list[str] = []

    def step(name: str) -> Callable[[Arrival | None], Awaitable[str]]:
        async def run(arrival: Arrival | None) -> str:
            # The queries of a run each have their place at its gate; a mutation none.
            assert (arrival is None) is name.startswith("m")
            events.append(f"start {name}")
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            events.append(f"end {name}")
            return name

        return run

    names = ["q1", "q2", "m1", "q3", "m2", "m3", "q4"]
    results = await run_in_order([step(n) for n in names], [n.startswith("m") for n in names])

    assert results == names
    assert events == [
        "start q1",
        "start q2",
        "end q1",
        "end q2",
        "start m1",
        "end m1",
        "start q3",
        "end q3",
        "start m2",
        "end m2",
        "start m3",
        "end m3",
        "start q4",
        "end q4",
    ]
