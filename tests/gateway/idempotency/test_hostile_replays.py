"""Replays as the probe sent them (issue 42): a spent budget, and a token without `writer`.

A replay is charged the operation's cost in its principal's budget and needs the roles the
mutation needs now, over HTTP, in a batch and over the socket. Over moto's server (the
record commits in a transaction, which dynalite lacks)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from gateway.auth.tokens import mint_token
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.tables import TableNames
from support.fixed_clock import FixedClock
from support.http_client import SECRET
from tests.gateway.idempotency.keyed_client import effects, gateway, records, send, writer_token
from tests.gateway.subscriptions.conftest import live_gateway
from tests.gateway.subscriptions.socket_client import open_socket
from tests.gateway.subscriptions.test_keyed_socket import keyed
from tests.schema.test_mutations import document

#: The probe sent 300; a budget of a few operations is spent long before.
REPLAYS = 40
#: markInsightsRefresh costs 1 point: the budget holds the first run and five replays.
BUDGET = "6/minute"
ADMITTED = 5
SPENT: dict[str, Any] = {"rate_limit_writer": BUDGET, "rate_limit_user": BUDGET}
LABEL_INPUT = {"userId": "u-1"}


def _codes(body: Any) -> list[str]:
    return [error["extensions"]["code"] for error in body.get("errors") or []]


async def test_replays_over_the_budget_get_429(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway(settings, dynamo, clock, **SPENT) as client:
        first = await send(client, clock, "markInsightsRefresh", LABEL_INPUT)
        replays = [
            await send(client, clock, "markInsightsRefresh", LABEL_INPUT) for _ in range(REPLAYS)
        ]
        reused = await send(client, clock, "markInsightsRefresh", {"userId": "u-2"})

    assert first.status_code == 200, first.text
    statuses = [replay.status_code for replay in replays]
    answered = statuses.index(429)
    assert answered == ADMITTED
    assert all(replay.headers["Idempotency-Replayed"] == "true" for replay in replays[:answered])
    assert set(statuses[answered:]) == {429}
    refused = replays[answered]
    assert _codes(refused.json()) == ["RATE_LIMITED"]
    assert "Retry-After" in refused.headers
    assert "Idempotency-Replayed" not in refused.headers
    # Another fingerprint (422 while the budget lasts) is charged too.
    assert reused.status_code == 429
    assert _codes(reused.json()) == ["RATE_LIMITED"]


async def test_a_reused_key_is_charged(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway(settings, dynamo, clock, **SPENT) as client:
        await send(client, clock, "markInsightsRefresh", LABEL_INPUT)
        reused = [
            await send(client, clock, "markInsightsRefresh", {"userId": "u-2"})
            for _ in range(REPLAYS)
        ]

    statuses = [answer.status_code for answer in reused]
    assert 422 in statuses
    assert statuses[-1] == 429
    assert statuses.count(422) == ADMITTED


async def test_replays_in_a_batch_are_charged_each(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    operation = {
        "query": document("markInsightsRefresh"),
        "variables": {"input": LABEL_INPUT},
        "extensions": {"idempotencyKey": "key-1"},
    }
    headers = {"Authorization": f"Bearer {writer_token(clock)}"}
    async with gateway(settings, dynamo, clock, **SPENT) as client:
        answer = await client.post("/graphql", json=[operation] * 10, headers=headers)

    assert answer.status_code == 200
    codes = [_codes(result) for result in answer.json()]
    assert codes[0] == []
    assert ["RATE_LIMITED"] in codes
    assert codes[-1] == ["RATE_LIMITED"]
    assert codes.count([]) == 1 + ADMITTED


async def test_a_replay_without_the_writer_role_is_forbidden(
    settings: Settings,
    dynamo: Dynamo,
    dynamodb: Any,
    tables: TableNames,
    clock: FixedClock,
) -> None:
    revoked = mint_token(SECRET, "svc-payday", [], timedelta(hours=1), clock)
    async with gateway(settings, dynamo, clock) as client:
        first = await send(client, clock, "markInsightsRefresh", LABEL_INPUT)
        written = await effects(dynamodb, tables)
        replay = await send(
            client,
            clock,
            "markInsightsRefresh",
            LABEL_INPUT,
            headers={"Authorization": f"Bearer {revoked}"},
        )

    assert first.status_code == 200, first.text
    assert "Idempotency-Replayed" not in replay.headers
    body = replay.json()
    assert body["data"] == {"markInsightsRefresh": None}
    assert _codes(body) == ["FORBIDDEN"]
    assert await effects(dynamodb, tables) == written
    assert len(await records(dynamodb, tables)) == 1


async def test_over_the_socket_replays_are_charged(settings: Settings, clock: FixedClock) -> None:
    async with live_gateway(settings, clock, **SPENT) as live, open_socket(live.url) as socket:
        await socket.init(live.writer())
        answers = [await keyed(socket, str(n), "u-1", "k-1") for n in range(REPLAYS)]

    kinds = [answer[0]["type"] for answer in answers]
    assert kinds[: 1 + ADMITTED] == ["next"] * (1 + ADMITTED)
    assert set(kinds[1 + ADMITTED :]) == {"error"}
    assert answers[1 + ADMITTED][0]["payload"][0]["extensions"]["code"] == "RATE_LIMITED"


async def test_over_the_socket_a_replay_without_the_writer_role_is_forbidden(
    settings: Settings, clock: FixedClock
) -> None:
    async with live_gateway(settings, clock) as live:
        async with open_socket(live.url) as socket:
            await socket.init(live.writer())
            first = await keyed(socket, "1", "u-1", "k-1")
        async with open_socket(live.url) as socket:
            await socket.init(live.token("svc-1"))
            revoked = await keyed(socket, "2", "u-1", "k-1")

    assert first[0]["type"] == "next"
    assert revoked[0]["type"] == "next", revoked
    assert "extensions" not in revoked[0]["payload"]
    assert revoked[0]["payload"]["data"] == {"markInsightsRefresh": None}
    assert [e["extensions"]["code"] for e in revoked[0]["payload"]["errors"]] == ["FORBIDDEN"]
