"""The balance-alert evaluation (section 5 of the contract), under the user's
`balance-alert:user_id:<user_id>` lock that the Go balance-alert service also takes."""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from loaders import validation
from loaders.dynamodb import Dynamo
from loaders.entities import ALERT, BALANCE_ALERT_LOCK, BALANCE_SETTINGS
from loaders.lock import LockClient, LockLost, LockNotGranted
from loaders.lock.item import ATTR_IS_RELEASED, ATTR_KEY, ATTR_OWNER_NAME
from loaders.rows.alert import ALERT_COOLDOWN, AlertRow
from loaders.rows.balance_settings import BalanceSettingsRow
from loaders.transactions import Writes
from loaders.writers.common import read_consistent

__all__ = [
    "Decision",
    "Evaluation",
    "decide",
    "evaluate_balance_alert",
]


class Decision(enum.Enum):
    LOCKED = "LOCKED"
    ALERTS_OFF = "ALERTS_OFF"
    ABOVE_THRESHOLD = "ABOVE_THRESHOLD"
    COOLDOWN = "COOLDOWN"
    SENT = "SENT"


@dataclass(frozen=True, slots=True)
class Evaluation:
    decision: Decision
    #: SENT: the row written; LOCKED: None (nothing was read); otherwise the stored row.
    alert: AlertRow | None


def decide(
    *,
    setting: Decimal | None,
    available_balance: Decimal,
    previous: AlertRow | None,
    now: datetime,
) -> Decision:
    """Steps 2 to 5 of section 5, in the contract's order (step 1, LOCKED, is the lock's)."""
    if setting is None:
        return Decision.ALERTS_OFF
    if available_balance >= setting:
        return Decision.ABOVE_THRESHOLD
    if (
        previous is not None
        and previous.alert_sent
        and previous.updated_date is not None
        and now < previous.updated_date + ALERT_COOLDOWN
    ):
        return Decision.COOLDOWN
    return Decision.SENT


async def evaluate_balance_alert(
    dynamo: Dynamo, locks: LockClient, values: Mapping[str, Any], now: datetime, writes: Writes
) -> Evaluation:
    """Decide on the input's `values` (by field name, checked first as `AlertRow`
    declares), under the lock, and stage the alert row in `writes` only when SENT. A lock
    held by anyone else answers LOCKED at once. The lock stays held (`writes.hold`) until
    the caller has committed `writes` or given them up, and is released then."""
    try:
        return await _evaluate(dynamo, locks, AlertRow.written(values, now), now, writes)
    except (LockNotGranted, LockLost):
        return Evaluation(Decision.LOCKED, None)


async def _evaluate(
    dynamo: Dynamo, locks: LockClient, written: AlertRow, now: datetime, writes: Writes
) -> Evaluation:
    user_id = written.user_id
    lock = await writes.hold(locks.hold(BALANCE_ALERT_LOCK.key(user_id=user_id).pk))
    # Two tables, one round trip: both reads go out together.
    settings_item, alert_item = await asyncio.gather(
        read_consistent(dynamo, BALANCE_SETTINGS.key(user_id=user_id), now),
        read_consistent(dynamo, ALERT.key(user_id=user_id), now),
    )
    setting = (
        BalanceSettingsRow.from_item(settings_item).low_balance_alert
        if settings_item is not None
        else None
    )
    previous = AlertRow.from_item(alert_item) if alert_item is not None else None
    assert written.available_balance is not None  # the input gives it
    decision = decide(
        setting=setting, available_balance=written.available_balance, previous=previous, now=now
    )
    if decision is not Decision.SENT:
        return Evaluation(decision, previous)
    assert setting is not None
    row = replace(written, balance_setting=validation.canonical(setting))
    # Past our lease (a stalled request) someone else may hold the lock by now; the commit
    # checks again in DynamoDB, in the same transaction as the row.
    locks.ensure_held(lock)
    writes.check(
        BALANCE_ALERT_LOCK.table,
        {ATTR_KEY: lock.key},
        "#owner = :owner AND attribute_not_exists(#released)",
        names={"#owner": ATTR_OWNER_NAME, "#released": ATTR_IS_RELEASED},
        values={":owner": lock.owner_name},
    )
    writes.put(ALERT.table, row.to_item())
    return Evaluation(Decision.SENT, row)
