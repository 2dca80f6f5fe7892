"""The item codec a declared row derives from its fields: exact Numbers, dates and instants
as the contract writes them, NULLs kept where declared, and a declaration that cannot be
read refused when it is made."""

from __future__ import annotations

from dataclasses import field
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from loaders.codec import from_wire, to_wire
from loaders.errors import BadUserInput
from loaders.record import Record, attribute, record
from loaders.rows.balance import AccountBalance, BalanceRow
from loaders.rows.payday import AlgorithmPrediction, PaydayRow

NOW = datetime(2026, 12, 2, 11, 31, 28, 500000, tzinfo=UTC)


def test_a_number_goes_to_the_wire_and_back_exactly() -> None:
    total = Decimal("12345678901234567890.1234567890123456")
    row = BalanceRow("u-1", "2026-12", (AccountBalance("a-1", total, None),), total, NOW, 7)

    wire = to_wire(row.to_item())

    assert wire["total_available"] == {"N": "12345678901234567890.1234567890123456"}
    assert wire["accounts"] == {
        "L": [{"M": {"account_id": {"S": "a-1"}, "amount": {"N": str(total)}}}]
    }
    assert wire["updated_date"] == {"S": "2026-12-02T11:31:28.5Z"}
    assert wire["SK"] == {"S": "SAVINGS_MONTH#2026-12"}
    assert BalanceRow.from_item(from_wire(wire)) == row


def test_declared_nulls_are_stored_and_absent_attributes_read_as_none() -> None:
    prediction = AlgorithmPrediction(date(2026, 12, 11), "biweekly", None, None, None)
    row = PaydayRow(
        "u-1", date(2026, 12, 2), None, None, None, None, None, NOW, None, prediction, None, 9
    )

    item = row.to_item()

    assert item["pave"] is None
    assert item["v2"] is None
    assert item["fm"] == {
        "payday": "2026-12-11",
        "frequency": "biweekly",
        "instant_collection_date": None,
        "standard_collection_date": None,
        "extended_collection_date": None,
    }
    assert "detection_used" not in item
    assert PaydayRow.from_item(from_wire(to_wire(item))) == row


def test_a_present_value_of_the_wrong_type_is_an_error() -> None:
    item = BalanceRow("u-1", "2026-12", (), Decimal(1), NOW, 7).to_item()

    with pytest.raises(TypeError, match="total_available must be a number"):
        BalanceRow.from_item({**item, "total_available": "1.00"})


def test_a_written_row_checks_each_input_by_its_path_and_derives_the_rest() -> None:
    account = {"account_id": "a", "amount": Decimal("1.10"), "subtype": "x"}
    values = {"user_id": "u-1", "accounts": [account]}

    row = BalanceRow.written(values, NOW)

    assert row.updated_date == NOW
    assert row.month == "2026-12"
    assert row.total_available == Decimal("1.1")
    assert row.ttl == int(NOW.timestamp()) + 365 * 86400
    bad = {**values, "accounts": [{**account, "amount": Decimal("1.001")}]}
    with pytest.raises(BadUserInput, match=r"^accounts\[0\]\.amount: must have at most two"):
        BalanceRow.written(bad, NOW)


def test_a_field_not_declared_as_an_attribute_is_refused_at_declaration() -> None:
    with pytest.raises(TypeError, match=r"Undeclared\.loose is not declared with attribute"):

        @record
        class Undeclared(Record):
            kept: str | None = attribute("Declared.")
            loose: str | None = field(default=None)
