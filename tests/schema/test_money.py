"""Money as written (SPEC section 3): a `Decimal` is a string with two decimals, or more
where the stored number has more, never rounded, on both execution paths."""

from __future__ import annotations

from decimal import Context, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema.scalars import format_decimal
from support.fixed_clock import FixedClock
from support.http_client import gateway_client, tokens


@pytest.mark.parametrize(
    ("stored", "wire"),
    [
        ("1.1", "1.10"),
        ("100", "100.00"),
        ("1.005", "1.005"),
        ("1E+2", "100.00"),
        ("1.500", "1.50"),
        ("0", "0.00"),
        ("-0", "0.00"),
        ("-3.2", "-3.20"),
        ("0.0000001", "0.0000001"),
        ("12345678901234567890123456789012.345", "12345678901234567890123456789012.345"),
    ],
)
def test_a_decimal_has_two_decimals_or_as_many_as_it_holds(stored: str, wire: str) -> None:
    assert format_decimal(Decimal(stored)) == wire


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_a_number_that_is_not_finite_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match="Decimal cannot represent"):
        format_decimal(Decimal(value))


@given(
    st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(
        lambda d: abs(d.adjusted()) < 60
    )
)
def test_the_form_is_exact_plain_and_has_two_decimals_at_least(value: Decimal) -> None:
    wire = format_decimal(value)

    whole, point, fraction = wire.partition(".")
    assert point == "."
    assert whole.lstrip("-").isdigit()
    assert fraction.isdigit()
    assert len(fraction) >= 2
    # Never rounded: the string is the same number, and nothing past the second decimal
    # is a zero that carries no value.
    assert Decimal(wire) == value
    assert len(fraction) == 2 or not fraction.endswith("0")
    # DynamoDB normalises (1.10 is kept as 1.1): the form depends on the value alone.
    assert format_decimal(value.normalize(Context(prec=200))) == wire


SNAPSHOT = """
mutation Save($input: RecordSavingsSnapshotInput!) {
  recordSavingsSnapshot(input: $input) { accounts { amount } totalAvailable }
}
"""
READ = '{ user(id: "u-1") { savingsMonths(months: 1) { accounts { amount } totalAvailable } } }'


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "graphql-core"])
async def test_an_amount_written_as_1_10_reads_back_as_1_10_on_the_wire(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, compiled: bool
) -> None:
    token = tokens(clock)
    saved = {
        "userId": "u-1",
        "accounts": [
            {"accountId": "a-1", "amount": "1.10", "subtype": "savings"},
            {"accountId": "a-2", "amount": "100", "subtype": "checking"},
        ],
    }
    async with gateway_client(settings, dynamo, clock, compiled_execution=compiled) as client:
        written = await client.post(
            "/graphql",
            json={"query": SNAPSHOT, "variables": {"input": saved}},
            headers={"Authorization": f"Bearer {token['writer']()}"},
        )
        read = await client.post(
            "/graphql",
            json={"query": READ},
            headers={"Authorization": f"Bearer {token['end user']()}"},
        )

    expected = b'"accounts":[{"amount":"1.10"},{"amount":"100.00"}],"totalAvailable":"101.10"'
    assert written.status_code == 200, written.text
    assert expected in written.content
    assert read.status_code == 200, read.text
    assert read.content == b'{"data":{"user":{"savingsMonths":[{' + expected + b"}]}}}"
