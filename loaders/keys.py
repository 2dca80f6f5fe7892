"""Every key format of the five tables, and nothing else knows one.

Key strings are joined with `#`, as the Go service's utils.HashJoinPath does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from loaders.codec import format_instant
from loaders.tables import Table

SEPARATOR = "#"


def join(*segments: str) -> str:
    return SEPARATOR.join(segments)


@dataclass(frozen=True, slots=True)
class ItemKey:
    """The primary key of one item: a point read or a write."""

    table: Table
    pk: str
    sk: str | None = None

    def attributes(self) -> dict[str, dict[str, str]]:
        """The key as DynamoDB's wire form: {"PK": {"S": ...}, "SK": {"S": ...}}."""
        partition, sort = self.table.key_names
        key = {partition: {"S": self.pk}}
        if sort is not None:
            if self.sk is None:
                raise ValueError(f"{self.table.name} keys need a sort key")
            key[sort] = {"S": self.sk}
        return key


@dataclass(frozen=True, slots=True)
class QueryKey:
    """One Query: a partition, a sort-key prefix, an order and a limit of live items."""

    table: Table
    pk: str
    sk_prefix: str = ""
    newest_first: bool = False
    limit: int | None = None


# --- site-pave: point keys -------------------------------------------------------------


def payday(user_id: str) -> ItemKey:
    return ItemKey(Table.PAVE, join("PAYDAY", user_id), "PREDICTION")


def income_verification(user_id: str) -> ItemKey:
    return ItemKey(Table.PAVE, join("USERS", user_id), "VERIFICATION")


def savings_month(user_id: str, month: str) -> ItemKey:
    """`month` is `YYYY-MM`."""
    return ItemKey(Table.PAVE, join("USERS", user_id), join("SAVINGS_MONTH", month))


def alert(user_id: str) -> ItemKey:
    return ItemKey(Table.PAVE, join("USERS", user_id), join("ALERT", user_id))


def pave_label(user_id: str) -> ItemKey:
    return ItemKey(Table.PAVE, join("LABEL", user_id), join("PAVE", "REFRESH_INSIGHTS"))


def last_page(user_id: str, pave_request_id: str) -> ItemKey:
    return ItemKey(
        Table.PAVE, join("USERS", user_id), join("LAST_PAGE", "REQUEST_ID", pave_request_id)
    )


def income(user_id: str) -> ItemKey:
    return ItemKey(Table.PAVE, join("USERS", user_id), join("INCOME", user_id))


def mine(user_id: str, mined_at: datetime) -> ItemKey:
    return ItemKey(Table.PAVE, join("MINE", user_id), join("TIME", format_instant(mined_at)))


def recurring(
    user_id: str, last_mine: str, merchant_uuid: str, frequency: str, amount: str
) -> ItemKey:
    return ItemKey(
        Table.PAVE,
        join("USERS", user_id),
        join("RECURRING", last_mine, "MERCHANT", merchant_uuid, frequency, amount),
    )


def ritual(user_id: str, last_mine: str, merchant_id: str, frequency: str, amount: str) -> ItemKey:
    return ItemKey(
        Table.PAVE,
        join("USERS", user_id),
        join("RITUAL", last_mine, "MERCHANT", merchant_id, frequency, amount),
    )


def cash_advance_score(user_id: str, scored_at: datetime) -> ItemKey:
    return ItemKey(
        Table.PAVE, join("USERS", user_id), join("CASH_ADVANCE_SCORE", format_instant(scored_at))
    )


# --- site-pave: queries ----------------------------------------------------------------


def user_partition(user_id: str) -> tuple[Table, str]:
    """The `USERS#<user_id>` partition: the single-table collection of a user's entities."""
    return Table.PAVE, join("USERS", user_id)


def latest_mine_query(user_id: str) -> QueryKey:
    return QueryKey(Table.PAVE, join("MINE", user_id), "TIME#", newest_first=True, limit=1)


def recurring_query(user_id: str) -> QueryKey:
    return QueryKey(Table.PAVE, join("USERS", user_id), "RECURRING#")


def rituals_query(user_id: str) -> QueryKey:
    return QueryKey(Table.PAVE, join("USERS", user_id), "RITUAL#")


def last_pages_query(user_id: str) -> QueryKey:
    return QueryKey(Table.PAVE, join("USERS", user_id), join("LAST_PAGE", "REQUEST_ID", ""))


def cash_advance_scores_query(user_id: str, limit: int) -> QueryKey:
    return QueryKey(
        Table.PAVE,
        join("USERS", user_id),
        "CASH_ADVANCE_SCORE#",
        newest_first=True,
        limit=limit,
    )


# --- site-incomedetection --------------------------------------------------------------


def income_detection_run(user_id: str, run_date: datetime) -> ItemKey:
    return ItemKey(
        Table.INCOME_DETECTION, join("INCOME_DETECTION", user_id), format_instant(run_date)
    )


def income_detection_partition(user_id: str) -> tuple[Table, str]:
    return Table.INCOME_DETECTION, join("INCOME_DETECTION", user_id)


def income_detection_runs_query(user_id: str, limit: int) -> QueryKey:
    return QueryKey(
        Table.INCOME_DETECTION, join("INCOME_DETECTION", user_id), newest_first=True, limit=limit
    )


# --- site-fmdatacapture ----------------------------------------------------------------


def capture_daily_event(user_id: str, event_name: str, day: date) -> ItemKey:
    return ItemKey(Table.DATACAPTURE, join("USER", user_id), join(event_name, day.isoformat()))


def capture_evaluation_event(
    user_id: str, event_name: str, at: datetime, random_hex: str
) -> ItemKey:
    instant = format_instant(at, microseconds=True)
    return ItemKey(Table.DATACAPTURE, join("USER", user_id), join(event_name, instant, random_hex))


# --- user-balance-settings and locks ---------------------------------------------------


def balance_settings(user_id: str) -> ItemKey:
    return ItemKey(Table.BALANCE_SETTINGS, user_id)


def balance_alert_lock(user_id: str) -> ItemKey:
    return ItemKey(Table.LOCKS, f"balance-alert:user_id:{user_id}")


# --- reading keys back -----------------------------------------------------------------


def user_id_of(pk: str) -> str:
    """The user id of any `<ENTITY>#<user_id>` partition key."""
    _entity, separator, user_id = pk.partition(SEPARATOR)
    if not separator or not user_id:
        raise ValueError(f"not a user partition key: {pk!r}")
    return user_id


def _after(value: str, prefix: str) -> str:
    if not value.startswith(prefix):
        raise ValueError(f"{value!r} does not start with {prefix!r}")
    return value[len(prefix) :]


def savings_month_of(sk: str) -> str:
    return _after(sk, "SAVINGS_MONTH#")


def last_page_request_id_of(sk: str) -> str:
    return _after(sk, "LAST_PAGE#REQUEST_ID#")


def mine_time_of(sk: str) -> str:
    return _after(sk, "TIME#")


def cash_advance_score_time_of(sk: str) -> str:
    return _after(sk, "CASH_ADVANCE_SCORE#")
