"""`python -m bench completion` checks that both completions answer alike before it times
them, and ends `--json` with its two figures."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from graphql import GraphQLError
from strawberry.types import ExecutionResult

from bench.completion import AnswersDiffer, check_same, schemas
from bench.processes import ROOT

QUERY = "{ items { number name ratio } }"


def test_json_ends_with_both_figures() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench", "completion", "--json", "--rounds", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(figures) == {"gateway_ops_per_s", "graphql_core_ops_per_s"}
    assert figures["gateway_ops_per_s"] > 0
    assert figures["graphql_core_ops_per_s"] > 0


def test_both_schemas_answer_the_same_thousand_objects() -> None:
    gateway, graphql_core, prepared = schemas()
    answers = gateway.execute_sync(QUERY), graphql_core.execute_sync(QUERY)
    check_same(*answers)
    assert prepared.completion.compiled == 1_000  # the gateway's path, not its fallback
    assert answers[0].data is not None
    assert answers[0].data["items"][7] == {"number": 7, "name": "item 7", "ratio": 1.0}


ANSWER = {"items": [{"number": 0, "name": "a", "ratio": 0.5}]}


@pytest.mark.parametrize(
    "other",
    [
        ExecutionResult(data={"items": [{"number": 1, "name": "a", "ratio": 0.5}]}, errors=None),
        ExecutionResult(data=None, errors=None),
        ExecutionResult(data=ANSWER, errors=[GraphQLError("boom")]),
    ],
)
def test_different_answers_stop_the_bench(other: ExecutionResult) -> None:
    answer = ExecutionResult(data=ANSWER, errors=None)
    check_same(answer, ExecutionResult(data=dict(ANSWER), errors=None))
    with pytest.raises(AnswersDiffer):
        check_same(answer, other)
    with pytest.raises(AnswersDiffer):
        check_same(other, answer)
