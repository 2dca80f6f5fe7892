"""What per-client protection remembers and logs stays bounded: the audit's memory of
unlisted documents, and the storage warnings while Redis is down."""

from __future__ import annotations

import logging

import pytest

from gateway.operations.gate import UntrustedLog
from gateway.protection.rate_limit import StorageAlarm


def test_the_audit_logs_each_document_once_within_a_bounded_memory(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="gateway.trusted_documents")
    log = UntrustedLog(maxsize=2)
    texts = ["{ a }", "{ b }", "{ a }", "{ c }", "{ b }"]
    logged = [log.record(text, None) for text in texts]
    # a, b new; a seen (and now the most recent); c new, evicting b; b new again.
    assert logged == [True, True, False, True, True]
    assert len(log) == 2
    assert len(caplog.records) == 4


def test_a_long_text_is_logged_cut(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="gateway.trusted_documents")
    UntrustedLog().record("{ " + "a " * 5000 + "}", "Long")
    message = caplog.records[0].getMessage()
    assert "operationName Long" in message
    assert len(message) < 2_300
    assert message.endswith("…")


def test_storage_failures_warn_once_per_interval_and_all_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="gateway.rate_limit")
    now = [0.0]
    counted = []
    alarm = StorageAlarm(lambda: counted.append(1), interval=60, clock=lambda: now[0])
    for second in range(0, 150, 5):  # a failure every 5 s for 150 s
        now[0] = float(second)
        alarm.failed(ConnectionError("refused"), fail_open=True)
    alarm.answered()
    alarm.answered()  # nothing more to say
    messages = [record.getMessage() for record in caplog.records]
    assert len(counted) == 30
    assert len(messages) == 4  # at 0 s, 60 s, 120 s, and once back
    assert messages[0].startswith("rate-limit storage failed 1 time(s)")
    assert messages[1].startswith("rate-limit storage failed 12 time(s)")
    assert "ConnectionError('refused')" in messages[0]
    assert messages[3] == "rate-limit storage answers again after 30 failure(s); budgets apply"
