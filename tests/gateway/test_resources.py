"""The process's DynamoDB client: its pool, the in-flight cap and botocore's own parser."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from aiobotocore.parsers import AioResponseParserFactory
from botocore.exceptions import ClientError

from gateway.resources import KEEPALIVE_SECONDS, USER_AGENT, open_dynamo
from gateway.settings import Settings
from loaders.dynamodb import DynamoDBFailure
from loaders.tables import TableNames


async def test_the_cap_is_the_pool_and_the_parser_is_botocores_own(endpoint_url: str) -> None:
    settings = Settings(dynamodb_endpoint_url=endpoint_url, max_pool_connections=17)
    async with open_dynamo(settings) as dynamo:
        assert dynamo.max_concurrency == 17
        assert dynamo.client.meta.config.max_pool_connections == 17  # type: ignore[attr-defined]
        factory = dynamo.client._endpoint._response_parser_factory  # type: ignore[attr-defined]
        assert type(factory) is AioResponseParserFactory
        assert dynamo.client.meta.config.user_agent.startswith(USER_AGENT)  # type: ignore[attr-defined]


def test_the_user_agent_names_the_packages_version() -> None:
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    version = tomllib.loads(pyproject.read_text())["project"]["version"]
    assert f"insight-gateway/{version}" == USER_AGENT


async def test_botocore_skips_its_validation_and_the_errors_stay_clear(
    endpoint_url: str, tables: TableNames
) -> None:
    settings = Settings(dynamodb_endpoint_url=endpoint_url, tables=tables)
    async with open_dynamo(settings) as dynamo:
        config = dynamo.client.meta.config
        assert config.connector_args["keepalive_timeout"] == KEEPALIVE_SECONDS  # type: ignore[attr-defined]
        # Values of the right types that DynamoDB refuses: botocore sends them.
        with pytest.raises(
            DynamoDBFailure, match="get_item refused: ValidationException"
        ) as refused:
            await dynamo.call("get_item", TableName=tables.pave, Key={"PK": {"S": "a"}})
        assert isinstance(refused.value.__cause__, ClientError)
        # A value of the wrong shape cannot be sent: botocore's own report names it.
        with pytest.raises(DynamoDBFailure, match=r"get_item not sent: .*Key\.PK") as unsent:
            await dynamo.call("get_item", TableName=tables.pave, Key={"PK": "not-wire"})
        assert isinstance(unsent.value.__cause__, AttributeError)
