from __future__ import annotations

from datetime import UTC, date, datetime

from loaders import keys
from loaders.tables import Table

AT = datetime(2026, 12, 2, 11, 31, 28, tzinfo=UTC)


def test_site_pave_keys_follow_the_description() -> None:
    assert keys.payday("u-1") == keys.ItemKey(Table.PAVE, "PAYDAY#u-1", "PREDICTION")
    assert keys.income_verification("u-1").sk == "VERIFICATION"
    assert keys.savings_month("u-1", "2026-12").sk == "SAVINGS_MONTH#2026-12"
    assert keys.alert("u-1") == keys.ItemKey(Table.PAVE, "USERS#u-1", "ALERT#u-1")
    assert keys.pave_label("u-1") == keys.ItemKey(Table.PAVE, "LABEL#u-1", "PAVE#REFRESH_INSIGHTS")
    assert keys.last_page("u-1", "r-9").sk == "LAST_PAGE#REQUEST_ID#r-9"
    assert keys.mine("u-1", AT) == keys.ItemKey(Table.PAVE, "MINE#u-1", "TIME#2026-12-02T11:31:28Z")
    assert (
        keys.recurring("u-1", "2026-12-02T11:31:28Z", "m-1", "monthly", "15.49").sk
        == "RECURRING#2026-12-02T11:31:28Z#MERCHANT#m-1#monthly#15.49"
    )
    assert (
        keys.ritual("u-1", "T", "m-2", "weekly", "4.75").sk == "RITUAL#T#MERCHANT#m-2#weekly#4.75"
    )
    assert keys.income("u-1").sk == "INCOME#u-1"
    assert keys.cash_advance_score("u-1", AT).sk == "CASH_ADVANCE_SCORE#2026-12-02T11:31:28Z"


def test_other_tables_keys() -> None:
    run = keys.income_detection_run("u-1", AT)
    assert (run.pk, run.sk) == ("INCOME_DETECTION#u-1", "2026-12-02T11:31:28Z")
    daily = keys.capture_daily_event("u-1", "FM_PAYDAY_FILTERED_TXNS", date(2026, 12, 2))
    assert (daily.pk, daily.sk) == ("USER#u-1", "FM_PAYDAY_FILTERED_TXNS#2026-12-02")
    event = keys.capture_evaluation_event("u-1", "PAYDAY_PREDICTION", AT, "0a1b2c3d")
    assert event.sk == "PAYDAY_PREDICTION#2026-12-02T11:31:28.000000Z#0a1b2c3d"
    assert keys.balance_settings("u-1").attributes() == {"user_id": {"S": "u-1"}}
    assert keys.balance_alert_lock("u-1").attributes() == {
        "key": {"S": "balance-alert:user_id:u-1"}
    }


def test_keys_read_back() -> None:
    assert keys.user_id_of("USERS#u-1") == "u-1"
    assert keys.savings_month_of("SAVINGS_MONTH#2026-12") == "2026-12"
    assert keys.last_page_request_id_of("LAST_PAGE#REQUEST_ID#r-9") == "r-9"
