"""The completion of one object's selection as a Python function written for it, as
graphql-jit writes JavaScript for a query (and attrs and dataclasses write `__init__`): each
field read by its attribute, checked and coerced in straight-line code, nested objects and
lists by their own functions. It gives graphql-core's `data` for the object, in the same key
order, or raises (`Unplain`, or the coercion's own error) wherever graphql-core would answer
with an error: a null in a non-null field or list item, a value that does not coerce, an
exception or an awaitable as a value, a list that is not a list or tuple. The compiled
operation then leaves the answer to graphql-core (`schema.execution.operation`).

Planned fields (a User's) take their values from `answers`, in order; `source` is read for
the plain ones. The functions' text is kept (`Completion.source`): `insight-gateway explain`
prints it.

The function of an entity's row (`Selection.keeps_part`) gives back the part it wrote for a
row the cache keeps, from the row's `PART_SLOT`, and keeps the part it writes there
(`loaders.cache.items`): a warm cache's rows are completed once per compiled operation, not
once per request. The part is kept as its JSON (an `orjson.Fragment`), which orjson copies
into the response as it is, so a kept row is not written again either: what consumes the
answer writes it with orjson (the HTTP response, the socket's messages, a live stream's
events).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import count
from types import GeneratorType
from typing import Any

import orjson
from graphql import Undefined
from graphql.pyutils import is_awaitable

from loaders.cache import PART_SLOT
from schema.execution.plan import (
    LEAF,
    LEAF_LIST,
    OBJECT,
    OBJECT_LIST,
    OWN_OUTPUT_TYPES,
    TYPENAME,
    PlainField,
)
from schema.scalars import WireForms

__all__ = ["Completion", "Unplain", "generate"]


class Unplain(Exception):
    """A value the compiled operation leaves to graphql-core."""


#: Each row function's mark on the parts it keeps: a number of its own, never reused, that
#: holds nothing (a kept function would keep its whole operation's code with the row).
_PART_MARKS = count(1)

#: Value types known to be neither awaitable nor exceptions (found once per type).
PLAIN_TYPES: set[type] = {str, int, float, bool}


def check_plain(value: Any) -> None:
    """Raise Unplain for a value graphql-core would await or raise; else remember its type
    (generators are awaitable per object, so their type is never remembered)."""
    if isinstance(value, BaseException) or is_awaitable(value):
        raise Unplain
    if not isinstance(value, GeneratorType):
        PLAIN_TYPES.add(type(value))


def plain_item(item: Any) -> Any:
    """A non-null list item not yet known plain: itself once it is (`check_plain`), Unplain
    for a null or a value graphql-core would await or raise."""
    if item is None or item is Undefined:
        raise Unplain
    check_plain(item)
    return item


def json_part(part: dict[str, Any]) -> orjson.Fragment:
    """A kept part as its JSON, which orjson writes into an answer as it is. orjson's
    buffer is 4 KiB at the least (a kept row's part is about a hundred bytes): the part keeps
    a copy of just its bytes."""
    return orjson.Fragment(memoryview(orjson.dumps(part)).tobytes())


@dataclass(frozen=True, slots=True)
class Selection:
    """One object's fields to generate a function for: its type's name, and each field with
    its nested object's level, if any. `single`: no field is selected twice (under two
    response names), here or below, so that its part is no larger than its type's every
    field's; `keeps_part`: single, and its objects are an entity's rows (the cache's)."""

    type_name: str
    fields: tuple[tuple[PlainField, Selection | None], ...]
    single: bool = True
    keeps_part: bool = False


@dataclass(frozen=True, slots=True)
class Completion:
    """The generated function of a top level (`complete(source, answers)`), and the
    selection it was written for (its text is written again when asked: `source`)."""

    complete: Callable[[Any, Sequence[Any] | None], dict[str, Any]]
    selection: Selection

    @property
    def source(self) -> str:
        """The functions' text, as `generate` compiled it (`insight-gateway explain`)."""
        return _written(self.selection)[0]


def generate(level: Selection) -> Completion:
    """The functions completing `level` and every level under it."""
    source, name, values = _written(level)
    namespace: dict[str, Any] = {
        "Decimal": Decimal,
        "Unplain": Unplain,
        "Undefined": Undefined,
        "PLAIN_TYPES": PLAIN_TYPES,
        "check_plain": check_plain,
        "plain_item": plain_item,
        "set_slot": object.__setattr__,
        "json_part": json_part,
        **values,
    }
    exec(compile(source, f"<completion of {level.type_name}>", "exec"), namespace)
    return Completion(namespace[name], level)


def _written(level: Selection) -> tuple[str, str, dict[str, Any]]:
    """The functions' text, the top function's name and the values they name."""
    writer = _Writer()
    name = writer.function(level, top=True)
    return "\n\n".join(writer.functions), name, writer.values


def _own_output_type(field: PlainField) -> type | None:
    """The type whose values a leaf's coercion gives back as they are, if it has one."""
    if field.kind != LEAF or field.coerce is None:
        return None
    return OWN_OUTPUT_TYPES.get(field.coerce)


class _Writer:
    def __init__(self) -> None:
        self.functions: list[str] = []
        self.values: dict[str, Any] = {}

    def value(self, prefix: str, value: Any) -> str:
        """A name in the functions' namespace for `value` (a coercion, a read)."""
        name = f"{prefix}_{len(self.values)}"
        self.values[name] = value
        return name

    def function(self, level: Selection, *, top: bool = False) -> str:
        name = f"complete_{level.type_name}_{len(self.functions)}"
        self.functions.append("")  # its place: nested functions come after it
        index = len(self.functions) - 1
        lines = [f"def {name}(source, answers=None):" if top else f"def {name}(source):"]
        keeps = level.keeps_part and not top
        if keeps:  # the part kept for a cached row, when this function wrote it
            mark = next(_PART_MARKS)
            lines.append(f"    part = getattr(source, {PART_SLOT!r}, None)")
            lines.append(f"    if part is not None and part[0] == {mark}:")
            lines.append("        return part[1]")
        lines.append("    out = {}")
        planned = 0
        for field, nested in level.fields:
            key = repr(field.response_name)
            if field.kind == TYPENAME:
                lines.append(f"    out[{key}] = {field.name!r}")
                continue
            if field.planned is not None:
                lines.append(f"    value = answers[{planned}]")
                planned += 1
            elif field.attribute is not None:
                lines.append(f"    value = source.{field.attribute}")
            else:
                lines.append(f"    value = {self.value('read', field.read)}(source)")
            own = _own_output_type(field)
            if own is not None:
                # A value of its output's type (a str for a String) is its own output: no
                # check, no call (the coercion's own first test, in line).
                lines.append(f"    if type(value) is {own.__name__}:")
                lines.append(f"        out[{key}] = value")
                lines.append("    elif value is None or value is Undefined:")
            else:
                lines.append("    if value is None or value is Undefined:")
            lines.append(
                "        raise Unplain" if field.non_null else f"        out[{key}] = None"
            )
            lines.append("    else:")
            lines.extend("        " + line for line in self._value(field, nested, key))
        if keeps:
            lines.append("    if part is not None:")
            lines.append("        out = json_part(out)")
            lines.append(f"        set_slot(source, {PART_SLOT!r}, ({mark}, out))")
        lines.append("    return out")
        self.functions[index] = "\n".join(lines)
        return name

    def _value(self, field: PlainField, nested: Selection | None, key: str) -> list[str]:
        """The lines completing a non-null `value` into `out[key]`."""
        lines = ["if type(value) not in PLAIN_TYPES:", "    check_plain(value)"]
        if field.kind == OBJECT:
            return [*lines, f"out[{key}] = {self._one(field, nested, 'value')}"]
        if field.kind == LEAF:
            lines = [
                *lines,
                f"done = {self._one(field, nested, 'value')}",
                "if done is None or done is Undefined:",
                "    raise Unplain",
                f"out[{key}] = done",
            ]
            forms = getattr(field.coerce, "__self__", None)
            if isinstance(forms, WireForms) and field.coerce == forms.decimal:
                # A Decimal's form remembered (a warm cache serves the same values): no
                # call; the coercion makes (and remembers) it otherwise.
                known = self.value("known_decimals", forms.known_decimals().get)
                return [
                    f"if type(value) is Decimal and (done := {known}(value)) is not None:",
                    f"    out[{key}] = done",
                    "else:",
                    *("    " + line for line in lines),
                ]
            return lines
        lines += [
            "if type(value) is not list and type(value) is not tuple:",
            "    raise Unplain",
        ]
        if field.kind == OBJECT_LIST and field.items_non_null:
            # A null's type is never plain (`check_plain` never sees one): the items known
            # plain go straight to their completion.
            plain = self._one(
                field, nested, "item if type(item) in PLAIN_TYPES else plain_item(item)"
            )
            return [*lines, f"out[{key}] = [{plain} for item in value]"]
        lines += [
            "items = []",
            "for item in value:",
            "    if item is None or item is Undefined:",
        ]
        if field.items_non_null:
            lines.append("        raise Unplain")
        else:
            lines += ["        items.append(None)", "        continue"]
        lines += [
            "    if type(item) not in PLAIN_TYPES:",
            "        check_plain(item)",
            f"    done = {self._one(field, nested, 'item')}",
        ]
        if field.kind == LEAF_LIST:
            lines += ["    if done is None or done is Undefined:", "        raise Unplain"]
        return [*lines, "    items.append(done)", f"out[{key}] = items"]

    def _one(self, field: PlainField, nested: Selection | None, value: str) -> str:
        """The expression completing one non-null `value` (an item, for a list)."""
        if nested is not None:
            return f"{self.function(nested)}({value})"
        # Named for the coercion (`_string`, `decimal`, `instant`...), to read as it does.
        name = getattr(field.coerce, "__name__", "coerce").strip("_")
        return f"{self.value(name, field.coerce)}({value})"
