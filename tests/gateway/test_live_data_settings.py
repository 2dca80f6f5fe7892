from __future__ import annotations

import pytest

from gateway.settings import Settings, SettingsError


def test_live_data_and_cache_are_off_by_default() -> None:
    settings = Settings.from_environ({})
    assert settings.subscriptions is False
    assert settings.change_feed_uri == "memory://"
    assert settings.subscriptions_max_per_connection == 20
    assert settings.stream_lease_seconds == 10.0
    assert settings.cache is False
    assert settings.cache_max_bytes == 268_435_456
    assert settings.cache_max_lag_seconds == 2.0


def test_live_data_and_cache_read_from_the_environment() -> None:
    settings = Settings.from_environ(
        {
            "INSIGHT_SUBSCRIPTIONS": "true",
            "INSIGHT_CHANGE_FEED_URI": "redis://127.0.0.1:6379/0",
            "INSIGHT_SUBSCRIPTIONS_MAX_PER_CONNECTION": "5",
            "INSIGHT_STREAM_LEASE_SECONDS": "3",
            "INSIGHT_CACHE": "on",
            "INSIGHT_CACHE_MAX_BYTES": "2097152",
            "INSIGHT_CACHE_MAX_LAG_SECONDS": "0.5",
        }
    )
    assert settings.subscriptions is True
    assert settings.change_feed_uri == "redis://127.0.0.1:6379/0"
    assert settings.subscriptions_max_per_connection == 5
    assert settings.stream_lease_seconds == 3.0
    assert settings.cache is True
    assert settings.cache_max_bytes == 2_097_152
    assert settings.cache_max_lag_seconds == 0.5


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("INSIGHT_CHANGE_FEED_URI", "kafka://x", "INSIGHT_CHANGE_FEED_URI must be memory://"),
        ("INSIGHT_SUBSCRIPTIONS_MAX_PER_CONNECTION", "0", "must be at least 1"),
        ("INSIGHT_CACHE", "maybe", "INSIGHT_CACHE must be true or false"),
        ("INSIGHT_CACHE_MAX_BYTES", "10", "must be at least 1048576"),
    ],
)
def test_a_bad_value_names_its_variable(name: str, value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.from_environ({name: value})
