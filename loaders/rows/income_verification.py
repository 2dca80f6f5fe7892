from __future__ import annotations

from datetime import datetime

from loaders import validation
from loaders.entity import entity
from loaders.record import Input, Record, attribute, record, user_key
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = ["INCOME_VERIFICATION", "IncomeVerificationRow"]

VERIFICATION_STATUSES = ("pending", "approved", "denied")
VERIFICATION_SOURCES = ("ollie", "mx", "")
#: Far above real use, low enough to keep one item under 400 KB.
MAX_NOTES = 100


@record
class IncomeVerificationRow(Record):
    """The user's income verification: the paycheck transaction checked and the verdict."""

    TYPE = "income_verification"

    user_id: str = user_key("The user whose income was verified.")
    txn_name: str | None = attribute(
        "The verified paycheck transaction's name, as the bank shows it.",
        input=Input("The paycheck transaction's name.", validation.text),
    )
    txn_id: str | None = attribute(
        "The verified transaction's id.",
        input=Input("The paycheck transaction's id.", validation.identifier),
    )
    amount_in_cents: int | None = attribute(
        "The paycheck's amount in cents (an integer: 123456 is $1,234.56).",
        input=Input("The paycheck's amount in cents (an integer).", validation.cents),
    )
    pay_frequency: str | None = attribute(
        "The pay cadence the verification found (e.g. `biweekly`).",
        input=Input("The pay cadence (e.g. `biweekly`).", validation.non_empty_text),
    )
    institution_id: str | None = attribute(
        "The financial institution holding the account the paycheck reached.",
        input=Input(
            "The financial institution holding the account the paycheck reached.",
            validation.text,
        ),
    )
    verification_status: str | None = attribute(
        "`pending`, `approved` or `denied`.",
        input=Input("`pending`, `approved` or `denied`.", validation.choice(VERIFICATION_STATUSES)),
    )
    is_valid: bool | None = attribute(
        "Whether the verified income counts as valid.",
        input=Input("Whether the income counts as valid."),
    )
    last_updated: datetime | None = attribute("When the row was last written (UTC).", clock=True)
    notes: tuple[str, ...] = attribute(
        "Free-text notes of the verification, as stored; empty when none.",
        input=Input(
            "Free-text notes; default none.", validation.text, default=(), maximum=MAX_NOTES
        ),
    )
    verification_source: str | None = attribute(
        "Who verified: `ollie`, `mx`, or an empty string when not recorded.",
        input=Input(
            "Who verified: `ollie`, `mx`, or an empty string (default).",
            validation.choice(VERIFICATION_SOURCES),
            default="",
        ),
    )


#: A user's income verification.
INCOME_VERIFICATION = entity(
    "income_verification",
    Table.PAVE,
    pk=USERS,
    sk="VERIFICATION",
    wakes=True,
    record=IncomeVerificationRow,
    read_units=0.5,
    read_items=1,
)
