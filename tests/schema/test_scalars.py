"""The wire forms of Decimal and DateTime, remembered per value (`schema.scalars.WireForms`,
one per schema), are exactly the forms made afresh, whichever equal value came first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loaders.codec import format_instant
from schema.prepared import owner_of
from schema.root import build_schema
from schema.scalars import WireForms, format_decimal

FORMS = WireForms()
serialize_decimal = FORMS.decimal
serialize_instant = FORMS.instant

FINITE = st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(
    lambda d: abs(d.adjusted()) < 60
)


@given(FINITE, st.integers(0, 4))
def test_a_remembered_decimal_form_is_the_form_of_every_equal_value(
    value: Decimal, zeros: int
) -> None:
    plain = f"{value:f}"
    wider = Decimal(plain + ("" if "." in plain else ".") + "0" * zeros)
    assert wider == value
    # Either one first: both get the form of the value.
    assert serialize_decimal(wider) == format_decimal(wider) == format_decimal(value)
    assert serialize_decimal(value) == format_decimal(value)


def test_a_value_that_is_not_a_decimal_is_formed_and_not_remembered() -> None:
    # 1.5 == Decimal("1.5") and hash alike: remembered forms are only a Decimal's own.
    remembered = len(FORMS)
    assert serialize_decimal(2.25) == "2.25"
    assert serialize_decimal(7) == "7.00"
    assert remembered == len(FORMS)


@pytest.mark.parametrize("value", ["NaN", "sNaN", "Infinity", "-Infinity"])
def test_a_number_that_is_not_finite_is_refused_as_before(value: str) -> None:
    with pytest.raises(ValueError, match="Decimal cannot represent"):
        serialize_decimal(Decimal(value))


def test_the_remembered_forms_are_bounded() -> None:
    forms = WireForms(maxsize=10)
    for cents in range(25):
        assert forms.decimal(Decimal(cents) / 100) == format_decimal(Decimal(cents) / 100)
        assert 0 < len(forms) <= 10


@given(st.datetimes(timezones=st.just(UTC)))
def test_a_remembered_instant_form_is_the_form_made_afresh(at: datetime) -> None:
    assert serialize_instant(at) == format_instant(at)
    assert serialize_instant(at) == format_instant(at)


def test_an_instant_in_another_zone_is_formed_in_utc_and_not_remembered() -> None:
    at = datetime(2026, 12, 2, 13, 31, 28, 500000, tzinfo=timezone(timedelta(hours=2)))
    remembered = len(FORMS)
    assert serialize_instant(at) == "2026-12-02T11:31:28.5Z" == format_instant(at)
    assert remembered == len(FORMS)


def test_a_schemas_forms_are_its_owners() -> None:
    """The schema serializes through its own forms (no module global remembers them)."""
    schema = build_schema()
    forms = owner_of(schema._schema).forms  # type: ignore[union-attr]
    before = len(forms)
    datetime_type = schema._schema.get_type("DateTime")
    at = datetime(2026, 12, 2, 11, 31, 28, tzinfo=UTC)
    assert datetime_type.serialize(at) == "2026-12-02T11:31:28Z"  # type: ignore[union-attr]
    assert len(forms) == before + 1
