"""The process's DynamoDB client: its pool, the in-flight cap and the fast parser agree."""

from __future__ import annotations

from gateway.resources import USER_AGENT, open_dynamo
from gateway.settings import Settings
from loaders.wire_parser import FastResponseParserFactory


async def test_the_cap_is_the_pool_and_the_parser_is_the_fast_one(endpoint_url: str) -> None:
    settings = Settings(dynamodb_endpoint_url=endpoint_url, max_pool_connections=17)
    async with open_dynamo(settings) as dynamo:
        assert dynamo.max_concurrency == 17
        assert dynamo.client.meta.config.max_pool_connections == 17  # type: ignore[attr-defined]
        factory = dynamo.client._endpoint._response_parser_factory  # type: ignore[attr-defined]
        assert isinstance(factory, FastResponseParserFactory)
        assert dynamo.client.meta.config.user_agent.startswith(USER_AGENT)  # type: ignore[attr-defined]
