"""The HTTP and auth settings read from the environment, and their refusals."""

from __future__ import annotations

import pytest

from gateway.settings import Settings, SettingsError


def test_defaults() -> None:
    settings = Settings.from_environ({})
    assert settings.max_body_bytes == 262_144
    assert settings.max_batch_operations == 10
    assert settings.graphiql is True
    assert settings.introspection is True
    assert settings.cors_origins == ()
    assert settings.auth_leeway_seconds == 30
    assert settings.persisted_query_cache_size == 1000


def test_every_http_setting_is_read() -> None:
    settings = Settings.from_environ(
        {
            "INSIGHT_MAX_BODY_BYTES": "4096",
            "INSIGHT_MAX_BATCH_OPERATIONS": "5",
            "INSIGHT_GRAPHIQL": "off",
            "INSIGHT_INTROSPECTION": "false",
            "INSIGHT_CORS_ORIGINS": " https://app.example.com , http://localhost:3000/ ",
            "INSIGHT_AUTH_LEEWAY_SECONDS": "0",
            "INSIGHT_PERSISTED_QUERY_CACHE_SIZE": "0",
        }
    )
    assert settings.max_body_bytes == 4096
    assert settings.max_batch_operations == 5
    assert settings.graphiql is False
    assert settings.introspection is False
    assert settings.cors_origins == ("https://app.example.com", "http://localhost:3000")
    assert settings.auth_leeway_seconds == 0
    assert settings.persisted_query_cache_size == 0
    assert Settings.from_environ({"INSIGHT_CORS_ORIGINS": "*"}).cors_origins == ("*",)


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("INSIGHT_CORS_ORIGINS", "app.example.com", "origins like https://"),
        ("INSIGHT_CORS_ORIGINS", "https://app.example.com/path", "origins like https://"),
        ("INSIGHT_CORS_ORIGINS", "javascript:alert(1)", "origins like https://"),
        ("INSIGHT_MAX_BODY_BYTES", "10", "at least 1024"),
        ("INSIGHT_MAX_BATCH_OPERATIONS", "101", "at most 100"),
        ("INSIGHT_GRAPHIQL", "maybe", "true or false"),
        ("INSIGHT_INTROSPECTION", "2", "true or false"),
        ("INSIGHT_AUTH_LEEWAY_SECONDS", "3600", "at most 300"),
        ("INSIGHT_MAX_QUERY_COST", "0", "at least 1"),
        ("INSIGHT_MAX_QUERY_DEPTH", "deep", "whole number"),
    ],
)
def test_bad_values_fail_fast_naming_the_variable(variable: str, value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message) as raised:
        Settings.from_environ({variable: value})
    assert variable in str(raised.value)
