from __future__ import annotations

from loaders.rows.income import IncomeRow
from schema.declared import output


@output(
    IncomeRow,
    description="The user's income as Pave derived it (the `income` row, one per user, "
    "never expired).",
)
class Income:
    pass
