"""Retried mutations over HTTP (SPEC section 9): one key, one effect, the first answer again.

Over moto's server, which has TransactWriteItems (dynalite has none: these tests are not
run there). Effects are counted in the tables themselves."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest

from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.tables import Table, TableNames
from support.fixed_clock import FixedClock
from support.metrics_text import value
from tests.conftest import AtomicBackend, CallCounter
from tests.gateway.idempotency.keyed_client import effects, gateway, records, send, writer_token
from tests.schema.test_mutations import (
    capture_input,
    detection_input,
    document,
    payday_input,
    savings_input,
    verification_input,
)

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

ALERT = {"userId": "u-1", "availableBalance": "10", "currentBalance": "12"}
MUTATIONS = [
    ("recordPaydayPrediction", payday_input()),
    ("setIncomeVerification", verification_input()),
    ("recordSavingsSnapshot", savings_input()),
    ("markInsightsRefresh", {"userId": "u-1"}),
    ("recordLastPage", {"userId": "u-1", "paveRequestId": "req-4", "page": 3}),
    ("recordIncomeDetectionRun", detection_input()),
    ("recordFloatMeV2Capture", capture_input()),
    ("evaluateBalanceAlert", ALERT),
]


@pytest.fixture
async def alerts_on(dynamo: Dynamo) -> None:
    await dynamo.put(Table.BALANCE_SETTINGS, {"user_id": "u-1", "low_balance_alert": 50})


@pytest.mark.usefixtures("alerts_on")
@pytest.mark.parametrize(("mutation", "input"), MUTATIONS, ids=[m for m, _ in MUTATIONS])
async def test_a_mutation_sent_twice_with_one_key_has_one_effect_and_one_answer(
    settings: Settings,
    dynamo: Dynamo,
    dynamodb: DynamoDBClient,
    tables: TableNames,
    clock: FixedClock,
    mutation: str,
    input: dict[str, Any],
) -> None:
    async with gateway(settings, dynamo, clock) as client:
        first = await send(client, clock, mutation, input)
        written = await effects(dynamodb, tables)
        clock.advance(timedelta(seconds=5))  # a later retry: the rows' own times would differ
        again = await send(client, clock, mutation, input)

    assert first.status_code == 200, first.text
    assert "errors" not in first.json()
    assert "Idempotency-Replayed" not in first.headers
    assert again.status_code == 200
    assert again.headers["Idempotency-Replayed"] == "true"
    assert again.content == first.content
    assert await effects(dynamodb, tables) == written
    assert sum(len(items) for items in written.values()) >= 1
    assert len(await records(dynamodb, tables)) == 1
    if mutation == "evaluateBalanceAlert":
        assert again.json()["data"][mutation]["decision"] == "SENT"


async def test_the_key_with_other_variables_is_422_and_runs_nothing(
    settings: Settings,
    dynamo: Dynamo,
    dynamodb: DynamoDBClient,
    tables: TableNames,
    clock: FixedClock,
) -> None:
    async with gateway(settings, dynamo, clock) as client:
        await send(client, clock, "markInsightsRefresh", {"userId": "u-1"})
        written = await effects(dynamodb, tables)
        reused = await send(client, clock, "markInsightsRefresh", {"userId": "u-2"})

    assert reused.status_code == 422
    assert reused.json()["errors"][0]["extensions"] == {"code": "IDEMPOTENCY_KEY_REUSED"}
    assert await effects(dynamodb, tables) == written


async def test_the_fingerprint_is_the_document_as_parsed_not_its_spacing(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    token = writer_token(clock)
    text = document("markInsightsRefresh")
    spaced = "# a comment\n" + text.replace(" ", "   ")
    async with gateway(settings, dynamo, clock) as client:
        answers = [
            await client.post(
                "/graphql",
                json={"query": query, "variables": {"input": {"userId": "u-1"}}},
                headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "plain-token"},
            )
            for query in (text, spaced)
        ]

    assert [a.status_code for a in answers] == [200, 200]
    assert answers[1].headers["Idempotency-Replayed"] == "true"


async def test_one_key_of_two_principals_is_two_keys(
    settings: Settings,
    dynamo: Dynamo,
    dynamodb: DynamoDBClient,
    tables: TableNames,
    clock: FixedClock,
) -> None:
    async with gateway(settings, dynamo, clock) as client:
        one = await send(client, clock, "recordPaydayPrediction", payday_input(), sub="svc-a")
        other = await send(client, clock, "recordPaydayPrediction", payday_input(), sub="svc-b")

    assert "Idempotency-Replayed" not in one.headers
    assert "Idempotency-Replayed" not in other.headers
    assert len((await effects(dynamodb, tables))["datacapture"]) == 2
    assert len(await records(dynamodb, tables)) == 2


async def test_ten_concurrent_copies_with_one_key_write_one_effect(
    atomic: AtomicBackend, clock: FixedClock
) -> None:
    # On moto served one request at a time (tests/conftest.py `atomic`): the copies race
    # to one TransactWriteItems each, conditioned on the key's record being absent, and on
    # moto's threaded server a transaction holds no lock (it checks and writes item by item
    # and restores copied tables on a failure), so two copies could both pass, or one's
    # restore undo another's write; DynamoDB never lets either happen. Served one request
    # at a time, each transaction is atomic (support/serial_moto.py).
    async with gateway(atomic.settings, atomic.dynamo, clock) as client:
        answers = await asyncio.gather(
            *(send(client, clock, "recordPaydayPrediction", payday_input()) for _ in range(10))
        )

    assert {a.status_code for a in answers} == {200}
    assert len({a.content for a in answers}) == 1
    assert sum("Idempotency-Replayed" not in a.headers for a in answers) == 1
    # One row, and one capture event: not ten.
    assert len((await effects(atomic.dynamodb, atomic.tables))["datacapture"]) == 1
    assert len(await records(atomic.dynamodb, atomic.tables)) == 1


async def test_a_refusal_is_not_recorded_and_the_corrected_request_runs(
    settings: Settings,
    dynamo: Dynamo,
    dynamodb: DynamoDBClient,
    tables: TableNames,
    clock: FixedClock,
) -> None:
    bad = {"userId": "u-1", "paveRequestId": "req-4", "page": -1}
    async with gateway(settings, dynamo, clock) as client:
        refused = await send(client, clock, "recordLastPage", bad)
        corrected = await send(client, clock, "recordLastPage", {**bad, "page": 3})

    assert refused.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert corrected.status_code == 200
    assert corrected.json()["data"]["recordLastPage"]["page"] == 3
    assert "Idempotency-Replayed" not in corrected.headers
    assert len(await records(dynamodb, tables)) == 1


async def test_a_locked_evaluation_is_not_recorded(
    settings: Settings,
    dynamo: Dynamo,
    dynamodb: DynamoDBClient,
    tables: TableNames,
    clock: FixedClock,
    alerts_on: None,
) -> None:
    from loaders.lock import LockClient

    other_owner = LockClient(dynamo)
    lock = await other_owner.acquire("balance-alert:user_id:u-1")
    async with gateway(settings, dynamo, clock) as client:
        locked = await send(client, clock, "evaluateBalanceAlert", ALERT)
        await other_owner.release(lock)
        sent = await send(client, clock, "evaluateBalanceAlert", ALERT)

    assert locked.json()["data"]["evaluateBalanceAlert"]["decision"] == "LOCKED"
    assert sent.json()["data"]["evaluateBalanceAlert"]["decision"] == "SENT"
    assert "Idempotency-Replayed" not in sent.headers


async def test_decisions_that_write_nothing_are_recorded_and_replayed(
    settings: Settings,
    dynamo: Dynamo,
    dynamodb: DynamoDBClient,
    tables: TableNames,
    clock: FixedClock,
) -> None:
    async with gateway(settings, dynamo, clock) as client:
        first = await send(client, clock, "evaluateBalanceAlert", ALERT)
        # The threshold set afterwards changes nothing for the retry: it is the first answer.
        await dynamo.put(Table.BALANCE_SETTINGS, {"user_id": "u-1", "low_balance_alert": 50})
        again = await send(client, clock, "evaluateBalanceAlert", ALERT)

    assert first.json()["data"]["evaluateBalanceAlert"]["decision"] == "ALERTS_OFF"
    assert again.content == first.content
    assert again.headers["Idempotency-Replayed"] == "true"
    assert (await effects(dynamodb, tables))["pave"] == []


async def test_a_keyed_batch_keys_each_operation_and_a_header_on_a_batch_is_400(
    settings: Settings,
    dynamo: Dynamo,
    dynamodb: DynamoDBClient,
    tables: TableNames,
    clock: FixedClock,
) -> None:
    def operation(user: str, key: str) -> dict[str, Any]:
        return {
            "query": document("markInsightsRefresh"),
            "variables": {"input": {"userId": user}},
            "extensions": {"idempotencyKey": key},
        }

    batch = [operation("u-1", "k-a"), operation("u-2", "k-b")]
    auth = {"Authorization": f"Bearer {writer_token(clock)}"}
    async with gateway(settings, dynamo, clock) as client:
        first = await client.post("/graphql", json=batch, headers=auth)
        again = await client.post("/graphql", json=batch, headers=auth)
        with_header = await client.post(
            "/graphql", json=batch, headers={**auth, "Idempotency-Key": "k-c"}
        )

    assert first.status_code == 200
    assert [one.get("extensions") for one in first.json()] == [None, None]
    assert [one["extensions"] for one in again.json()] == [{"idempotencyReplayed": True}] * 2
    assert [one["data"] for one in again.json()] == [one["data"] for one in first.json()]
    assert len(await records(dynamodb, tables)) == 2
    assert with_header.status_code == 400


@pytest.mark.parametrize(
    "header", ['""', "x" * 256, '"caf\\u00e9"', '"unterminated', '"a\\b"', "é"]
)
async def test_a_malformed_key_is_400_and_writes_nothing(
    settings: Settings,
    dynamo: Dynamo,
    dynamodb: DynamoDBClient,
    tables: TableNames,
    clock: FixedClock,
    header: str,
) -> None:
    async with gateway(settings, dynamo, clock) as client:
        answer = await client.post(
            "/graphql",
            json={
                "query": document("markInsightsRefresh"),
                "variables": {"input": {"userId": "u-1"}},
            },
            headers={  # type: ignore[arg-type]  # a header's raw bytes
                "Authorization": f"Bearer {writer_token(clock)}",
                "Idempotency-Key": header.encode(),
            },
        )

    assert answer.status_code == 400
    assert answer.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert (await effects(dynamodb, tables))["pave"] == []


async def test_required_mode_refuses_an_unkeyed_mutation_before_anything_runs(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, dynamodb_calls: CallCounter
) -> None:
    async with gateway(settings, dynamo, clock, idempotency="required") as client:
        dynamodb_calls.reset()
        unkeyed = await send(client, clock, "markInsightsRefresh", {"userId": "u-1"}, key=None)
        calls = dynamodb_calls.total
        keyed = await send(client, clock, "markInsightsRefresh", {"userId": "u-1"})
        query = await client.post(
            "/graphql",
            json={"query": '{ user(id: "u-1") { id } }'},
            headers={"Authorization": f"Bearer {writer_token(clock)}"},
        )
        metrics = (await client.get("/metrics")).text

    assert unkeyed.status_code == 400
    assert unkeyed.json()["errors"][0]["extensions"] == {"code": "IDEMPOTENCY_KEY_REQUIRED"}
    assert calls == 0
    assert keyed.status_code == 200
    assert query.status_code == 200
    assert value(metrics, "gateway_idempotency_total", outcome="required") == 1
    assert value(metrics, "gateway_idempotency_total", outcome="first") == 1


async def test_another_replica_replays_the_first_answer(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway(settings, dynamo, clock) as one:
        first = await send(one, clock, "recordPaydayPrediction", payday_input())
    async with gateway(settings, dynamo, clock) as another:
        again = await send(another, clock, "recordPaydayPrediction", payday_input())

    assert again.headers["Idempotency-Replayed"] == "true"
    assert again.content == first.content


async def test_a_record_past_its_ttl_is_absent_and_the_key_runs_again(
    settings: Settings,
    dynamo: Dynamo,
    dynamodb: DynamoDBClient,
    tables: TableNames,
    clock: FixedClock,
) -> None:
    async with gateway(settings, dynamo, clock, idempotency_ttl_seconds=60) as client:
        await send(client, clock, "recordPaydayPrediction", payday_input())
        clock.advance(
            timedelta(seconds=61)
        )  # DynamoDB has not deleted it: expiry is read, not awaited
        again = await send(client, clock, "recordPaydayPrediction", payday_input())

    assert "Idempotency-Replayed" not in again.headers
    assert len((await effects(dynamodb, tables))["datacapture"]) == 2


async def test_the_transactions_capacity_is_in_the_cost_extension(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway(settings, dynamo, clock) as client:
        answer = await send(
            client,
            clock,
            "recordPaydayPrediction",
            payday_input(),
            headers={"X-Insight-Cost": "1"},
        )

    cost = answer.json()["extensions"]["cost"]
    # The record's look-up, then one transaction: the row, the event and the record.
    assert cost["dynamodbCalls"] == 2
    assert cost["writeCapacityUnits"] > 0
