"""What the keyed-mutation tests share: the app with its lock client, a keyed POST, and the
tables' items (the effects a mutation left)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import httpx

from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.idempotency import Answer, Idempotency
from gateway.operations.operation import Operation
from gateway.operations.payload import payload_of
from gateway.settings import Settings
from gateway.state import Resources
from loaders.codec import from_wire
from loaders.dynamodb import Dynamo
from loaders.lock import LockClient
from loaders.tables import Table, TableNames
from schema.context import build_context
from schema.principal import WRITER, Principal
from schema.root import build_schema
from support.fixed_clock import FixedClock
from support.http_client import SECRET
from tests.schema.test_mutations import WRITER_SERVICE, document

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


@asynccontextmanager
async def gateway(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, **overrides: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """The app as its lifespan leaves it: the suite's Dynamo and one process lock client."""
    configured = dataclasses.replace(settings, auth_hs256_secret=SECRET, **overrides)
    app = create_app(configured, clock=clock)
    app.state.resources = Resources(dynamo, locks=LockClient(dynamo))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        client.app = app  # type: ignore[attr-defined]
        yield client


def writer_token(clock: FixedClock, sub: str = "svc-payday") -> str:
    return mint_token(SECRET, sub, [WRITER], timedelta(hours=1), clock)


async def send(
    client: httpx.AsyncClient,
    clock: FixedClock,
    mutation: str,
    input: Any,
    *,
    key: str | None = "key-1",
    sub: str = "svc-payday",
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    """POST one mutation, with `key` in the Idempotency-Key header (as an sf-string)."""
    sent = {"Authorization": f"Bearer {writer_token(clock, sub)}", **(headers or {})}
    if key is not None:
        sent["Idempotency-Key"] = f'"{key}"'
    return await client.post(
        "/graphql",
        json={"query": document(mutation), "variables": {"input": input}},
        headers=sent,
    )


async def effects(dynamodb: DynamoDBClient, tables: TableNames) -> dict[str, list[dict[str, Any]]]:
    """Every item of the tables a mutation writes, by table (the locks' and the keys' apart)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for table in (Table.PAVE, Table.INCOME_DETECTION, Table.DATACAPTURE):
        page = await dynamodb.scan(TableName=tables.name(table), ConsistentRead=True)
        found[table.value] = [from_wire(item) for item in page.get("Items", [])]
    return found


async def records(dynamodb: DynamoDBClient, tables: TableNames) -> list[dict[str, Any]]:
    page = await dynamodb.scan(TableName=tables.idempotency, ConsistentRead=True)
    return [from_wire(item) for item in page.get("Items", [])]


async def keyed_mutation(
    dynamo: Dynamo,
    settings: Settings,
    clock: FixedClock,
    mutation: str,
    input: Any,
    *,
    key: str = "key-1",
    principal: Principal = WRITER_SERVICE,
) -> Answer:
    """One keyed mutation through the schema and the key's record, without HTTP."""
    keys = Idempotency.from_settings(settings)
    text, variables = document(mutation), {"input": input}
    context = build_context(dynamo=dynamo, principal=principal, clock=clock)
    sent = Operation(text, variables, None, {"idempotencyKey": key})
    keyed = keys.keyed(sent, text, principal, is_mutation=True)
    assert keyed is not None
    schema = build_schema()

    async def execute() -> Answer:
        result = await schema.execute(text, variable_values=variables, context_value=context)
        return Answer(payload_of(result, ""), 200, source=result)

    return await keys.run(context, keyed, execute)
