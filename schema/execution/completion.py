"""Completing a compiled object in one loop: the same values, in the same order, as
graphql-core's field-by-field path, or `Unplain` where that path must answer instead
(`schema.execution.executor` falls back to it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import GeneratorType
from typing import Any, TypeAlias

from graphql import Undefined
from graphql.pyutils import is_awaitable

from schema.execution.plan import LEAF, LEAF_LIST, OBJECT, TYPENAME

__all__ = ["Compiled", "PlannedRead", "Unplain", "complete_objects", "complete_plain"]

#: One field of a request's compiled object: response name, kind, read, coerce (for
#: `__typename`, the type's name), non-null, items non-null, the nested object's fields,
#: planned (its value comes from the object's answers, in order, not from `read`).
Compiled: TypeAlias = tuple[tuple[Any, ...], ...]
#: A planned field's read for this request: its resolver with its arguments bound.
PlannedRead: TypeAlias = Callable[[Any], Any]


class Unplain(Exception):
    """A value the compiled path leaves to graphql-core."""


#: Value types known to be neither awaitable nor exceptions (found once per type).
_PLAIN_TYPES: set[type] = {str, int, float, bool}


def _check_plain(value: Any) -> None:
    """Raise Unplain for a value graphql-core would await or raise; else remember its type
    (generators are awaitable per object, so their type is never remembered)."""
    if isinstance(value, BaseException) or is_awaitable(value):
        raise Unplain
    if not isinstance(value, GeneratorType):
        _PLAIN_TYPES.add(type(value))


def complete_plain(
    fields: Compiled, source: Any, answers: Sequence[Any] | None = None
) -> dict[str, Any]:
    """The completed object, as graphql-core would give it; Unplain (or the read's own
    error) where graphql-core's path must answer instead. `answers` are the planned fields'
    values, in order (`ask`, then `settle`)."""
    plain_types = _PLAIN_TYPES
    completed: dict[str, Any] = {}
    answered = iter(answers or ())
    for response_name, kind, read, coerce, non_null, items_non_null, nested, planned in fields:
        if kind == TYPENAME:
            completed[response_name] = coerce
            continue
        value = next(answered) if planned and answers is not None else read(source)
        if value is None or value is Undefined:
            if non_null:
                raise Unplain
            completed[response_name] = None
            continue
        if type(value) not in plain_types:
            _check_plain(value)
        if kind == LEAF:
            coerced = coerce(value)
            if coerced is None or coerced is Undefined:
                raise Unplain
            completed[response_name] = coerced
        elif kind == OBJECT:
            completed[response_name] = complete_plain(nested, value)
        else:
            if type(value) is not list and type(value) is not tuple:
                raise Unplain
            completed[response_name] = (
                _leaves(coerce, items_non_null, value)
                if kind == LEAF_LIST
                else complete_objects(nested, items_non_null, value)
            )
    return completed


def _leaves(coerce: Any, non_null: bool, values: list[Any] | tuple[Any, ...]) -> list[Any]:
    plain_types = _PLAIN_TYPES
    completed: list[Any] = []
    for value in values:
        if value is None or value is Undefined:
            if non_null:
                raise Unplain
            completed.append(None)
            continue
        if type(value) not in plain_types:
            _check_plain(value)
        coerced = coerce(value)
        if coerced is None or coerced is Undefined:
            raise Unplain
        completed.append(coerced)
    return completed


def complete_objects(
    fields: Compiled, non_null: bool, values: list[Any] | tuple[Any, ...]
) -> list[Any]:
    plain_types = _PLAIN_TYPES
    completed: list[Any] = []
    for value in values:
        if value is None or value is Undefined:
            if non_null:
                raise Unplain
            completed.append(None)
            continue
        if type(value) not in plain_types:
            _check_plain(value)
        completed.append(complete_plain(fields, value))
    return completed
