from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from loaders.codec import Item
from loaders.entity import entity
from loaders.rows import fields
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = [
    "INCOME_VERIFICATION",
    "VERIFICATION_SOURCES",
    "VERIFICATION_STATUSES",
    "IncomeVerificationRow",
]

VERIFICATION_STATUSES = ("pending", "approved", "denied")
VERIFICATION_SOURCES = ("ollie", "mx", "")


@dataclass(frozen=True, slots=True)
class IncomeVerificationRow:
    user_id: str
    txn_name: str | None
    txn_id: str | None
    amount_in_cents: int | None
    pay_frequency: str | None
    institution_id: str | None
    verification_status: str | None
    is_valid: bool | None
    last_updated: datetime | None
    notes: tuple[str, ...]
    verification_source: str | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> IncomeVerificationRow:
        return cls(
            user_id=INCOME_VERIFICATION.user_of(item["PK"]),
            txn_name=fields.text(item, "txn_name"),
            txn_id=fields.text(item, "txn_id"),
            amount_in_cents=fields.integer(item, "amount_in_cents"),
            pay_frequency=fields.text(item, "pay_frequency"),
            institution_id=fields.text(item, "institution_id"),
            verification_status=fields.text(item, "verification_status"),
            is_valid=fields.boolean(item, "is_valid"),
            last_updated=fields.instant(item, "last_updated"),
            notes=fields.texts(item, "notes"),
            verification_source=fields.text(item, "verification_source"),
        )

    def to_item(self) -> Item:
        key = INCOME_VERIFICATION.key(user_id=self.user_id)
        return fields.without_none(
            {
                "PK": key.pk,
                "SK": key.sk,
                "type": "income_verification",
                "txn_name": self.txn_name,
                "txn_id": self.txn_id,
                "amount_in_cents": self.amount_in_cents,
                "pay_frequency": self.pay_frequency,
                "institution_id": self.institution_id,
                "verification_status": self.verification_status,
                "is_valid": self.is_valid,
                "last_updated": fields.put_instant(self.last_updated),
                "notes": list(self.notes),
                "verification_source": self.verification_source,
            }
        )


#: A user's income verification.
INCOME_VERIFICATION = entity(
    "income_verification",
    Table.PAVE,
    pk=USERS,
    sk="VERIFICATION",
    wakes=True,
    row=IncomeVerificationRow.from_item,
    read_units=0.5,
    read_items=1,
    example={"user_id": "demo-ada"},
)
