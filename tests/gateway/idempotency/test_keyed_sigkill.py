"""A replica SIGKILLed between the commit and the answer (SPEC section 9): two gateway
processes over moto's server; replica A's TransactWriteItems reaches moto and commits, the
fault proxy holds DynamoDB's answer, and A is killed while it waits. The client, which heard
nothing, sends the same request with the same key to replica B: it answers the answer A
committed with its effect, as a replay, and the tables hold exactly one effect."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import orjson
import pytest

from gateway.auth.tokens import mint_token
from loaders.dynamodb import Dynamo
from loaders.idempotency import Recorded
from loaders.tables import Table, TableNames
from schema.clock import SystemClock
from schema.principal import WRITER
from support.faults import ApplyThenHang, FaultProxy
from support.metrics_text import value
from support.processes import free_port
from tests.environment import table_variables
from tests.gateway.idempotency.keyed_client import effects, records
from tests.schema.test_mutations import document, payday_input

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

SECRET = "sigkill-tests-secret-0123456789abcdef"
ALERT = {"userId": "u-1", "availableBalance": "10", "currentBalance": "12"}
#: Every wait of the test is bounded by this.
SECONDS = 30.0


class Replica:
    """`python -m gateway.cli.main serve` as a child process, on its own port."""

    def __init__(self, endpoint_url: str, tables: TableNames, log: Path) -> None:
        self.port = free_port()
        env = dict(os.environ)
        env.update(table_variables(tables))
        env.update(
            INSIGHT_DYNAMODB_ENDPOINT_URL=endpoint_url,
            INSIGHT_AUTH_HS256_SECRET=SECRET,
            # Held answers are waited on far longer than the test takes to kill the replica.
            INSIGHT_DYNAMODB_READ_TIMEOUT_SECONDS="30",
        )
        self.log = log
        with log.open("wb") as output:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "gateway.cli.main", "serve", "--port", str(self.port)],
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
            )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def wait_up(self) -> None:
        """Until /healthz answers (async: the fault proxy answers from this loop)."""
        deadline = time.monotonic() + SECONDS
        async with httpx.AsyncClient() as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"the replica exited: {self.log.read_text()[-2000:]}")
                try:
                    if (await client.get(self.url + "/healthz", timeout=1)).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
        raise RuntimeError(f"the replica did not start in {SECONDS} s")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=SECONDS)


@pytest.fixture
def replicas(tables: TableNames, tmp_path: Path) -> Iterator[Callable[[str], Replica]]:
    started: list[Replica] = []

    def start(endpoint_url: str) -> Replica:
        replica = Replica(endpoint_url, tables, tmp_path / f"replica-{len(started)}.log")
        started.append(replica)
        return replica

    yield start
    for replica in started:
        replica.kill()


async def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {SECONDS} s: {what}")
        await asyncio.sleep(0.02)


CASES = [
    ("recordPaydayPrediction", payday_input()),
    ("evaluateBalanceAlert", ALERT),
]


@pytest.mark.parametrize(("mutation", "input"), CASES, ids=[m for m, _ in CASES])
async def test_a_replica_killed_between_commit_and_answer_leaves_one_effect_and_its_answer(
    replicas: Callable[[str], Replica],
    proxy: FaultProxy,
    endpoint_url: str,
    dynamo: Dynamo,
    dynamodb: DynamoDBClient,
    tables: TableNames,
    mutation: str,
    input: dict[str, Any],
) -> None:
    await dynamo.put(Table.BALANCE_SETTINGS, {"user_id": "u-1", "low_balance_alert": 50})
    a, b = replicas(proxy.endpoint_url), replicas(endpoint_url)
    await asyncio.gather(a.wait_up(), b.wait_up())
    token = mint_token(SECRET, "svc-payday", [WRITER], timedelta(hours=1), SystemClock())
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": '"kill-1"'}
    body = {"query": document(mutation), "variables": {"input": input}}
    proxy.inject("TransactWriteItems", ApplyThenHang())

    async with httpx.AsyncClient(timeout=SECONDS) as client:
        sent = asyncio.create_task(client.post(a.url + "/graphql", json=body, headers=headers))
        await until(lambda: proxy.applied["TransactWriteItems"] == 1 or sent.done(), "a commit")
        assert not sent.done(), sent.result().text
        # Committed in moto, its answer held: A dies before it can say anything.
        a.kill()
        with pytest.raises(httpx.TransportError):
            await sent
        retried = await client.post(b.url + "/graphql", json=body, headers=headers)
        again = await client.post(b.url + "/graphql", json=body, headers=headers)
        metrics = (await client.get(b.url + "/metrics")).text

    assert proxy.received["TransactWriteItems"] == 1
    # B ran nothing: both its answers were the record's.
    assert value(metrics, "gateway_idempotency_total", outcome="replayed") == 2
    assert value(metrics, "gateway_idempotency_total", outcome="first") == 0
    assert retried.status_code == 200
    assert retried.headers["Idempotency-Replayed"] == "true"
    [record] = await records(dynamodb, tables)
    first = Recorded.from_item(record)
    # The answer A committed with the effect, byte for byte, as B's replay.
    assert orjson.loads(first.answer) == retried.json()
    assert again.content == retried.content
    written = await effects(dynamodb, tables)
    answer = retried.json()["data"][mutation]
    if mutation == "recordPaydayPrediction":
        # The row and its capture event, once each, and the answer is the one made with
        # them: the same instant (A's), not one made afresh by B.
        [capture] = written["datacapture"]
        [row] = written["pave"]
        assert (row["PK"], row["SK"]) == ("PAYDAY#u-1", "PREDICTION")
        assert capture["event_name"] == "PAYDAY_PREDICTION"
        assert answer["createdDate"] == row["created_date"] == capture["created_at"]
        assert answer["loanId"] == row["loan_id"] == input["loanId"]
    else:
        # SENT, not COOLDOWN: the alert the caller never heard of is not lost; one row.
        assert answer["decision"] == "SENT"
        [alert] = [item for item in written["pave"] if item.get("type") == "alert"]
        assert alert["alert_sent"] is True
        assert answer["alert"]["updatedDate"] == alert["updated_date"]
        assert len(written["pave"]) == 1
        assert written["datacapture"] == []
    assert written["income_detection"] == []
