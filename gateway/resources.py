"""What the process shares between requests: the one aioboto3 client and its `Dynamo`."""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextlib import asynccontextmanager, contextmanager
from importlib.metadata import version
from typing import cast

import aioboto3
from aiobotocore.config import AioConfig

from gateway.settings.service import ServiceSettings
from loaders.dynamodb import BOTOCORE, LEAN, Dynamo
from loaders.live.streams import StreamsApi
from loaders.wire.endpoint import STANDARD, WireSettings, default_verify

LOG = logging.getLogger("gateway.dynamodb")

#: The package's own version (pyproject.toml's, as installed), never one written here by hand.
USER_AGENT = f"insight-gateway/{version('insight-gateway')}"

#: Seconds a pooled connection may stay idle before it is closed. aiobotocore's 12 s closes
#: a dashboard's connections between two refreshes, and each new one costs a TCP (and TLS)
#: handshake on the next burst; under the 60 s idle timeout common to load balancers.
KEEPALIVE_SECONDS = 55.0


def client_config(settings: ServiceSettings) -> AioConfig:
    # botocore's default pool of 10 connections would queue a wide request; the pool and
    # Dynamo's in-flight cap are the same number.
    # Standard retry mode: jittered exponential backoff on throttling, 5xx and connection
    # errors, bounded attempts, and a client-side retry quota so that an outage does not
    # multiply the load. The timeouts are per attempt; the request deadline bounds the sum.
    return AioConfig(
        max_pool_connections=settings.max_pool_connections,
        # A fixed User-Agent: botocore's own is rebuilt (and regex-sanitised) twice a call,
        # ~70 us, which the bench's profile showed at 100 users' 300 calls.
        user_agent=USER_AGENT,
        retries={"mode": "standard", "total_max_attempts": settings.dynamodb_max_attempts},
        connect_timeout=settings.dynamodb_connect_timeout_seconds,
        read_timeout=settings.dynamodb_read_timeout_seconds,
        # botocore walks every parameter against the operation's model before each call; the
        # gateway's parameters are built by its own code, and DynamoDB validates them anyway:
        # a bad one comes back as a ValidationException, which `Dynamo` raises as a
        # DynamoDBFailure naming the operation, DynamoDB's message in its cause.
        parameter_validation=False,
        connector_args={"keepalive_timeout": KEEPALIVE_SECONDS},
    )


def wire_settings(settings: ServiceSettings, endpoint_url: str) -> WireSettings:
    """The lean path's configuration: `client_config`'s values, from the same settings
    (`endpoint_url`: the client's, botocore's pick when the settings name none; then
    botocore sends to an account-ID endpoint when the credentials carry an account)."""
    return WireSettings(
        endpoint_url=endpoint_url,
        region=settings.region,
        user_agent=USER_AGENT,
        retry_mode=STANDARD,
        pool_size=settings.max_pool_connections,
        connect_timeout=settings.dynamodb_connect_timeout_seconds,
        read_timeout=settings.dynamodb_read_timeout_seconds,
        keepalive=KEEPALIVE_SECONDS,
        verify=default_verify(),
        # botocore's ruleset picks an account's endpoint only for the plain regional one
        # (not FIPS, not dual-stack, not a configured URL), unless the mode is disabled.
        account_endpoints=endpoint_url == f"https://dynamodb.{settings.region}.amazonaws.com"
        and settings.dynamodb_endpoint_url is None
        and os.environ.get("AWS_ACCOUNT_ID_ENDPOINT_MODE", "preferred") != "disabled",
    )


#: Allocations between two young collections (CPython's default is 700). A request of 100
#: full users keeps ~10^6 objects alive (items, rows, answers): the collector walked them a
#: third of the worker's CPU at 700, 9% at 50,000, and at 200,000 still a fifth (several young
#: passes a request, promoting them to the older ones): `docs/performance.md`. Garbage is
#: freed by reference counting: neither a request nor a socket leaves a cycle (tests/schema/
#: test_executor_cycles.py, tests/gateway/http/test_bounded_head.py). Cyclic garbage waits
#: for a young pass, so this bound is what any new cycle could hold.
YOUNG_COLLECTION_THRESHOLD = 500_000


@contextmanager
def settled_collector() -> Iterator[None]:
    """For a started worker: everything alive now (the schema, botocore's models, the
    client) is frozen out of the collector's walks, since it lives as long as the worker
    (a full collection walking it was a fifth of the client's CPU on large answers), and
    young collections are rarer. Undone on the way out."""
    thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


@asynccontextmanager
async def open_dynamo(settings: ServiceSettings) -> AsyncIterator[Dynamo]:
    """Open the process's DynamoDB client (creating one costs hundreds of milliseconds, so it
    is done once, in the lifespan) and close it on the way out."""
    session = aioboto3.Session()
    async with session.client(
        "dynamodb",
        endpoint_url=settings.dynamodb_endpoint_url,
        region_name=settings.region,
        config=client_config(settings),
    ) as client:
        wire = wire_settings(settings, client.meta.endpoint_url)
        refusal = wire.refusal()
        call_path = settings.dynamodb_call_path
        if refusal is not None and call_path == LEAN:
            LOG.warning(
                "DynamoDB reads go through botocore: the lean path cannot follow %s", refusal
            )
            call_path = BOTOCORE
        # The lean path signs with the session's credentials (the client's default chain,
        # resolved through botocore's public API; botocore refreshes them).
        # (aioboto3's stubs type the coroutine as its result.)
        credentials = await cast("Awaitable[object]", session.get_credentials())
        yield Dynamo(
            client,
            settings.tables,
            max_concurrency=settings.max_pool_connections,
            unprocessed_deadline=settings.dynamodb_unprocessed_deadline_seconds,
            call_path=call_path,
            wire=wire,
            credentials=credentials,
        )


@asynccontextmanager
async def open_streams(settings: ServiceSettings) -> AsyncIterator[StreamsApi]:
    """Open the process's DynamoDB Streams client, on the DynamoDB client's endpoint, region
    and credentials (the same default chain), once, in the lifespan. Few attempts: the
    stream readers back off and retry themselves."""
    config = AioConfig(
        max_pool_connections=16,
        user_agent=USER_AGENT,
        retries={"mode": "standard", "total_max_attempts": 2},
        connect_timeout=settings.dynamodb_connect_timeout_seconds,
        read_timeout=settings.dynamodb_read_timeout_seconds,
        connector_args={"keepalive_timeout": KEEPALIVE_SECONDS},
    )
    async with aioboto3.Session().client(
        "dynamodbstreams",
        endpoint_url=settings.dynamodb_endpoint_url,
        region_name=settings.region,
        config=config,
    ) as client:
        yield cast("StreamsApi", client)
