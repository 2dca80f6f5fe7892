"""The documented example queries and GraphiQL's embedded query, run against the demo users."""

from __future__ import annotations

from pathlib import Path

from gateway.cli.demo import ADA, BOB, CY, seed_demo
from gateway.cli.examples import (
    DASHBOARD_QUERY,
    FRONTEND_QUERY,
    dashboard_variables,
    demo_user_query,
)
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema.principal import Principal
from support.fixed_clock import FixedClock
from tests.schema.conftest import Execute, data_of

ROOT = Path(__file__).resolve().parents[2]


async def test_the_frontend_example_reads_the_callers_own_user(
    execute: Execute, dynamo: Dynamo, settings: Settings, clock: FixedClock
) -> None:
    await seed_demo(dynamo, clock.now(), settings)

    viewer = data_of(await execute(FRONTEND_QUERY, principal=Principal(sub=ADA)))["viewer"]

    assert viewer["id"] == ADA
    assert viewer["payday"]["predictionDate"] == clock.now().date().isoformat()
    assert len(viewer["savingsMonths"]) == 3
    assert viewer["lowBalanceAlert"] == "100.00"
    assert [e["merchantName"] for e in viewer["recurringExpenses"]] == [
        "Netflix",
        "City Power",
        "Gym Co",
    ]


async def test_the_dashboard_example_reads_many_users_in_order(
    execute: Execute, dynamo: Dynamo, settings: Settings, clock: FixedClock
) -> None:
    await seed_demo(dynamo, clock.now(), settings)

    result = await execute(DASHBOARD_QUERY, dashboard_variables([CY, ADA, BOB]))

    users = data_of(result)["users"]
    assert [u["id"] for u in users] == [CY, ADA, BOB]
    cy, ada, _ = users
    assert cy == {
        "id": CY,
        "incomeVerification": None,
        "cashAdvanceScores": [],
        "incomeDetectionRuns": [],
        "latestMine": None,
    }
    assert ada["incomeVerification"]["verificationStatus"] == "approved"
    assert len(ada["cashAdvanceScores"]) == 3
    assert ada["incomeDetectionRuns"][0]["mlResultsUsed"] is True


async def test_graphiqls_embedded_query_shows_the_demo_users_data(
    execute: Execute, dynamo: Dynamo, settings: Settings, clock: FixedClock
) -> None:
    await seed_demo(dynamo, clock.now(), settings)

    user = data_of(await execute(demo_user_query(ADA)))["user"]

    assert user["id"] == ADA
    assert user["payday"]["fm"]["payday"] is not None
    assert user["incomeVerification"] == {"verificationStatus": "approved", "amountInCents": 184250}
    assert user["alert"]["alertSent"] is True


def test_the_docs_show_the_examples_verbatim() -> None:
    schema_page = (ROOT / "docs" / "schema.md").read_text()

    assert FRONTEND_QUERY in schema_page
    assert DASHBOARD_QUERY in schema_page
    assert FRONTEND_QUERY in (ROOT / "README.md").read_text()
