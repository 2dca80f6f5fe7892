from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from loaders import validation
from loaders.errors import BadUserInput


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("12.34", "12.34"),
        ("1.10", "1.1"),
        ("1.100", "1.1"),
        ("1E+2", "100"),
        ("-0.00", "0"),
        ("-5.5", "-5.5"),
        ("0", "0"),
    ],
)
def test_money_accepts_two_places_and_stores_the_canonical_number(given: str, stored: str) -> None:
    assert str(validation.money("amount", Decimal(given))) == stored


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ("1.005", "at most two decimal places"),
        ("0.001", "at most two decimal places"),
        ("NaN", "finite"),
        ("Infinity", "finite"),
        ("1e30", "at most two decimal places"),
        ("1000000000000", "less than"),
    ],
)
def test_money_rejects(given: str, problem: str) -> None:
    with pytest.raises(BadUserInput, match=problem) as error:
        validation.money("accounts[0].amount", Decimal(given))
    assert error.value.field == "accounts[0].amount"
    assert error.value.graphql_extensions() == {
        "code": "BAD_USER_INPUT",
        "field": "accounts[0].amount",
    }


@pytest.mark.parametrize("given", ["", "   ", " u-1", "u-1 ", "u\n1", "x" * 257])
def test_identifier_rejects(given: str) -> None:
    with pytest.raises(BadUserInput):
        validation.identifier("userId", given)


def test_identifier_accepts_a_plain_id() -> None:
    assert validation.identifier("userId", "u-1") == "u-1"


@pytest.mark.parametrize("given", ["", " ", "x" * 257, "\U0001f600" * 251, "é" * 256 + "x"])
def test_a_key_part_stays_inside_dynamodbs_key_limits(given: str) -> None:
    with pytest.raises(BadUserInput):
        validation.key_part("ids", given)


@pytest.mark.parametrize("given", ["x" * 256, "\U0001f600" * 250, " u-1", "u\t1"])
def test_a_key_part_may_be_any_id_written_elsewhere(given: str) -> None:
    assert validation.key_part("ids", given) == given


@pytest.mark.parametrize("given", ["2026-00", "2026-13", "2026-1", "26-01", "0000-01", ""])
def test_month_rejects(given: str) -> None:
    with pytest.raises(BadUserInput, match="YYYY-MM"):
        validation.month("month", given)


CHECKS: list[tuple[Callable[[], Any], str]] = [
    (lambda: validation.cents("amountInCents", -1), "negative"),
    (lambda: validation.cents("amountInCents", 2**53), "less than"),
    (lambda: validation.whole_number("page", -1, minimum=0, maximum=10), "from 0 to 10"),
    (lambda: validation.probability("mlProbabilities[0]", Decimal("1.01")), "from 0 to 1"),
    (lambda: validation.probability("mlProbabilities[0]", Decimal("-0.1")), "from 0 to 1"),
    (lambda: validation.choice({"pending", "approved"})("status", "maybe"), "one of"),
    (lambda: validation.bounded("notes", [1, 2, 3], maximum=2), "at most 2"),
    (lambda: validation.text("source", "x" * 1025), "at most 1024"),
    (lambda: validation.non_empty_text("source", " "), "empty"),
]


@pytest.mark.parametrize(("check", "problem"), CHECKS)
def test_other_checks_reject(check: Callable[[], Any], problem: str) -> None:
    with pytest.raises(BadUserInput, match=problem):
        check()
