from __future__ import annotations

import datetime as dt

import strawberry

from loaders.rows.income_verification import IncomeVerificationRow


@strawberry.type
class IncomeVerification:
    txn_name: str | None
    txn_id: str | None
    amount_in_cents: int | None
    pay_frequency: str | None
    institution_id: str | None
    verification_status: str | None
    is_valid: bool | None
    last_updated: dt.datetime | None
    notes: list[str]
    verification_source: str | None

    @classmethod
    def from_row(cls, row: IncomeVerificationRow) -> IncomeVerification:
        return cls(
            txn_name=row.txn_name,
            txn_id=row.txn_id,
            amount_in_cents=row.amount_in_cents,
            pay_frequency=row.pay_frequency,
            institution_id=row.institution_id,
            verification_status=row.verification_status,
            is_valid=row.is_valid,
            last_updated=row.last_updated,
            notes=list(row.notes),
            verification_source=row.verification_source,
        )
