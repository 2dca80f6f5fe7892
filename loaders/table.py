"""The tables' identities and key schemas: below the entities, which name their table."""

from __future__ import annotations

import enum


class Table(enum.Enum):
    PAVE = "pave"
    INCOME_DETECTION = "income_detection"
    DATACAPTURE = "datacapture"
    BALANCE_SETTINGS = "balance_settings"
    LOCKS = "locks"
    IDEMPOTENCY = "idempotency"

    #: By identity (each member is one object): every key and partition looked up hashes
    #: its table, and `Enum`'s hash of the name is a Python call.
    __hash__ = object.__hash__

    @property
    def key_names(self) -> tuple[str, str | None]:
        """The partition key's attribute name and the sort key's (None: no sort key)."""
        return _KEY_NAMES[self]


_KEY_NAMES: dict[Table, tuple[str, str | None]] = {
    Table.PAVE: ("PK", "SK"),
    Table.INCOME_DETECTION: ("PK", "SK"),
    Table.DATACAPTURE: ("PK", "SK"),
    Table.BALANCE_SETTINGS: ("user_id", None),
    Table.LOCKS: ("key", None),
    Table.IDEMPOTENCY: ("key", None),
}
