from __future__ import annotations

from decimal import Decimal
from typing import Annotated, TypeAlias

import strawberry

from schema.alert import BalanceAlert
from schema.arguments import MAX_LIMIT, MAX_MONTHS, check_range
from schema.context import Info
from schema.feeder import LastPage, PaveLabel
from schema.income import Income
from schema.income_detection import IncomeDetectionRun
from schema.income_verification import IncomeVerification
from schema.mine import Mine, RecurringExpense, Ritual
from schema.payday import PaydayPrediction
from schema.savings import SavingsMonth
from schema.scores import CashAdvanceScore

Months: TypeAlias = Annotated[
    int,
    strawberry.argument(
        description="How many months, 1 to 12: this UTC month and the `months - 1` before "
        "it. Multiplies the field's cost."
    ),
]
Limit: TypeAlias = Annotated[
    int,
    strawberry.argument(
        description="At most this many, newest first; 1 to 100. Multiplies the field's cost."
    ),
]


@strawberry.type(
    description="Everything the Insight tables hold about one user. Each field is read only "
    "when selected, all of a request's users together, under the read rule it names; a row "
    "whose TTL has passed is never served. A field whose read fails is null with its error "
    "(an empty list: read, and nothing there)."
)
class User:
    id: strawberry.ID = strawberry.field(
        description="The user's id, the `<user_id>` of the tables' keys."
    )

    @strawberry.field(
        description="The user's payday prediction, served only while its `predictionDate` "
        "is today's UTC date (a same-day cache); otherwise null."
    )
    async def payday(self, info: Info) -> PaydayPrediction | None:
        row = await info.context.reads.payday(self.id)
        return PaydayPrediction.from_row(row) if row is not None else None

    @strawberry.field(description="The user's income verification; null when none was recorded.")
    async def income_verification(self, info: Info) -> IncomeVerification | None:
        row = await info.context.reads.income_verification(self.id)
        return IncomeVerification.from_row(row) if row is not None else None

    @strawberry.field(
        description="The savings snapshots of this UTC month and the `months - 1` months "
        "before it, newest first; a month with no snapshot is left out."
    )
    async def savings_months(self, info: Info, months: Months = 3) -> list[SavingsMonth] | None:
        check_range("months", months, 1, MAX_MONTHS)
        rows = await info.context.reads.savings_months(self.id, months)
        return [SavingsMonth.from_row(row) for row in rows]

    @strawberry.field(
        description="The last low-balance alert sent to the user; null when none was."
    )
    async def alert(self, info: Info) -> BalanceAlert | None:
        row = await info.context.reads.alert(self.id)
        return BalanceAlert.from_row(row) if row is not None else None

    @strawberry.field(
        description="The recurring expenses of the user's latest mine only (rows of older "
        "mines are left out), by due date, then merchant name; empty when never mined."
    )
    async def recurring_expenses(self, info: Info) -> list[RecurringExpense] | None:
        rows = await info.context.reads.recurring_expenses(self.id)
        return [RecurringExpense.from_row(row) for row in rows]

    @strawberry.field(
        description="The rituals of the user's latest mine only (rows of older mines are "
        "left out), by due date, then merchant name; empty when never mined."
    )
    async def rituals(self, info: Info) -> list[Ritual] | None:
        rows = await info.context.reads.rituals(self.id)
        return [Ritual.from_row(row) for row in rows]

    @strawberry.field(
        description="The user's cash-advance scores, newest first, at most `limit`; a "
        "score is kept `INSIGHT_SCORE_TTL_DAYS` days (default 30)."
    )
    async def cash_advance_scores(
        self, info: Info, limit: Limit = 10
    ) -> list[CashAdvanceScore] | None:
        check_range("limit", limit, 1, MAX_LIMIT)
        rows = await info.context.reads.cash_advance_scores(self.id, limit)
        return [CashAdvanceScore.from_row(row) for row in rows]

    @strawberry.field(
        description="The user's income detection runs of the last 7 days, newest first, at "
        "most `limit`."
    )
    async def income_detection_runs(
        self, info: Info, limit: Limit = 10
    ) -> list[IncomeDetectionRun] | None:
        check_range("limit", limit, 1, MAX_LIMIT)
        rows = await info.context.reads.income_detection_runs(self.id, limit)
        return [IncomeDetectionRun.from_row(row) for row in rows]

    @strawberry.field(description="The user's income as Pave derived it; null when none.")
    async def income(self, info: Info) -> Income | None:
        row = await info.context.reads.income(self.id)
        return Income.from_row(row) if row is not None else None

    @strawberry.field(
        description="The user's newest mine, the one whose expenses and rituals are "
        "served; null when the user was never mined."
    )
    async def latest_mine(self, info: Info) -> Mine | None:
        row = await info.context.reads.latest_mine(self.id)
        return Mine.from_row(row) if row is not None else None

    @strawberry.field(
        description="The feeder's label on the user (`REFRESH_INSIGHTS`); null when none."
    )
    async def pave_label(self, info: Info) -> PaveLabel | None:
        row = await info.context.reads.pave_label(self.id)
        return PaveLabel.from_row(row) if row is not None else None

    @strawberry.field(description="The last page fed for each Pave request of the last 5 days.")
    async def last_pages(self, info: Info) -> list[LastPage] | None:
        rows = await info.context.reads.last_pages(self.id)
        return [LastPage.from_row(row) for row in rows]

    @strawberry.field(
        description="The user's low-balance alert threshold in dollars (from "
        "`user-balance-settings`); null when alerts are off."
    )
    async def low_balance_alert(self, info: Info) -> Decimal | None:
        row = await info.context.reads.low_balance_alert(self.id)
        return row.low_balance_alert if row is not None else None
