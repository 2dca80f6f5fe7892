"""Query.user / users / viewer: arguments, order, bounds and who may read whom."""

from __future__ import annotations

import pytest

from schema.principal import Principal
from tests.schema.conftest import Execute, data_of

EVERY_FIELD = """
  id
  payday { predictionDate }
  incomeVerification { txnId }
  savingsMonths { month }
  alert { alertSent }
  recurringExpenses { merchantUuid }
  rituals { merchantId }
  cashAdvanceScores { score }
  incomeDetectionRuns { runDate }
  income { amount }
  latestMine { minedAt }
  paveLabel { label }
  lastPages { page }
  lowBalanceAlert
"""

NOTHING: dict[str, object] = {
    "payday": None,
    "incomeVerification": None,
    "savingsMonths": [],
    "alert": None,
    "recurringExpenses": [],
    "rituals": [],
    "cashAdvanceScores": [],
    "incomeDetectionRuns": [],
    "income": None,
    "latestMine": None,
    "paveLabel": None,
    "lastPages": [],
    "lowBalanceAlert": None,
}


async def test_a_user_with_no_rows_is_a_user_with_empty_fields(execute: Execute) -> None:
    result = await execute(f'{{ user(id: "ghost") {{ {EVERY_FIELD} }} }}')
    assert data_of(result) == {"user": {"id": "ghost", **NOTHING}}


async def test_users_keeps_order_and_duplicates(execute: Execute) -> None:
    result = await execute('{ users(ids: ["b", "a", "b"]) { id } }')
    assert data_of(result) == {"users": [{"id": "b"}, {"id": "a"}, {"id": "b"}]}


async def test_viewer_is_the_token_subject(execute: Execute) -> None:
    result = await execute("{ viewer { id } }", principal=Principal("me-7"))
    assert data_of(result) == {"viewer": {"id": "me-7"}}


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ('{ user(id: "u") { savingsMonths(months: 0) { month } } }', "months"),
        ('{ user(id: "u") { savingsMonths(months: 13) { month } } }', "months"),
        ('{ user(id: "u") { cashAdvanceScores(limit: 0) { score } } }', "limit"),
        ('{ user(id: "u") { cashAdvanceScores(limit: 101) { score } } }', "limit"),
        ('{ user(id: "u") { incomeDetectionRuns(limit: -1) { runDate } } }', "limit"),
        ("{ users(ids: []) { id } }", "ids"),
        ('{ user(id: " ") { id } }', "id"),
        ("{ users(ids: [" + ", ".join(f'"u{i}"' for i in range(101)) + "]) { id } }", "ids"),
    ],
)
async def test_out_of_range_arguments_are_bad_user_input(
    execute: Execute, query: str, field: str
) -> None:
    result = await execute(query)
    assert result.errors is not None
    [error] = result.errors
    assert error.extensions == {"code": "BAD_USER_INPUT", "field": field}


async def test_an_end_user_reads_only_their_own_user(execute: Execute) -> None:
    me = Principal("me")
    assert data_of(await execute('{ user(id: "me") { id } }', principal=me)) == {
        "user": {"id": "me"}
    }
    result = await execute('{ user(id: "someone-else") { id } }', principal=me)
    assert result.errors is not None
    assert [error.extensions for error in result.errors] == [{"code": "FORBIDDEN"}]
