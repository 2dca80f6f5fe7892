from __future__ import annotations

from loaders.rows.income_verification import IncomeVerificationRow
from schema.declared import output


@output(
    IncomeVerificationRow,
    description="The user's income verification (the `income_verification` row, one per "
    "user): the paycheck transaction that was checked and the verdict.",
)
class IncomeVerification:
    pass
