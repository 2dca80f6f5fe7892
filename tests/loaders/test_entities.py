"""What the declarations derive is what was written by hand before them."""

from __future__ import annotations

import inspect
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from loaders import entities as e
from loaders.codec import epoch_seconds
from loaders.entity import KeyTemplate, TtlRule, entity
from loaders.live.feed_watch import FeedWatch
from loaders.live.streams.coordinator import LeaseCoordinator
from loaders.tables import Table

AT = datetime(2026, 12, 2, 11, 31, 28, tzinfo=UTC)


def test_the_streamed_tables_are_the_three_the_feed_carries() -> None:
    assert e.STREAMED_TABLES == (Table.PAVE, Table.INCOME_DETECTION, Table.BALANCE_SETTINGS)
    assert FeedWatch().streamed_tables == frozenset(e.STREAMED_TABLES)


def test_the_ttl_tables_are_those_whose_items_expire() -> None:
    assert {
        Table.PAVE,
        Table.INCOME_DETECTION,
        Table.DATACAPTURE,
        Table.IDEMPOTENCY,
    } == e.TTL_TABLES


def test_the_users_collection_holds_the_eight_entities_of_the_users_partition() -> None:
    inside = {declared.name for declared in e.ENTITIES if declared.collection is e.USERS}
    assert inside == {
        "income_verification",
        "savings_month",
        "alert",
        "last_page",
        "income",
        "recurring",
        "ritual",
        "cash_advance_score",
    }
    assert sum(1 for declared in e.ENTITIES if declared.table is Table.PAVE) == 11


@pytest.mark.parametrize(
    ("table", "pk", "user"),
    [
        (Table.PAVE, "USERS#u-1", "u-1"),
        (Table.PAVE, "PAYDAY#u-1", "u-1"),
        (Table.PAVE, "LABEL#u-1", "u-1"),
        (Table.PAVE, "MINE#u-1", "u-1"),
        (Table.PAVE, "USERS#", None),
        (Table.PAVE, "OTHER#u-1", None),
        (Table.INCOME_DETECTION, "INCOME_DETECTION#u-1", "u-1"),
        (Table.BALANCE_SETTINGS, "u-1", "u-1"),
        (Table.DATACAPTURE, "USER#u-1", None),
        (Table.LOCKS, "balance-alert:user_id:u-1", None),
        (Table.IDEMPOTENCY, "9f86d0", None),
    ],
)
def test_the_user_a_change_wakes(table: Table, pk: str, user: str | None) -> None:
    assert e.user_of(table, pk) == user


def test_ttl_rules_give_what_the_writers_wrote() -> None:
    assert e.PAYDAY.expires(AT) == epoch_seconds(AT) + 2 * 86_400
    assert e.SAVINGS_MONTH.expires(AT) == epoch_seconds(AT) + 365 * 86_400
    assert e.LAST_PAGE.expires(AT) == epoch_seconds(AT) + 5 * 86_400
    assert e.INCOME_DETECTION_RUN.expires(AT) == epoch_seconds(AT) + 7 * 86_400
    assert e.CAPTURE_DAILY_EVENT.expires(AT) == epoch_seconds(AT) + 2 * 86_400
    assert e.CASH_ADVANCE_SCORE.expires(AT, 30) == epoch_seconds(AT) + 30 * 86_400
    # An expense counts from 00:00 UTC of its due date.
    midnight = epoch_seconds(datetime(2026, 12, 9, tzinfo=UTC))
    assert e.RECURRING_EXPENSE.expires(date(2026, 12, 9), 45) == midnight + 45 * 86_400
    with pytest.raises(ValueError, match="takes days only from expense_ttl_days"):
        e.RITUAL_EXPENSE.expires(date(2026, 12, 9))
    with pytest.raises(ValueError, match="never expire"):
        e.ALERT.expires(AT)


def test_a_declaration_is_checked_against_its_table() -> None:
    with pytest.raises(ValueError, match="sort key"):
        entity("x", Table.BALANCE_SETTINGS, pk="{user_id}", sk="X")
    with pytest.raises(ValueError, match="read_units and read_items"):
        entity("x", Table.PAVE, pk=e.USERS, sk="X")
    with pytest.raises(ValueError, match="read_units and read_items"):
        entity("x", Table.PAVE, pk=e.USERS, sk="X", read_units=0.5)
    with pytest.raises(ValueError, match="not a value"):
        entity("x", Table.PAVE, pk="X#{id}", sk="X")
    with pytest.raises(ValueError, match="another table"):
        entity("x", Table.INCOME_DETECTION, pk=e.USERS, sk="X", read_units=1.0)


def test_a_template_parses_only_its_own_keys() -> None:
    template = KeyTemplate("{event_name}#{at:instant_us}#{random_hex}")
    key = template.build({"event_name": "E", "at": AT, "random_hex": "0a"})
    assert key == "E#2026-12-02T11:31:28.000000Z#0a"
    assert template.parse(key) == {
        "event_name": "E",
        "at": "2026-12-02T11:31:28.000000Z",
        "random_hex": "0a",
    }
    with pytest.raises(ValueError, match="does not match"):
        template.parse("E#only")
    with pytest.raises(TypeError, match="must be a str"):
        KeyTemplate("X#{id}").build({"id": 7})
    with pytest.raises(ValueError, match="no lifetime"):
        TtlRule("x").expires(AT)


def test_the_stream_readers_read_the_streamed_tables_by_default() -> None:
    default = inspect.signature(LeaseCoordinator.__init__).parameters["tables"].default
    assert default == e.STREAMED_TABLES


def test_the_documented_declaration_is_the_savings_months() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "index.md").read_text()
    shown = docs.split("```python\n", 1)[1].split("```", 1)[0]
    source = (Path(__file__).parents[2] / "loaders" / "rows" / "balance.py").read_text()
    assert shown.startswith("#: A user's savings snapshot")
    assert shown in source
