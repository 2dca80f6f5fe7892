"""Every entity of the tables, each declared once (`loaders.entity`), and what is derived
from them all: the streamed tables, the tables with a TTL, the user a change wakes.

The eleven `site-pave` entities and the income detection runs are declared beside their
rows (`loaders/rows/`), the capture events beside their writer (`loaders.capture`); the
lock and the idempotency record, whose clients build their own items, here.
"""

from __future__ import annotations

from typing import Any

from loaders.capture import CAPTURE_DAILY_EVENT, CAPTURE_EVALUATION_EVENT
from loaders.entity import Collection, Entity, TtlRule, entity
from loaders.rows.alert import ALERT
from loaders.rows.balance import SAVINGS_MONTH
from loaders.rows.balance_settings import BALANCE_SETTINGS
from loaders.rows.feeder import LAST_PAGE, PAVE_LABEL
from loaders.rows.income import INCOME
from loaders.rows.income_detection import INCOME_DETECTION_RUN
from loaders.rows.income_verification import INCOME_VERIFICATION
from loaders.rows.mine import MINE, RECURRING_EXPENSE, RITUAL_EXPENSE
from loaders.rows.payday import PAYDAY
from loaders.rows.scores import CASH_ADVANCE_SCORE
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = [
    "ALERT",
    "BALANCE_ALERT_LOCK",
    "BALANCE_SETTINGS",
    "CAPTURE_DAILY_EVENT",
    "CAPTURE_EVALUATION_EVENT",
    "CASH_ADVANCE_SCORE",
    "ENTITIES",
    "IDEMPOTENCY_RECORD",
    "INCOME",
    "INCOME_DETECTION_RUN",
    "INCOME_VERIFICATION",
    "LAST_PAGE",
    "MINE",
    "PAVE_LABEL",
    "PAYDAY",
    "RECURRING_EXPENSE",
    "RITUAL_EXPENSE",
    "SAVINGS_MONTH",
    "STREAMED_TABLES",
    "TTL_TABLES",
    "USERS",
    "Collection",
    "Entity",
    "user_of",
]

#: The balance-alert evaluation's lock (the lock client's item, `loaders.lock`).
BALANCE_ALERT_LOCK: Entity[Any] = entity(
    "balance_alert_lock",
    Table.LOCKS,
    pk="balance-alert:user_id:{user_id}",
    sk=None,
)

#: A mutation's first answer under its idempotency key (`loaders.idempotency`): the key is
#: a digest of the caller's `sub` and the key, so it names no user; kept
#: `IDEMPOTENCY_TTL_SECONDS` after the answer.
IDEMPOTENCY_RECORD: Entity[Any] = entity(
    "idempotency_record",
    Table.IDEMPOTENCY,
    pk="{digest}",
    sk=None,
    user=None,
    ttl=TtlRule("answered_at", setting="idempotency_ttl_seconds"),
)

#: Every entity, in the tables' order.
ENTITIES: tuple[Entity[Any], ...] = (
    PAYDAY,
    INCOME_VERIFICATION,
    SAVINGS_MONTH,
    ALERT,
    PAVE_LABEL,
    LAST_PAGE,
    INCOME,
    MINE,
    RECURRING_EXPENSE,
    RITUAL_EXPENSE,
    CASH_ADVANCE_SCORE,
    INCOME_DETECTION_RUN,
    CAPTURE_DAILY_EVENT,
    CAPTURE_EVALUATION_EVENT,
    BALANCE_SETTINGS,
    BALANCE_ALERT_LOCK,
    IDEMPOTENCY_RECORD,
)


#: Tables whose changes reach the change feed (SPEC section 7), through their DynamoDB
#: Streams (`KEYS_ONLY`), and make subscription events: not the capture events, nor the
#: locks. The coherent cache holds only these (the feed tells it of their changes). In the
#: tables' order.
STREAMED_TABLES = tuple(
    table for table in Table if any(e.wakes for e in ENTITIES if e.table is table)
)

#: Tables whose items carry a `ttl` attribute that DynamoDB expires.
TTL_TABLES = frozenset(declared.table for declared in ENTITIES if declared.ttl is not None)

#: Per streamed table, the partition-key templates of its waking entities that name a user.
_WAKING_KEYS: dict[Table, tuple[Entity[Any], ...]] = {
    table: tuple(
        {
            declared.pk.text: declared
            for declared in ENTITIES
            if declared.table is table and declared.wakes and declared.user is not None
        }.values()
    )
    for table in STREAMED_TABLES
}


def user_of(table: Table, pk: str) -> str | None:
    """The user whose answers a change to the partition `pk` of `table` may alter; None
    when it makes no event (a table that wakes no one, a key no entity of it has)."""
    for declared in _WAKING_KEYS.get(table, ()):
        try:
            return declared.user_of(pk)
        except ValueError:
            continue
    return None


def _check(collection: Collection) -> None:
    """Each entity of the collection names its partition's user the same way."""
    for declared in ENTITIES:
        if declared.collection is collection and declared.user != "user_id":
            raise ValueError(f"{declared.name} names its user otherwise in {collection.name}")


_check(USERS)
