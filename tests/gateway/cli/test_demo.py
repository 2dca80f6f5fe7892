"""The demo users show every answer a first `evaluateBalanceAlert` can give but LOCKED:
demo-dee's alert is due (SENT, then COOLDOWN), demo-ada's was sent two days ago (COOLDOWN),
demo-bob has alerts off (ALERTS_OFF)."""

from __future__ import annotations

import dataclasses

import httpx

from gateway.cli.demo import ADA, BOB, DEE, DEE_THRESHOLD, seed_demo
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema.principal import WRITER
from support.fixed_clock import FixedClock
from support.http_client import SECRET, app_client

EVALUATE = """mutation($input: EvaluateBalanceAlertInput!) {
  evaluateBalanceAlert(input: $input) { decision alert { alertSent balanceSetting } }
}"""


async def evaluate(client: httpx.AsyncClient, user: str) -> dict[str, object]:
    body = {
        "query": EVALUATE,
        "variables": {
            "input": {"userId": user, "availableBalance": "20.00", "currentBalance": "45.00"}
        },
    }
    answer = (await client.post("/graphql", json=body)).json()
    assert "errors" not in answer, answer
    result: dict[str, object] = answer["data"]["evaluateBalanceAlert"]
    return result


async def test_each_demo_user_answers_its_own_decision(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    await seed_demo(dynamo, clock.now(), settings)
    configured = dataclasses.replace(settings, auth_hs256_secret=SECRET)
    async with app_client(configured, clock, roles=(WRITER,)) as client:
        first = await evaluate(client, DEE)
        again = await evaluate(client, DEE)
        ada = await evaluate(client, ADA)
        bob = await evaluate(client, BOB)

    sent = {"alertSent": True, "balanceSetting": f"{DEE_THRESHOLD}"}
    assert first == {"decision": "SENT", "alert": sent}
    assert again == {"decision": "COOLDOWN", "alert": sent}
    assert ada["decision"] == "COOLDOWN"
    assert bob == {"decision": "ALERTS_OFF", "alert": None}
