"""setIncomeVerification: the user's one `income_verification` row."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from loaders.rows.income_verification import INCOME_VERIFICATION, IncomeVerificationRow
from loaders.transactions import Writes

__all__ = ["set_income_verification"]


def set_income_verification(
    writes: Writes, values: Mapping[str, Any], now: datetime
) -> IncomeVerificationRow:
    """The row of the input's `values`, every one checked (`IncomeVerificationRow`)."""
    row = IncomeVerificationRow.written(values, now)
    writes.put(INCOME_VERIFICATION.table, row.to_item())
    return row
