"""When each entity's item expires (its `ttl`, epoch seconds), in one place."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from loaders.codec import epoch_seconds, start_of_day

PAYDAY_TTL = timedelta(days=2)
BALANCE_TTL = timedelta(days=365)
LAST_PAGE_TTL = timedelta(days=5)
INCOME_DETECTION_TTL = timedelta(days=7)
CAPTURE_TTL = timedelta(days=2)


def payday(created_date: datetime) -> int:
    return epoch_seconds(created_date + PAYDAY_TTL)


def balance(updated_date: datetime) -> int:
    return epoch_seconds(updated_date + BALANCE_TTL)


def last_page(updated_date: datetime) -> int:
    return epoch_seconds(updated_date + LAST_PAGE_TTL)


def expense(due_date: date, expense_ttl_days: int) -> int:
    """`recurring` and `ritual`: `due_date` + EXPENSE_TTL days, at 00:00 UTC."""
    return epoch_seconds(start_of_day(due_date) + timedelta(days=expense_ttl_days))


def score(scored_at: datetime, score_ttl_days: int) -> int:
    return epoch_seconds(scored_at + timedelta(days=score_ttl_days))


def income_detection(run_date: datetime) -> int:
    return epoch_seconds(run_date + INCOME_DETECTION_TTL)


def capture(created_at: datetime) -> int:
    return epoch_seconds(created_at + CAPTURE_TTL)
