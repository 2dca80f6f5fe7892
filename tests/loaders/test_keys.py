"""Every key format, as the declarations build it and read it back (`loaders.entities`)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from loaders import entities as e
from loaders.keys import ItemKey, QueryKey
from loaders.tables import Table

AT = datetime(2026, 12, 2, 11, 31, 28, tzinfo=UTC)
U = {"user_id": "u-1"}
USER = "u-1"


def test_site_pave_keys_follow_the_description() -> None:
    assert e.PAYDAY.key(**U) == ItemKey(Table.PAVE, "PAYDAY#u-1", "PREDICTION")
    assert e.INCOME_VERIFICATION.key(**U).sk == "VERIFICATION"
    assert e.SAVINGS_MONTH.key(month="2026-12", **U).sk == "SAVINGS_MONTH#2026-12"
    assert e.ALERT.key(**U) == ItemKey(Table.PAVE, "USERS#u-1", "ALERT#u-1")
    assert e.PAVE_LABEL.key(**U) == ItemKey(Table.PAVE, "LABEL#u-1", "PAVE#REFRESH_INSIGHTS")
    assert e.LAST_PAGE.key(pave_request_id="r-9", **U).sk == "LAST_PAGE#REQUEST_ID#r-9"
    assert e.MINE.key(mined_at=AT, **U) == ItemKey(
        Table.PAVE, "MINE#u-1", "TIME#2026-12-02T11:31:28Z"
    )
    expense = {"last_mine": "2026-12-02T11:31:28Z", "merchant": "m-1", "frequency": "monthly"}
    assert (
        e.RECURRING_EXPENSE.key(amount="15.49", **expense, **U).sk
        == "RECURRING#2026-12-02T11:31:28Z#MERCHANT#m-1#monthly#15.49"
    )
    ritual = {"last_mine": "T", "merchant": "m-2", "frequency": "weekly", "amount": "4.75"}
    assert e.RITUAL_EXPENSE.key(**ritual, **U).sk == "RITUAL#T#MERCHANT#m-2#weekly#4.75"
    assert e.INCOME.key(**U).sk == "INCOME#u-1"
    assert e.CASH_ADVANCE_SCORE.key(scored_at=AT, **U).sk == (
        "CASH_ADVANCE_SCORE#2026-12-02T11:31:28Z"
    )


def test_other_tables_keys() -> None:
    run = e.INCOME_DETECTION_RUN.key(run_date=AT, **U)
    assert (run.pk, run.sk) == ("INCOME_DETECTION#u-1", "2026-12-02T11:31:28Z")
    daily = e.CAPTURE_DAILY_EVENT.key(
        event_name="FM_PAYDAY_FILTERED_TXNS", day=date(2026, 12, 2), **U
    )
    assert (daily.pk, daily.sk) == ("USER#u-1", "FM_PAYDAY_FILTERED_TXNS#2026-12-02")
    event = e.CAPTURE_EVALUATION_EVENT.key(
        event_name="PAYDAY_PREDICTION", at=AT, random_hex="0a1b2c3d", **U
    )
    assert event.sk == "PAYDAY_PREDICTION#2026-12-02T11:31:28.000000Z#0a1b2c3d"
    assert e.BALANCE_SETTINGS.key(**U).attributes() == {"user_id": {"S": "u-1"}}
    assert e.BALANCE_ALERT_LOCK.key(**U).attributes() == {"key": {"S": "balance-alert:user_id:u-1"}}


def test_queries_take_the_sort_keys_literal_prefix() -> None:
    assert e.MINE.query(newest_first=True, limit=1, user_id=USER) == QueryKey(
        Table.PAVE, "MINE#u-1", "TIME#", newest_first=True, limit=1
    )
    assert e.RECURRING_EXPENSE.query(user_id=USER).sk_prefix == "RECURRING#"
    assert e.RITUAL_EXPENSE.query(user_id=USER).sk_prefix == "RITUAL#"
    assert e.LAST_PAGE.query(user_id=USER).sk_prefix == "LAST_PAGE#REQUEST_ID#"
    assert e.CASH_ADVANCE_SCORE.query(limit=3, user_id=USER).sk_prefix == "CASH_ADVANCE_SCORE#"
    runs = e.INCOME_DETECTION_RUN.query(newest_first=True, limit=10, user_id=USER)
    assert (runs.table, runs.pk, runs.sk_prefix) == (
        Table.INCOME_DETECTION,
        "INCOME_DETECTION#u-1",
        "",
    )
    assert e.USERS.partition(user_id=USER) == (Table.PAVE, "USERS#u-1")


def test_keys_read_back() -> None:
    assert e.ALERT.user_of("USERS#u-1") == "u-1"
    assert e.SAVINGS_MONTH.sk_value("SAVINGS_MONTH#2026-12", "month") == "2026-12"
    assert e.LAST_PAGE.sk_value("LAST_PAGE#REQUEST_ID#r-9", "pave_request_id") == "r-9"
    assert e.RECURRING_EXPENSE.sk is not None
    assert e.RECURRING_EXPENSE.sk.parse("RECURRING#T#MERCHANT#m-1#monthly#15.49") == {
        "last_mine": "T",
        "merchant": "m-1",
        "frequency": "monthly",
        "amount": "15.49",
    }
    with pytest.raises(ValueError, match="does not match"):
        e.ALERT.user_of("MINE#u-1")
    with pytest.raises(ValueError, match="does not match"):
        e.ALERT.user_of("USERS#")


#: A key's values for each entity, by its name.
EXAMPLES: dict[str, dict[str, object]] = {
    "payday": {"user_id": "demo-ada"},
    "income_verification": {"user_id": "demo-ada"},
    "savings_month": {"user_id": "demo-ada", "month": "2026-12"},
    "alert": {"user_id": "demo-ada"},
    "pave_label": {"user_id": "demo-ada"},
    "last_page": {"user_id": "demo-ada", "pave_request_id": "req-7f3a"},
    "income": {"user_id": "demo-ada"},
    "mine": {"user_id": "demo-ada", "mined_at": AT},
    "recurring": {
        "user_id": "demo-ada",
        "last_mine": "2026-12-02T11:31:28Z",
        "merchant": "m-netflix",
        "frequency": "monthly",
        "amount": "15.49",
    },
    "ritual": {
        "user_id": "demo-ada",
        "last_mine": "2026-12-02T11:31:28Z",
        "merchant": "m-netflix",
        "frequency": "monthly",
        "amount": "15.49",
    },
    "cash_advance_score": {"user_id": "demo-ada", "scored_at": AT},
    "income_detection_run": {"user_id": "demo-ada", "run_date": AT},
    "capture_daily_event": {
        "user_id": "demo-ada",
        "event_name": "FM_PAYDAY_FILTERED_TXNS",
        "day": AT.date(),
    },
    "capture_evaluation_event": {
        "user_id": "demo-ada",
        "event_name": "PAYDAY_PREDICTION",
        "at": AT,
        "random_hex": "0a1b2c3d",
    },
    "balance_settings": {"user_id": "demo-ada"},
    "balance_alert_lock": {"user_id": "demo-ada"},
    "idempotency_record": {
        "digest": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    },
}


def test_every_entity_has_an_example() -> None:
    assert set(EXAMPLES) == {declared.name for declared in e.ENTITIES}


@pytest.mark.parametrize("declared", e.ENTITIES, ids=lambda declared: declared.name)
def test_every_example_builds_a_key_that_parses_back(declared: e.Entity[object]) -> None:
    example = EXAMPLES[declared.name]
    key = declared.key(**example)
    assert key.attributes()  # its table's key attributes, all present
    values = declared.pk.parse(key.pk)
    if declared.sk is not None:
        assert key.sk is not None
        values |= declared.sk.parse(key.sk)
    # Text values come back as given; formatted ones (instants, dates) as their text.
    assert {
        name: value for name, value in example.items() if isinstance(value, str)
    }.items() <= values.items()
    assert set(values) == set(example)
    if declared.user is not None:
        assert declared.user_of(key.pk) == example[declared.user]


@pytest.mark.parametrize(
    ("pk", "sk", "within"),
    [
        ("x" * 2048, None, True),
        ("x" * 2049, None, False),
        ("\U0001f600" * 512, None, True),
        ("\U0001f600" * 513, None, False),
        ("p", "é" * 512, True),
        ("p", "é" * 512 + "x", False),
    ],
)
def test_a_key_within_dynamodbs_limits(pk: str, sk: str | None, within: bool) -> None:
    table = Table.PAVE if sk is not None else Table.BALANCE_SETTINGS
    assert ItemKey(table, pk, sk).within_limits() is within
