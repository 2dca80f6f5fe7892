"""Go's `time.Duration` text form (`1m0s`, `1.5s`, `250ms`), both ways.

The `locks` table stores `leaseDuration` as Go's `Duration.String()` and the Go client
reads it back with `time.ParseDuration`, so the gateway writes and reads exactly that.
Durations are whole nanoseconds, as in Go.
"""

from __future__ import annotations

import re
from decimal import Decimal

NANOSECOND = 1
MICROSECOND = 1_000 * NANOSECOND
MILLISECOND = 1_000 * MICROSECOND
SECOND = 1_000 * MILLISECOND
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE

# Go accepts both micro signs (U+00B5 and U+03BC) and "us"; it writes U+00B5.
_UNITS = {
    "ns": NANOSECOND,
    "us": MICROSECOND,
    "\u00b5s": MICROSECOND,
    "\u03bcs": MICROSECOND,
    "ms": MILLISECOND,
    "s": SECOND,
    "m": MINUTE,
    "h": HOUR,
}
_TERM = re.compile(r"(\d*)(?:\.(\d*))?(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")


def format_go_duration(nanoseconds: int) -> str:
    """What Go's `time.Duration(nanoseconds).String()` returns."""
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    magnitude = abs(nanoseconds)
    if magnitude < SECOND:
        # Below a second Go switches to the largest unit that keeps a whole part.
        if magnitude < MICROSECOND:
            return f"{sign}{magnitude}ns"
        unit, scale = ("\u00b5s", MICROSECOND) if magnitude < MILLISECOND else ("ms", MILLISECOND)
        return sign + _whole_and_fraction(magnitude, scale) + unit
    whole_seconds, fraction = divmod(magnitude, SECOND)
    text = str(whole_seconds % 60) + _fraction_text(fraction, SECOND) + "s"
    minutes = whole_seconds // 60
    if minutes:
        text = f"{minutes % 60}m" + text
        hours = minutes // 60
        if hours:
            text = f"{hours}h" + text
    return sign + text


def parse_go_duration(text: str) -> int:
    """Nanoseconds of a Go duration string, as `time.ParseDuration` reads it."""
    rest = text
    sign = 1
    if rest[:1] in ("-", "+"):
        sign = -1 if rest[0] == "-" else 1
        rest = rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise ValueError(f"invalid duration {text!r}")
    total = Decimal(0)
    position = 0
    while position < len(rest):
        term = _TERM.match(rest, position)
        if term is None or not (term.group(1) or term.group(2)):
            raise ValueError(f"invalid duration {text!r}")
        whole, fraction, unit = term.group(1) or "0", term.group(2) or "0", term.group(3)
        total += Decimal(f"{whole}.{fraction}") * _UNITS[unit]
        position = term.end()
    return sign * int(total)


def _whole_and_fraction(value: int, scale: int) -> str:
    whole, fraction = divmod(value, scale)
    return str(whole) + _fraction_text(fraction, scale)


def _fraction_text(fraction: int, scale: int) -> str:
    # Go prints the fraction's digits with its trailing zeros dropped, and no point at all
    # for a zero fraction.
    if fraction == 0:
        return ""
    digits = str(fraction).rjust(len(str(scale)) - 1, "0").rstrip("0")
    return "." + digits
