from __future__ import annotations

from decimal import Decimal

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


@strawberry.type(description="Everything the Insight tables hold about one user.")
class User:
    id: strawberry.ID

    @strawberry.field(description="Today's prediction; null unless computed today (UTC).")
    async def payday(self, info: Info) -> PaydayPrediction | None:
        row = await info.context.reads.payday(self.id)
        return PaydayPrediction.from_row(row) if row is not None else None

    @strawberry.field
    async def income_verification(self, info: Info) -> IncomeVerification | None:
        row = await info.context.reads.income_verification(self.id)
        return IncomeVerification.from_row(row) if row is not None else None

    @strawberry.field(description="This UTC month and the months before it, newest first.")
    async def savings_months(self, info: Info, months: int = 3) -> list[SavingsMonth] | None:
        check_range("months", months, 1, MAX_MONTHS)
        rows = await info.context.reads.savings_months(self.id, months)
        return [SavingsMonth.from_row(row) for row in rows]

    @strawberry.field
    async def alert(self, info: Info) -> BalanceAlert | None:
        row = await info.context.reads.alert(self.id)
        return BalanceAlert.from_row(row) if row is not None else None

    @strawberry.field(description="The latest mine's recurring expenses, by due date.")
    async def recurring_expenses(self, info: Info) -> list[RecurringExpense] | None:
        rows = await info.context.reads.recurring_expenses(self.id)
        return [RecurringExpense.from_row(row) for row in rows]

    @strawberry.field(description="The latest mine's rituals, by due date.")
    async def rituals(self, info: Info) -> list[Ritual] | None:
        rows = await info.context.reads.rituals(self.id)
        return [Ritual.from_row(row) for row in rows]

    @strawberry.field(description="Newest first.")
    async def cash_advance_scores(
        self, info: Info, limit: int = 10
    ) -> list[CashAdvanceScore] | None:
        check_range("limit", limit, 1, MAX_LIMIT)
        rows = await info.context.reads.cash_advance_scores(self.id, limit)
        return [CashAdvanceScore.from_row(row) for row in rows]

    @strawberry.field(description="Newest first.")
    async def income_detection_runs(
        self, info: Info, limit: int = 10
    ) -> list[IncomeDetectionRun] | None:
        check_range("limit", limit, 1, MAX_LIMIT)
        rows = await info.context.reads.income_detection_runs(self.id, limit)
        return [IncomeDetectionRun.from_row(row) for row in rows]

    @strawberry.field
    async def income(self, info: Info) -> Income | None:
        row = await info.context.reads.income(self.id)
        return Income.from_row(row) if row is not None else None

    @strawberry.field(description="The newest mine's metadata.")
    async def latest_mine(self, info: Info) -> Mine | None:
        row = await info.context.reads.latest_mine(self.id)
        return Mine.from_row(row) if row is not None else None

    @strawberry.field
    async def pave_label(self, info: Info) -> PaveLabel | None:
        row = await info.context.reads.pave_label(self.id)
        return PaveLabel.from_row(row) if row is not None else None

    @strawberry.field(description="The last page fed, per Pave request.")
    async def last_pages(self, info: Info) -> list[LastPage] | None:
        rows = await info.context.reads.last_pages(self.id)
        return [LastPage.from_row(row) for row in rows]

    @strawberry.field(
        description="The low-balance alert threshold in dollars (user-balance-settings); "
        "null when alerts are off."
    )
    async def low_balance_alert(self, info: Info) -> Decimal | None:
        row = await info.context.reads.low_balance_alert(self.id)
        return row.low_balance_alert if row is not None else None
