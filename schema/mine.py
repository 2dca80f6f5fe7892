from __future__ import annotations

from loaders.rows.mine import MineRow, RecurringExpenseRow, RitualRow
from schema.declared import output


@output(
    MineRow,
    description="One mine of the user's transactions (the `insights` row): when it ran and "
    "what it found. The newest one decides which recurring expenses and rituals are served.",
)
class Mine:
    pass


@output(
    RecurringExpenseRow,
    description="A recurring expense (bill or subscription) the latest mine found (a "
    "`recurring` row).",
)
class RecurringExpense:
    pass


@output(
    RitualRow,
    description="A ritual, a habitual spend at one merchant, the latest mine found (a "
    "`ritual` row).",
)
class Ritual:
    pass
