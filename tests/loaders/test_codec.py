from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from loaders.codec import format_instant, from_wire, is_live, months_back, parse_instant, to_wire

NOW = datetime(2026, 12, 2, 11, 31, 28, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-12-02T11:31:28Z", NOW),
        ("2026-12-02T11:31:28.5Z", NOW.replace(microsecond=500000)),
        ("2026-12-02T11:31:28.123456789Z", NOW.replace(microsecond=123456)),
        ("2026-12-02T12:31:28+01:00", NOW),
        ("2026-12-02T06:31:28-05:00", NOW),
    ],
)
def test_parse_instant_accepts_rfc3339_forms(text: str, expected: datetime) -> None:
    assert parse_instant(text) == expected


def test_parse_instant_refuses_a_naive_time() -> None:
    with pytest.raises(ValueError, match="timezone"):
        parse_instant("2026-12-02T11:31:28")


def test_a_remembered_instant_is_the_same_and_a_refusal_is_refused_again() -> None:
    text = "".join(["2026-12-02T12:31:28", "+01:00"])  # another string of the same text
    assert parse_instant("2026-12-02T12:31:28+01:00") == parse_instant(text) == NOW
    assert parse_instant(text).tzinfo is UTC
    for _ in range(2):
        with pytest.raises(ValueError, match="timezone"):
            parse_instant("2026-12-02T11:31:28")


def test_format_instant_is_utc_with_z() -> None:
    assert format_instant(NOW) == "2026-12-02T11:31:28Z"
    assert format_instant(NOW.replace(microsecond=250000)) == "2026-12-02T11:31:28.25Z"
    assert format_instant(NOW, microseconds=True) == "2026-12-02T11:31:28.000000Z"


def test_numbers_stay_exact_decimals_both_ways() -> None:
    wire = {"amount": {"N": "0.10"}, "n": {"N": "12345678901234567890.12"}}
    item = from_wire(wire)
    assert item == {"amount": Decimal("0.10"), "n": Decimal("12345678901234567890.12")}
    assert to_wire(item) == wire


def test_an_item_expiring_exactly_now_is_gone() -> None:
    now_seconds = int(NOW.timestamp())
    assert is_live({"ttl": Decimal(now_seconds + 1)}, NOW)
    assert not is_live({"ttl": Decimal(now_seconds)}, NOW)
    assert not is_live({"ttl": Decimal(now_seconds - 1)}, NOW)
    assert is_live({}, NOW)


def test_months_back_crosses_the_year() -> None:
    assert months_back(date(2026, 2, 14), 4) == ["2026-02", "2026-01", "2025-12", "2025-11"]
    assert months_back(date(2026, 12, 2), 1) == ["2026-12"]


WIRE_SAMPLES: list[dict[str, object]] = [
    {"S": "x"},
    {"S": ""},
    {"N": "12.50"},
    {"N": "-0.000000000000000000000000000000000001"},
    {"N": "12345678901234567890123456789012345678"},
    {"BOOL": False},
    {"NULL": True},
    {"SS": ["a", "b"]},
    {"NS": ["1", "2.50"]},
    {"B": b"\x00\xff"},
    {"BS": [b"a", b"b"]},
    {"L": []},
    {"M": {}},
    {"M": {"a": {"L": [{"N": "1"}, {"M": {"b": {"B": b"z"}}}, {"NULL": True}]}}},
]


@pytest.mark.parametrize("wire", WIRE_SAMPLES)
def test_from_wire_gives_what_boto3s_deserializer_gives(wire: dict[str, object]) -> None:
    from boto3.dynamodb.types import TypeDeserializer

    expected = TypeDeserializer().deserialize(wire)
    got = from_wire({"a": wire})["a"]
    assert got == expected
    assert type(got) is type(expected)


def test_from_wire_decodes_every_attribute_of_an_item_as_boto3_does() -> None:
    from boto3.dynamodb.types import TypeDeserializer

    wire = {f"a{n}": sample for n, sample in enumerate(WIRE_SAMPLES)}
    wire["nested"] = {"M": dict(wire)}
    expected = {name: TypeDeserializer().deserialize(value) for name, value in wire.items()}
    got = from_wire(wire)
    assert got == expected
    assert list(got) == list(expected)
    assert [type(value) for value in got.values()] == [type(v) for v in expected.values()]
    assert [type(v) for v in got["nested"].values()] == [
        type(v) for v in expected["nested"].values()
    ]


@pytest.mark.parametrize("wire", [{}, {"X": "1"}])
def test_from_wire_refuses_what_boto3_refuses(wire: dict[str, object]) -> None:
    with pytest.raises(TypeError):
        from_wire({"a": wire})
