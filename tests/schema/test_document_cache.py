"""Parsing and validation are cached by query text; the query limits still refuse first."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import parse as parse_document
from strawberry.extensions.parser_cache import _get_parse_cache

from gateway.settings import Settings
from schema.extensions import request_extensions
from schema.extensions.document_cache import (
    DOCUMENT_CACHE_SIZE,
    ValidatedDocuments,
    cached_validate_document,
)
from schema.prepared import PreparedOperations
from schema.root import build_schema
from tests.schema.conftest import Execute


async def test_a_repeated_query_is_parsed_and_validated_once(execute: Execute) -> None:
    query = '{ user(id: "cache-1") { id } }'
    # The caches the extensions share across requests: strawberry's lru_cache by text, and
    # the validations by the parsed document's identity.
    parse: Any = _get_parse_cache(DOCUMENT_CACHE_SIZE)
    validate = cached_validate_document
    before = parse.cache_info(), (validate.misses, validate.hits)
    for _ in range(3):
        result = await execute(query)
        assert result.errors is None
    after = parse.cache_info(), (validate.misses, validate.hits)
    assert after[0].misses - before[0].misses == 1
    assert after[0].hits - before[0].hits == 2
    assert (after[1][0] - before[1][0], after[1][1] - before[1][1]) == (1, 2)


def test_validation_is_remembered_per_document_identity_and_bounded() -> None:
    schema = build_schema()._schema
    validated = ValidatedDocuments(maxsize=2)
    first, same_text = parse_document("{ viewer { id } }"), parse_document("{ viewer { id } }")
    assert validated(schema, first, ()) == []
    assert validated(schema, first, ()) == []
    # An equal document parsed again is validated again: identity, not value.
    assert validated(schema, same_text, ()) == []
    assert (validated.misses, validated.hits) == (2, 1)
    validated(schema, parse_document("{ __typename }"), ())
    assert validated(schema, first, ()) == []  # evicted: the least recently used
    assert validated.misses == 4


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
    schema = build_schema(request_extensions(settings.query_limits, PreparedOperations()))
    result = await schema.execute('{ user(id: "u") { payday { pave { payday } } } }')
    assert result.errors is not None
    [error] = result.errors
    assert error.extensions is not None
    assert error.extensions["code"] == "QUERY_TOO_COMPLEX"
