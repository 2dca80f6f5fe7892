"""Local DynamoDB tooling behind the CLI: create the tables, seed the demo users.

These talk to a DynamoDB endpoint given explicitly (DynamoDB Local, moto, the embedded one);
in AWS the tables belong to the Insight Service's infrastructure. Their client gives up within
seconds on an endpoint that does not answer, where the gateway's own client retries.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import cast

import aioboto3
from aiobotocore.config import AioConfig
from aiobotocore.credentials import AioCredentials
from botocore.exceptions import BotoCoreError, ClientError

from gateway.cli.demo import seed_demo
from gateway.settings import Settings
from loaders.dynamodb import Dynamo, DynamoDBFailure
from loaders.errors import DynamoDBUnavailable
from loaders.tables import create_missing_tables

_ADMIN_CONFIG = AioConfig(
    connect_timeout=3, read_timeout=20, retries={"mode": "standard", "max_attempts": 2}
)


class AdminError(Exception):
    """A local-DynamoDB task failed; the message says why and what to do."""


async def create_local_tables(settings: Settings) -> list[str]:
    """Create the tables that are missing at the configured endpoint; the names created."""
    async with _dynamo(settings) as dynamo:
        try:
            return await create_missing_tables(dynamo.client, settings.tables)
        except (BotoCoreError, OSError) as error:
            raise _unreachable(settings, error) from error
        except ClientError as error:
            raise AdminError(f"DynamoDB refused to create the tables: {_code(error)}") from error


async def seed_local_demo(settings: Settings, now: datetime) -> int:
    """Write the demo users' items at the configured endpoint; how many items."""
    async with _dynamo(settings) as dynamo:
        try:
            return await seed_demo(dynamo, now, settings)
        except DynamoDBUnavailable as error:
            raise _unreachable(settings, error.cause or error) from error
        except DynamoDBFailure as error:
            raise AdminError(
                f"DynamoDB refused the demo items ({error}); do the tables exist? "
                "Run `insight-gateway create-tables` first"
            ) from error


@asynccontextmanager
async def _dynamo(settings: Settings) -> AsyncIterator[Dynamo]:
    session = aioboto3.Session()
    # A local DynamoDB takes any credentials; only ask for none when some are configured.
    # aioboto3 hands back aiobotocore's coroutine here, whatever its type stubs say.
    found = await cast("Awaitable[object | None]", session.get_credentials())
    local_key = None if found is not None else "local"
    # The lean path signs with these too (it takes no client's private credentials).
    credentials = found or AioCredentials("local", "local")
    async with session.client(
        "dynamodb",
        endpoint_url=settings.dynamodb_endpoint_url,
        region_name=settings.region,
        config=_ADMIN_CONFIG,
        aws_access_key_id=local_key,
        aws_secret_access_key=local_key,
    ) as client:
        yield Dynamo(client, settings.tables, credentials=credentials)


def _unreachable(settings: Settings, error: BaseException) -> AdminError:
    return AdminError(f"cannot reach DynamoDB at {settings.dynamodb_endpoint_url}: {error}")


def _code(error: ClientError) -> str:
    code: str = error.response.get("Error", {}).get("Code", "unknown error")
    return code
