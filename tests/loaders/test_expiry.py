"""The earliest `ttl` of what a re-read read, per user: each re-read sharing loads with
others is timed by its own user's items (and by items that name no user)."""

from __future__ import annotations

from decimal import Decimal

from loaders.expiry import Expiries
from loaders.tables import Table


def test_each_user_has_the_earliest_of_its_own_partitions() -> None:
    expiries = Expiries()
    expiries.note("300", Table.PAVE, "USERS#u-1")
    expiries.note(200, Table.PAVE, "MINE#u-1")
    expiries.note(Decimal(100), Table.PAVE, "USERS#u-2")
    expiries.note(None, Table.PAVE, "USERS#u-3")  # no ttl: never expires
    assert expiries.earliest_of("u-1") == Decimal(200)
    assert expiries.earliest_of("u-2") == Decimal(100)
    assert expiries.earliest_of("u-3") is None
    # A later, earlier note is found again.
    expiries.note(50, Table.PAVE, "USERS#u-1")
    assert expiries.earliest_of("u-1") == Decimal(50)
    assert expiries.earliest_of("u-2") == Decimal(100)


def test_a_partition_that_names_no_user_times_everyone() -> None:
    expiries = Expiries()
    expiries.note(500, Table.PAVE, "USERS#u-1")
    expiries.note(400, Table.PAVE, "no-separator")
    assert expiries.earliest_of("u-1") == Decimal(400)
    assert expiries.earliest_of("u-9") == Decimal(400)
