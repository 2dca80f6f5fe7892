"""setIncomeVerification: the user's one `income_verification` row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from loaders import validation
from loaders.rows.income_verification import (
    INCOME_VERIFICATION,
    VERIFICATION_SOURCES,
    VERIFICATION_STATUSES,
    IncomeVerificationRow,
)
from loaders.transactions import Writes
from loaders.writers.common import MAX_NOTES

__all__ = ["IncomeVerificationCommand", "income_verification_row", "set_income_verification"]


@dataclass(frozen=True, slots=True)
class IncomeVerificationCommand:
    user_id: str
    txn_name: str
    txn_id: str
    amount_in_cents: int
    pay_frequency: str
    institution_id: str
    verification_status: str
    is_valid: bool
    notes: Sequence[str] = ()
    verification_source: str = ""


def income_verification_row(
    command: IncomeVerificationCommand, now: datetime
) -> IncomeVerificationRow:
    validation.bounded("notes", command.notes, maximum=MAX_NOTES)
    return IncomeVerificationRow(
        user_id=validation.identifier("userId", command.user_id),
        txn_name=validation.text("txnName", command.txn_name),
        txn_id=validation.identifier("txnId", command.txn_id),
        amount_in_cents=validation.cents("amountInCents", command.amount_in_cents),
        pay_frequency=validation.non_empty_text("payFrequency", command.pay_frequency),
        institution_id=validation.text("institutionId", command.institution_id),
        verification_status=validation.one_of(
            "verificationStatus", command.verification_status, VERIFICATION_STATUSES
        ),
        is_valid=command.is_valid,
        last_updated=now,
        notes=tuple(validation.text(f"notes[{n}]", note) for n, note in enumerate(command.notes)),
        verification_source=validation.one_of(
            "verificationSource", command.verification_source, VERIFICATION_SOURCES
        ),
    )


def set_income_verification(
    writes: Writes, command: IncomeVerificationCommand, now: datetime
) -> IncomeVerificationRow:
    row = income_verification_row(command, now)
    writes.put(INCOME_VERIFICATION.table, row.to_item())
    return row
