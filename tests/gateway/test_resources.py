"""The process's DynamoDB client: its pool, the in-flight cap and botocore's own parser."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from aiobotocore.parsers import AioResponseParserFactory
from botocore.exceptions import ClientError

from gateway.resources import KEEPALIVE_SECONDS, USER_AGENT, open_dynamo, wire_settings
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
        with pytest.raises(DynamoDBFailure, match="refused the keys of a get_item") as refused:
            await dynamo.call("get_item", TableName=tables.pave, Key={"PK": {"S": "a"}})
        assert isinstance(refused.value.__cause__, ClientError)
        # A value of the wrong shape cannot be sent: botocore's own report names it.
        with pytest.raises(DynamoDBFailure, match=r"get_item not sent: .*Key\.PK") as unsent:
            await dynamo.call("get_item", TableName=tables.pave, Key={"PK": "not-wire"})
        assert isinstance(unsent.value.__cause__, AttributeError)


async def test_the_lean_path_is_configured_with_the_clients_own_values(endpoint_url: str) -> None:
    settings = Settings(
        dynamodb_endpoint_url=endpoint_url,
        max_pool_connections=17,
        dynamodb_max_attempts=4,
        dynamodb_connect_timeout_seconds=2.5,
        dynamodb_read_timeout_seconds=3.5,
    )
    async with open_dynamo(settings) as dynamo:
        assert dynamo._lean is not None
        wire = dynamo._lean.wire
        config: Any = dynamo.client.meta.config
        assert (wire.endpoint_url, wire.region) == (endpoint_url, dynamo.client.meta.region_name)
        # The attempts are the client's: the lean path retries through its retry handler.
        assert config.retries["total_max_attempts"] == 4
        assert wire.retry_mode == config.retries["mode"]
        assert wire.pool_size == config.max_pool_connections == 17
        assert (wire.connect_timeout, wire.read_timeout) == (2.5, 3.5)
        assert (config.connect_timeout, config.read_timeout) == (2.5, 3.5)
        assert wire.keepalive == config.connector_args["keepalive_timeout"]
        assert config.user_agent.startswith(wire.user_agent)
        # Configured with an endpoint, botocore never picks an account's.
        assert not wire.account_endpoints


async def test_an_endpoint_with_a_path_is_said_at_start_and_read_through_botocore(
    endpoint_url: str, tables: TableNames, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(dynamodb_endpoint_url=endpoint_url + "/", tables=tables)
    async with open_dynamo(settings) as dynamo:
        assert dynamo._lean is not None
    assert not caplog.records
    settings = Settings(dynamodb_endpoint_url=endpoint_url + "/dynamodb", tables=tables)
    with caplog.at_level("WARNING", logger="gateway.dynamodb"):
        async with open_dynamo(settings) as dynamo:
            assert dynamo._lean is None
    [line] = [record.getMessage() for record in caplog.records]
    assert line == (
        "DynamoDB reads go through botocore: the lean path cannot follow "
        f"endpoint '{endpoint_url}/dynamodb' has a path"
    )


@pytest.mark.parametrize(
    ("configured", "resolved", "mode", "by_account"),
    [
        (None, "https://dynamodb.eu-west-1.amazonaws.com", "preferred", True),
        (None, "https://dynamodb.eu-west-1.amazonaws.com", "disabled", False),
        (None, "https://dynamodb-fips.eu-west-1.amazonaws.com", "preferred", False),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000", "preferred", False),
    ],
)
def test_account_endpoints_where_botocore_picks_them(
    configured: str | None,
    resolved: str,
    mode: str,
    by_account: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_ACCOUNT_ID_ENDPOINT_MODE", mode)
    settings = Settings(dynamodb_endpoint_url=configured, region="eu-west-1")
    wire = wire_settings(settings, resolved)
    assert wire.account_endpoints is by_account
    expected = "https://123456789012.ddb.eu-west-1.amazonaws.com" if by_account else resolved
    assert wire.url_for("123456789012") == expected
