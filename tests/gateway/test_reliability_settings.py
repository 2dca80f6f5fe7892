from __future__ import annotations

from typing import Any

import pytest

from gateway.resources import client_config
from gateway.settings import Settings, SettingsError


def test_reliability_settings_are_read_with_their_types() -> None:
    settings = Settings.from_environ(
        {
            "INSIGHT_DYNAMODB_MAX_ATTEMPTS": "5",
            "INSIGHT_DYNAMODB_CONNECT_TIMEOUT_SECONDS": "0.25",
            "INSIGHT_DYNAMODB_READ_TIMEOUT_SECONDS": "1.5",
            "INSIGHT_DYNAMODB_UNPROCESSED_DEADLINE_SECONDS": "3",
            "INSIGHT_REQUEST_DEADLINE_SECONDS": "8",
            "INSIGHT_READINESS_TIMEOUT_SECONDS": "0.5",
            "INSIGHT_SHUTDOWN_GRACE_SECONDS": "12",
        }
    )
    assert settings.dynamodb_max_attempts == 5
    assert settings.dynamodb_connect_timeout_seconds == 0.25
    assert settings.dynamodb_read_timeout_seconds == 1.5
    assert settings.dynamodb_unprocessed_deadline_seconds == 3.0
    assert settings.request_deadline_seconds == 8.0
    assert settings.readiness_timeout_seconds == 0.5
    assert settings.shutdown_grace_seconds == 12.0
    # botocore's Config sets its options as attributes at run time; its stubs omit them.
    config: Any = client_config(settings)
    assert config.retries == {"mode": "standard", "total_max_attempts": 5}
    assert config.connect_timeout == 0.25
    assert config.read_timeout == 1.5


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("INSIGHT_DYNAMODB_READ_TIMEOUT_SECONDS", "soon", "must be a number"),
        ("INSIGHT_REQUEST_DEADLINE_SECONDS", "nan", "finite"),
        ("INSIGHT_REQUEST_DEADLINE_SECONDS", "0", "at least 0.01"),
        ("INSIGHT_DYNAMODB_MAX_ATTEMPTS", "0", "at least 1"),
        ("INSIGHT_DYNAMODB_MAX_ATTEMPTS", "11", "at most 10"),
    ],
)
def test_bad_reliability_settings_fail_fast_naming_the_variable(
    name: str, value: str, message: str
) -> None:
    with pytest.raises(SettingsError, match=message) as raised:
        Settings.from_environ({name: value})
    assert name in str(raised.value)
