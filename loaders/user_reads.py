"""The read rules of the contract, one method per User field, as thin views over the two
batching cores. Everything a request reads about users goes through here."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from functools import partial

from loaders import keys
from loaders.cache.items import row_of
from loaders.codec import Item, from_wire, months_back, to_wire
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
from loaders.rows.mine import RECURRING, RITUAL, ExpenseKind, ExpenseRow, MineRow, expense_from_item
from loaders.rows.payday import PaydayRow
from loaders.rows.scores import ScoreRow

#: One builder per kind, the same object each time: `row_of` keys a cached item's rows by it.
_EXPENSE_ROWS: dict[ExpenseKind, Callable[[Item], ExpenseRow]] = {
    kind: partial(expense_from_item, kind) for kind in (RECURRING, RITUAL)
}

#: An expense item's mine, parsed once per cached item.
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
        #: The earliest `ttl` of what was read, when the loaders note it (a re-read).
        self.expiries = expiries

    def collect_user_partition(self, user_id: str) -> None:
        """Read the user's `USERS#<id>` partition with one Query, which then answers every
        entity of it this request reads (the access plan decides when that is cheaper)."""
        self.queries.collect(*keys.user_partition(user_id))

    def release(self) -> None:
        """The request is over: drop every item it read, now, by reference counting.

        The loaders, their collections and the execution's objects refer to each other,
        so without this a request's items (~10^5 objects for 100 full users) outlive it
        until the collector's next older-generation pass, which then walks and frees them
        all (0.28 s of CPU a pass after requests of 100 full users, as measured)."""
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

    async def payday(self, user_id: str) -> PaydayRow | None:
        item = await self.points.load(keys.payday(user_id))
        if item is None:
            return None
        row = row_of(PaydayRow.from_item, item)
        # Served only on the UTC day it was computed; the TTL is garbage collection only.
        return row if row.prediction_date == self.now.date() else None

    async def income_verification(self, user_id: str) -> IncomeVerificationRow | None:
        item = await self.points.load(keys.income_verification(user_id))
        return row_of(IncomeVerificationRow.from_item, item) if item is not None else None

    async def savings_months(self, user_id: str, months: int) -> list[BalanceRow]:
        """This UTC month and the `months - 1` before it, newest first; missing months are
        left out."""
        wanted = [keys.savings_month(user_id, m) for m in months_back(self.now.date(), months)]
        items = await self.points.load_many(wanted)
        return [row_of(BalanceRow.from_item, item) for item in items if item is not None]

    async def alert(self, user_id: str) -> AlertRow | None:
        item = await self.points.load(keys.alert(user_id))
        return row_of(AlertRow.from_item, item) if item is not None else None

    async def pave_label(self, user_id: str) -> PaveLabelRow | None:
        item = await self.points.load(keys.pave_label(user_id))
        return row_of(PaveLabelRow.from_item, item) if item is not None else None

    async def income(self, user_id: str) -> IncomeRow | None:
        item = await self.points.load(keys.income(user_id))
        return row_of(IncomeRow.from_item, item) if item is not None else None

    async def low_balance_alert(self, user_id: str) -> BalanceSettingsRow | None:
        item = await self.points.load(keys.balance_settings(user_id))
        return row_of(BalanceSettingsRow.from_item, item) if item is not None else None

    async def last_pages(self, user_id: str) -> list[LastPageRow]:
        items = await self.queries.load(keys.last_pages_query(user_id))
        return [row_of(LastPageRow.from_item, item) for item in items]

    async def latest_mine(self, user_id: str) -> MineRow | None:
        items = await self.queries.load(keys.latest_mine_query(user_id))
        return row_of(MineRow.from_item, items[0]) if items else None

    async def recurring_expenses(self, user_id: str) -> list[ExpenseRow]:
        return await self._latest_expenses(RECURRING, keys.recurring_query(user_id), user_id)

    async def rituals(self, user_id: str) -> list[ExpenseRow]:
        return await self._latest_expenses(RITUAL, keys.rituals_query(user_id), user_id)

    async def _latest_expenses(
        self, kind: ExpenseKind, query: keys.QueryKey, user_id: str
    ) -> list[ExpenseRow]:
        # The mine and the expenses are read together (one wait), then the items of older
        # mines are dropped before their rows are built (half of a user's, as seeded).
        mine, items = await asyncio.gather(self.latest_mine(user_id), self.queries.load(query))
        if mine is None:
            return []
        build = _EXPENSE_ROWS[kind]
        current = [
            row_of(build, item) for item in items if row_of(_LAST_MINE, item) == mine.mined_at
        ]
        return sorted(current, key=lambda row: row.sort_key)

    async def cash_advance_scores(self, user_id: str, limit: int) -> list[ScoreRow]:
        items = await self.queries.load(keys.cash_advance_scores_query(user_id, limit))
        return [row_of(ScoreRow.from_item, item) for item in items]

    async def income_detection_runs(self, user_id: str, limit: int) -> list[IncomeDetectionRunRow]:
        items = await self.queries.load(keys.income_detection_runs_query(user_id, limit))
        return [row_of(IncomeDetectionRunRow.from_item, item) for item in items]
