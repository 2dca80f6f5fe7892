from __future__ import annotations

import datetime as dt

import strawberry

from loaders.rows.income_verification import IncomeVerificationRow


@strawberry.type(
    description="The user's income verification (the `income_verification` row, one per "
    "user): the paycheck transaction that was checked and the verdict."
)
class IncomeVerification:
    txn_name: str | None = strawberry.field(
        description="The verified paycheck transaction's name, as the bank shows it."
    )
    txn_id: str | None = strawberry.field(description="The verified transaction's id.")
    amount_in_cents: int | None = strawberry.field(
        description="The paycheck's amount in cents (an integer: 123456 is $1,234.56)."
    )
    pay_frequency: str | None = strawberry.field(
        description="The pay cadence the verification found (e.g. `biweekly`)."
    )
    institution_id: str | None = strawberry.field(
        description="The financial institution holding the account the paycheck reached."
    )
    verification_status: str | None = strawberry.field(
        description="`pending`, `approved` or `denied`."
    )
    is_valid: bool | None = strawberry.field(
        description="Whether the verified income counts as valid."
    )
    last_updated: dt.datetime | None = strawberry.field(
        description="When the row was last written (UTC)."
    )
    notes: list[str] = strawberry.field(
        description="Free-text notes of the verification, as stored; empty when none."
    )
    verification_source: str | None = strawberry.field(
        description="Who verified: `ollie`, `mx`, or an empty string when not recorded."
    )

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
