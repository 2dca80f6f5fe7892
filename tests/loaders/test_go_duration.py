from __future__ import annotations

import pytest

from loaders.lock.go_duration import (
    HOUR,
    MICROSECOND,
    MILLISECOND,
    MINUTE,
    SECOND,
    format_go_duration,
    parse_go_duration,
)

# Go's own table for Duration.String (src/time/time_test.go), plus the lock's leases.
GO_STRINGS = [
    ("0s", 0),
    ("1ns", 1),
    ("1.1\u00b5s", 1100),
    ("2.2ms", 2200 * MICROSECOND),
    ("3.3s", 3300 * MILLISECOND),
    ("4m5s", 4 * MINUTE + 5 * SECOND),
    ("4m5.001s", 4 * MINUTE + 5001 * MILLISECOND),
    ("5h6m7.001s", 5 * HOUR + 6 * MINUTE + 7001 * MILLISECOND),
    ("8m0.000000001s", 8 * MINUTE + 1),
    ("2562047h47m16.854775807s", 2**63 - 1),
    ("-2562047h47m16.854775808s", -(2**63)),
    ("1m0s", 60 * SECOND),
    ("20s", 20 * SECOND),
    ("1s", SECOND),
    ("1h0m0s", HOUR),
    ("500ms", 500 * MILLISECOND),
]


@pytest.mark.parametrize(("text", "nanoseconds"), GO_STRINGS)
def test_format_matches_go(text: str, nanoseconds: int) -> None:
    assert format_go_duration(nanoseconds) == text


@pytest.mark.parametrize(("text", "nanoseconds"), GO_STRINGS)
def test_parse_reads_what_go_writes(text: str, nanoseconds: int) -> None:
    assert parse_go_duration(text) == nanoseconds


@pytest.mark.parametrize(
    ("text", "nanoseconds"),
    [
        ("0", 0),
        ("60s", 60 * SECOND),
        ("1.5h", 90 * MINUTE),
        ("+5s", 5 * SECOND),
        (".5s", 500 * MILLISECOND),
        ("1.s", SECOND),
        ("3us", 3 * MICROSECOND),
        ("3\u03bcs", 3 * MICROSECOND),
        ("1h15m30.918273645s", HOUR + 15 * MINUTE + 30 * SECOND + 918273645),
    ],
)
def test_parse_accepts_go_input_forms(text: str, nanoseconds: int) -> None:
    assert parse_go_duration(text) == nanoseconds


@pytest.mark.parametrize("text", ["", "3", "-", "s", ".s", "1d", "1m 0s", "one second"])
def test_parse_rejects_what_go_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="invalid duration"):
        parse_go_duration(text)
