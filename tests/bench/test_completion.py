"""`python -m bench completion` checks that both executions answer alike, and that the compiled
operation answered, before it times them, and ends `--json` with its two figures."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from graphql import GraphQLError
from strawberry.types import ExecutionResult
from types_aiobotocore_dynamodb import DynamoDBClient

from bench.completion import USERS, AnswersDiffer, Measured, check_same
from bench.processes import ROOT
from gateway.settings import Settings
from loaders.dynamodb import Dynamo, FinishedCall
from loaders.tables import create_tables
from support.seed import seed_users
from tests.conftest import NOW, unique_table_names


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


async def test_both_schemas_answer_the_same_users_from_the_warm_cache(
    dynamodb: DynamoDBClient,
) -> None:
    tables = unique_table_names()
    await create_tables(dynamodb, tables)
    dynamo = Dynamo(dynamodb, tables)
    await seed_users(dynamo, USERS[:3], NOW, Settings(tables=tables))
    measured = Measured(dynamo, NOW)
    measured.variables = {"ids": USERS[:3]}
    await measured.fill()
    answered = measured.owner.completion.compiled
    calls: list[FinishedCall] = []
    dynamo.observers.append(calls.append)
    answers = measured.run(measured.gateway), measured.run(measured.graphql_core)
    check_same(*answers)
    # The gateway's compiled form answered, synchronously, from the cache.
    assert measured.owner.completion.compiled == answered + 1
    assert answers[0].data is not None
    assert [user["id"] for user in answers[0].data["users"]] == USERS[:3]
    assert answers[0].data["users"][0]["recurringExpenses"]
    assert calls == []


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
