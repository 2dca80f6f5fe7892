"""The vocabulary of an attribute's declaration (`loaders.record`): how a field of a
declared row is stored, what GraphQL shows of it, and whether and how a writer sets it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from loaders import validation

__all__ = [
    "ATTRIBUTE",
    "REQUIRED",
    "Attribute",
    "Check",
    "Input",
    "attribute",
    "expiry",
    "key",
    "user_key",
]

#: A check of one input value: (the field's path in the input, the value) -> the value kept.
Check = Callable[[str, Any], Any]


class _Required:
    """The default of an input field that has none."""


#: The default of an input field that has none: the input must give it.
REQUIRED: Any = _Required()


@dataclasses.dataclass(frozen=True, slots=True)
class Input:
    """How a mutation's input gives the attribute: its description, its default (none:
    required; a list defaults to empty with `()`), its check and, for a list, its bound."""

    description: str
    check: Check | None = None
    default: Any = REQUIRED
    maximum: int | None = None
    #: The value is an id (GraphQL `ID`).
    identifier: bool = False
    #: Listed before the others (after the key), where the input's order is not the row's.
    first: bool = False

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclasses.dataclass(frozen=True, slots=True)
class Attribute:
    """One field's declaration (in the dataclass field's metadata)."""

    #: The GraphQL field's description; None: not a field of the output type.
    description: str | None
    #: The stored name, when not the field's own.
    stored: str | None = None
    #: The GraphQL name, when not the camelCase of the field's own.
    name: str | None = None
    #: Read from the item's key (`user_id`, `month`): alone, or, when `stored` too, from
    #: the attribute and else the key.
    key: bool = False
    #: A writer sets it to now (an instant) or today (a date, UTC).
    clock: bool = False
    #: The item's `ttl`, which a writer derives from the entity's TTL rule.
    ttl: bool = False
    #: Stored as NULL when None (the Go service's nil pointers), not left out.
    keep_null: bool = False
    input: Input | None = None
    #: The value a writer always writes (a label), when it is one.
    fixed: Any = None
    #: Read and stored by the record's own `from_item` and `to_map` (not one attribute:
    #: the detection runs' `method_<m>_results`), which add it to the codec's.
    by_hand: bool = False


#: The key of a declared field's `Attribute` in its dataclass field's metadata.
ATTRIBUTE = "insight.attribute"


def attribute(
    description: str | None = None,
    *,
    stored: str | None = None,
    clock: bool = False,
    keep_null: bool = False,
    input: Input | None = None,
    fixed: Any = None,
    by_hand: bool = False,
    name: str | None = None,
) -> Any:
    """A stored attribute of the record."""
    declared = Attribute(
        description,
        stored,
        name,
        clock=clock,
        keep_null=keep_null,
        input=input,
        fixed=fixed,
        by_hand=by_hand,
    )
    return dataclasses.field(metadata={ATTRIBUTE: declared})


def key(
    description: str | None = None, *, input: Input | None = None, stored: str | None = None
) -> Any:
    """A value of the item's key (its partition's user, a month of the sort key); with
    `stored`, also an attribute of that name, read first."""
    declared = Attribute(description, stored, key=True, input=input)
    return dataclasses.field(metadata={ATTRIBUTE: declared})


def user_key(input_description: str) -> Any:
    """The user of the item's partition, given by the input's `userId`."""
    checked = Input(input_description, check=validation.identifier, identifier=True)
    return key(input=checked)


def expiry() -> Any:
    """The item's `ttl`, epoch seconds (SPEC section 1), never a GraphQL field."""
    return dataclasses.field(metadata={ATTRIBUTE: Attribute(None, ttl=True)})
