"""Parsing and validation are cached by query text; the query limits still refuse first."""

from __future__ import annotations

from typing import Any

import pytest
from strawberry.extensions.parser_cache import _get_parse_cache

from gateway.settings import Settings
from schema.extensions import query_limits
from schema.extensions.document_cache import DOCUMENT_CACHE_SIZE, cached_validate_document
from schema.prepared import PreparedOperations
from schema.root import build_schema
from tests.schema.conftest import Execute


async def test_a_repeated_query_is_parsed_and_validated_once(execute: Execute) -> None:
    query = '{ user(id: "cache-1") { id } }'
    # The lru_cache-wrapped functions the extensions share across requests.
    parse: Any = _get_parse_cache(DOCUMENT_CACHE_SIZE)
    validate: Any = cached_validate_document
    before = parse.cache_info(), validate.cache_info()
    for _ in range(3):
        result = await execute(query)
        assert result.errors is None
    after = parse.cache_info(), validate.cache_info()
    assert after[0].misses - before[0].misses == 1
    assert after[0].hits - before[0].hits == 2
    assert after[1].misses - before[1].misses == 1
    assert after[1].hits - before[1].hits == 2


async def test_an_invalid_query_stays_invalid_from_the_cache(execute: Execute) -> None:
    for _ in range(2):
        result = await execute('{ user(id: "u") { nope } }')
        assert result.errors is not None
        assert "nope" in result.errors[0].message


@pytest.mark.parametrize("attempt", [1, 2])
async def test_a_query_limit_still_refuses_before_the_cached_validation(
    attempt: int,
) -> None:
    settings = Settings(max_query_depth=2)
    schema = build_schema(query_limits(settings.query_limits, PreparedOperations()))
    result = await schema.execute('{ user(id: "u") { payday { pave { payday } } } }')
    assert result.errors is not None
    [error] = result.errors
    assert error.extensions is not None
    assert error.extensions["code"] == "QUERY_TOO_COMPLEX"
