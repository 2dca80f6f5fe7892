"""When the items a request read expire: the earliest `ttl` among them."""

from __future__ import annotations

from decimal import Decimal

__all__ = ["Expiries"]


class Expiries:
    """The earliest `ttl` (epoch seconds) of the live items read: from then on, the same
    reads would answer differently by time alone (an expired item is absent). Kept by the
    loaders of a subscription's re-read, which is read again at that instant."""

    __slots__ = ("earliest",)

    def __init__(self) -> None:
        self.earliest: Decimal | None = None

    def note(self, ttl: object) -> None:
        if not isinstance(ttl, Decimal | int | str):
            return
        value = Decimal(ttl)
        if self.earliest is None or value < self.earliest:
            self.earliest = value
