from __future__ import annotations

from decimal import Decimal
from typing import Annotated, TypeAlias

import strawberry

from loaders import entities as e
from loaders.answers import Answer, then
from loaders.rows.alert import AlertRow
from loaders.rows.balance import BalanceRow
from loaders.rows.balance_settings import BalanceSettingsRow
from loaders.rows.feeder import LastPageRow, PaveLabelRow
from loaders.rows.income import IncomeRow
from loaders.rows.income_detection import IncomeDetectionRunRow
from loaders.rows.income_verification import IncomeVerificationRow
from loaders.rows.mine import ExpenseRow, MineRow
from loaders.rows.payday import PaydayRow
from loaders.rows.scores import ScoreRow
from schema.alert import BalanceAlert
from schema.arguments import MAX_LIMIT, MAX_MONTHS, check_range
from schema.context import Info
from schema.feeder import LastPage, PaveLabel
from schema.field_reads import reads
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
    """Each field answers with rows, which complete as the field's type (the `schema.<entity>`
    types are derived from the rows' declarations, `schema.declared`), at once when the
    request's reads are known (a warm cache) and after the request's one wait otherwise
    (`loaders.answers`)."""

    id: strawberry.ID = strawberry.field(
        description="The user's id, the `<user_id>` of the tables' keys.", metadata=reads()
    )

    @strawberry.field(
        description="The user's payday prediction, served only while its `predictionDate` "
        "is today's UTC date (a same-day cache); otherwise null.",
        graphql_type=PaydayPrediction | None,
        metadata=reads(e.PAYDAY),
    )
    def payday(self, info: Info) -> Answer[PaydayRow | None]:
        return info.context.reads.payday(self.id)

    @strawberry.field(
        description="The user's income verification; null when none was recorded.",
        graphql_type=IncomeVerification | None,
        metadata=reads(e.INCOME_VERIFICATION),
    )
    def income_verification(self, info: Info) -> Answer[IncomeVerificationRow | None]:
        return info.context.reads.income_verification(self.id)

    @strawberry.field(
        description="The savings snapshots of this UTC month and the `months - 1` months "
        "before it, newest first; a month with no snapshot is left out.",
        graphql_type=list[SavingsMonth] | None,
        metadata=reads(e.SAVINGS_MONTH, times="months"),
    )
    def savings_months(self, info: Info, months: Months = 3) -> Answer[list[BalanceRow]]:
        check_range("months", months, 1, MAX_MONTHS)
        return info.context.reads.savings_months(self.id, months)

    @strawberry.field(
        description="The last low-balance alert sent to the user; null when none was.",
        graphql_type=BalanceAlert | None,
        metadata=reads(e.ALERT),
    )
    def alert(self, info: Info) -> Answer[AlertRow | None]:
        return info.context.reads.alert(self.id)

    @strawberry.field(
        description="The recurring expenses of the user's latest mine only (rows of older "
        "mines are left out), by due date, then merchant name; empty when never mined.",
        graphql_type=list[RecurringExpense] | None,
        metadata=reads(e.MINE, e.RECURRING_EXPENSE),
    )
    def recurring_expenses(self, info: Info) -> Answer[list[ExpenseRow]]:
        return info.context.reads.recurring_expenses(self.id)

    @strawberry.field(
        description="The rituals of the user's latest mine only (rows of older mines are "
        "left out), by due date, then merchant name; empty when never mined.",
        graphql_type=list[Ritual] | None,
        metadata=reads(e.MINE, e.RITUAL_EXPENSE),
    )
    def rituals(self, info: Info) -> Answer[list[ExpenseRow]]:
        return info.context.reads.rituals(self.id)

    @strawberry.field(
        description="The user's cash-advance scores, newest first, at most `limit`; a "
        "score is kept `INSIGHT_SCORE_TTL_DAYS` days (default 30).",
        graphql_type=list[CashAdvanceScore] | None,
        metadata=reads(e.CASH_ADVANCE_SCORE),
    )
    def cash_advance_scores(self, info: Info, limit: Limit = 10) -> Answer[list[ScoreRow]]:
        check_range("limit", limit, 1, MAX_LIMIT)
        return info.context.reads.cash_advance_scores(self.id, limit)

    @strawberry.field(
        description="The user's income detection runs of the last 7 days, newest first, at "
        "most `limit`.",
        graphql_type=list[IncomeDetectionRun] | None,
        metadata=reads(e.INCOME_DETECTION_RUN),
    )
    def income_detection_runs(
        self, info: Info, limit: Limit = 10
    ) -> Answer[list[IncomeDetectionRunRow]]:
        check_range("limit", limit, 1, MAX_LIMIT)
        return info.context.reads.income_detection_runs(self.id, limit)

    @strawberry.field(
        description="The user's income as Pave derived it; null when none.",
        graphql_type=Income | None,
        metadata=reads(e.INCOME),
    )
    def income(self, info: Info) -> Answer[IncomeRow | None]:
        return info.context.reads.income(self.id)

    @strawberry.field(
        description="The user's newest mine, the one whose expenses and rituals are "
        "served; null when the user was never mined.",
        graphql_type=Mine | None,
        metadata=reads(e.MINE),
    )
    def latest_mine(self, info: Info) -> Answer[MineRow | None]:
        return info.context.reads.latest_mine(self.id)

    @strawberry.field(
        description="The feeder's label on the user (`REFRESH_INSIGHTS`); null when none.",
        graphql_type=PaveLabel | None,
        metadata=reads(e.PAVE_LABEL),
    )
    def pave_label(self, info: Info) -> Answer[PaveLabelRow | None]:
        return info.context.reads.pave_label(self.id)

    @strawberry.field(
        description="The last page fed for each Pave request of the last 5 days.",
        graphql_type=list[LastPage] | None,
        metadata=reads(e.LAST_PAGE),
    )
    def last_pages(self, info: Info) -> Answer[list[LastPageRow]]:
        return info.context.reads.last_pages(self.id)

    @strawberry.field(
        description="The user's low-balance alert threshold in dollars (from "
        "`user-balance-settings`); null when alerts are off.",
        graphql_type=Decimal | None,
        metadata=reads(e.BALANCE_SETTINGS),
    )
    def low_balance_alert(self, info: Info) -> Answer[Decimal | None]:
        return then(info.context.reads.low_balance_alert(self.id), _threshold)


def _threshold(row: BalanceSettingsRow | None) -> Decimal | None:
    return row.low_balance_alert if row is not None else None
