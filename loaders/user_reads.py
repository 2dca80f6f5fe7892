"""The read rules of the contract, one method per User field, as thin views over the two
batching cores. Everything a request reads about users goes through here.

Each method answers now (a value) when every read it needs is already known, as from a
warm coherent cache, and `Later` otherwise: the loads it waits on and its rule
(`loaders.answers`); the rule runs on every read either way."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import lru_cache, partial
from typing import TypeVar

from loaders.answers import Answer, then, when_all
from loaders.cache.items import kept_rows, row_of
from loaders.codec import Item, from_wire, months_back, parse_instant, to_wire
from loaders.collections import Read, Undecoded
from loaders.entities import (
    ALERT,
    BALANCE_SETTINGS,
    CASH_ADVANCE_SCORE,
    INCOME,
    INCOME_DETECTION_RUN,
    INCOME_VERIFICATION,
    LAST_PAGE,
    MINE,
    PAVE_LABEL,
    PAYDAY,
    SAVINGS_MONTH,
    USERS,
)
from loaders.entity import Entity
from loaders.expiry import Expiries
from loaders.keys import ItemKey
from loaders.point_reads import PointReadLoader
from loaders.queries import QueryLoader
from loaders.rows import fields
from loaders.rows.alert import AlertRow
from loaders.rows.balance import BalanceRow
from loaders.rows.balance_settings import BalanceSettingsRow
from loaders.rows.feeder import LastPageRow, PaveLabelRow
from loaders.rows.income import IncomeRow
from loaders.rows.income_detection import IncomeDetectionRunRow
from loaders.rows.income_verification import IncomeVerificationRow
from loaders.rows.mine import EXPENSES, RECURRING, RITUAL, ExpenseKind, ExpenseRow, MineRow
from loaders.rows.payday import PaydayRow
from loaders.rows.scores import ScoreRow

__all__ = ["R", "UserReads"]

R = TypeVar("R")

#: An expense item's mine.
_LAST_MINE: Callable[[Item], datetime | None] = partial(fields.instant, name="last_mine")


class UserReads:
    """Per request: `now` is fixed at the request's start so every rule agrees on it."""

    def __init__(
        self,
        points: PointReadLoader,
        queries: QueryLoader,
        now: datetime,
        expiries: Expiries | None = None,
    ) -> None:
        self.points = points
        self.queries = queries
        self.now = now
        self.today = now.date()
        #: The earliest `ttl` of what was read, when the loaders note it (a re-read).
        self.expiries = expiries

    def collect_user_partition(self, user_id: str) -> None:
        """Read the user's `USERS#<id>` partition with one Query, which then answers every
        entity of it this request reads (the access plan decides when that is cheaper)."""
        self.queries.collect(*USERS.partition(user_id=user_id))

    def release(self) -> None:
        """The request is over: drop every item it read, now, by reference counting.

        Whatever refers back to the loaders from a cycle (a failed load's exception holds
        its traceback's frames; the executor did too, until schema/execution/executor.py
        cut it) would keep a request's items (~10^5 objects for 100 full users) until the
        collector's next older-generation pass, which then walks and frees them all (0.28 s
        of CPU a pass after requests of 100 full users, as measured)."""
        self.points.clear_all()
        self.queries.clear_all()
        self.queries.forget_collections()

    def wrote(self, key: ItemKey, item: Item | None) -> None:
        """The request wrote `item` (python values, as `to_item()` gives) under `key`, or
        wrote under `key` without knowing the item: later reads of the request see it."""
        self.queries.forget_partition(key.table, key.pk)
        self.points.clear(key)
        if item is not None:
            # In the form a read gives (Numbers as Decimal), as the row codecs expect.
            self.points.prime(key, from_wire(to_wire(item)))

    def item(self, declared: Entity[R], **values: object) -> Answer[R | None]:
        """Any declared entity's item under its key, as its row (None when absent): what
        a field reads of an entity with no rule of its own."""
        return then(self.points.answer(declared.key(**values)), _optional(declared.codec))

    def payday(self, user_id: str) -> Answer[PaydayRow | None]:
        return then(self.points.answer(PAYDAY.key(user_id=user_id)), self._payday_today)

    def _payday_today(self, item: Read | None) -> PaydayRow | None:
        if item is None:
            return None
        row = row_of(_PAYDAY_ROW, item)
        # Served only on the UTC day it was computed; the TTL is garbage collection only.
        return row if row.prediction_date == self.today else None

    def income_verification(self, user_id: str) -> Answer[IncomeVerificationRow | None]:
        return then(self.points.answer(INCOME_VERIFICATION.key(user_id=user_id)), _VERIFICATION)

    def savings_months(self, user_id: str, months: int) -> Answer[list[BalanceRow]]:
        """This UTC month and the `months - 1` before it, newest first; missing months are
        left out."""
        wanted = [
            SAVINGS_MONTH.key(user_id=user_id, month=month)
            for month in _months_back(self.today, months)
        ]
        return then(self.points.answer_many(wanted), _months)

    def alert(self, user_id: str) -> Answer[AlertRow | None]:
        return then(self.points.answer(ALERT.key(user_id=user_id)), _ALERT)

    def pave_label(self, user_id: str) -> Answer[PaveLabelRow | None]:
        return then(self.points.answer(PAVE_LABEL.key(user_id=user_id)), _PAVE_LABEL)

    def income(self, user_id: str) -> Answer[IncomeRow | None]:
        return then(self.points.answer(INCOME.key(user_id=user_id)), _INCOME)

    def low_balance_alert(self, user_id: str) -> Answer[BalanceSettingsRow | None]:
        return then(self.points.answer(BALANCE_SETTINGS.key(user_id=user_id)), _BALANCE_SETTINGS)

    def last_pages(self, user_id: str) -> Answer[list[LastPageRow]]:
        return then(self.queries.answer(LAST_PAGE.query(user_id=user_id)), _LAST_PAGES)

    def latest_mine(self, user_id: str) -> Answer[MineRow | None]:
        return then(
            self.queries.answer(MINE.query(user_id=user_id, newest_first=True, limit=1)),
            _newest_mine,
        )

    def recurring_expenses(self, user_id: str) -> Answer[list[ExpenseRow]]:
        return self._latest_expenses(RECURRING, user_id)

    def rituals(self, user_id: str) -> Answer[list[ExpenseRow]]:
        return self._latest_expenses(RITUAL, user_id)

    def _latest_expenses(self, kind: ExpenseKind, user_id: str) -> Answer[list[ExpenseRow]]:
        # The mine and the expenses are read together (one wait).
        mine = self.latest_mine(user_id)
        items = self.queries.answer(EXPENSES[kind].query(user_id=user_id))
        return when_all((mine, items), partial(_current_expenses, kind))

    def cash_advance_scores(self, user_id: str, limit: int) -> Answer[list[ScoreRow]]:
        return then(
            self.queries.answer(
                CASH_ADVANCE_SCORE.query(user_id=user_id, newest_first=True, limit=limit)
            ),
            _SCORES,
        )

    def income_detection_runs(
        self, user_id: str, limit: int
    ) -> Answer[list[IncomeDetectionRunRow]]:
        query = INCOME_DETECTION_RUN.query(user_id=user_id, newest_first=True, limit=limit)
        return then(self.queries.answer(query), _DETECTION_RUNS)


def _optional(build: Callable[[Item], R]) -> Callable[[Read | None], R | None]:
    """The row of a point read's item, None when absent."""

    def row(item: Read | None) -> R | None:
        return row_of(build, item) if item is not None else None

    return row


def _every(build: Callable[[Item], R]) -> Callable[[list[Read]], list[R]]:
    """The rows of a Query's items."""

    def rows(items: list[Read]) -> list[R]:
        kept = kept_rows(build, items)
        return kept if kept is not None else [row_of(build, item) for item in items]

    return rows


_VERIFICATION = _optional(INCOME_VERIFICATION.codec)
_ALERT = _optional(ALERT.codec)
_PAVE_LABEL = _optional(PAVE_LABEL.codec)
_INCOME = _optional(INCOME.codec)
_BALANCE_SETTINGS = _optional(BALANCE_SETTINGS.codec)
_LAST_PAGES = _every(LAST_PAGE.codec)
_SCORES = _every(CASH_ADVANCE_SCORE.codec)
_DETECTION_RUNS = _every(INCOME_DETECTION_RUN.codec)
_PAYDAY_ROW = PAYDAY.codec
_MONTH_ROW = SAVINGS_MONTH.codec
_MINE_ROW = MINE.codec


#: The months of a day, found once for every user and request of that day.
_months_back = lru_cache(maxsize=16)(months_back)


def _months(items: list[Read | None]) -> list[BalanceRow]:
    return [row_of(_MONTH_ROW, item) for item in items if item is not None]


def _newest_mine(items: list[Read]) -> MineRow | None:
    return row_of(_MINE_ROW, items[0]) if items else None


def _current_expenses(
    kind: ExpenseKind, mine: MineRow | None, items: list[Read]
) -> list[ExpenseRow]:
    """The expenses of the latest mine, in the contract's order. The items of older mines
    (half of a user's, as seeded) are dropped before they are decoded; from the coherent
    cache, where every item's row is built once and kept, the rows are filtered instead."""
    if mine is None:
        return []
    build = EXPENSES[kind].codec
    mined_at = mine.mined_at
    kept = kept_rows(build, items)
    if kept is not None:
        current = [row for row in kept if row.last_mine == mined_at]
    else:
        current = [row_of(build, item) for item in items if _last_mine(item) == mined_at]
    return sorted(current, key=ExpenseRow.sort_key)


def _last_mine(item: Read) -> datetime | None:
    if not isinstance(item, Undecoded):
        return _LAST_MINE(item)
    # Its one attribute, read as `fields.instant` reads the decoded item's: a String as
    # `parse_instant` gives it (whatever its spelling), any other form decoded.
    wire = item.wire.get("last_mine")
    if wire is not None and "S" in wire:
        text = wire["S"]
        return parse_instant(text) if text else None
    return _LAST_MINE(from_wire({"last_mine": wire}) if wire is not None else {})
