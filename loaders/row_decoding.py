"""A record's row of an item (or of a stored Map) as one Python function written for it, as
dataclasses write `__init__`: each attribute read, checked and parsed in line, the row made
without the frozen dataclass's `__init__` (its slots set through their descriptors).

It gives exactly what the record's readers give (`loaders.rows.fields`, as `Record.decoded`
applies them): a value of the attribute's type is taken in line, anything else (absent and
present alike) goes to the field's own reader, which answers None or raises its error. A row
is built for every item a read uses (a full User's ~140 rows, a dashboard's thousands), and
the function takes about half the time of the readers and `__init__` it replaces.

A record whose fields its readers do not all set (a field read by hand) keeps the generic
path: `written_decoder` answers None for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any

from loaders.codec import parse_date, parse_instant
from loaders.rows import fields

__all__ = ["written_decoder"]

#: A field's reader: (item, stored name) -> value.
Reader = Callable[[Mapping[str, Any], str], Any]

#: The readers whose value is taken in line when it is already of their type (the readers'
#: own first test), or absent.
_IN_LINE: dict[Reader, type] = {fields.text: str, fields.decimal: Decimal, fields.boolean: bool}
#: The readers of a text parsed when not empty (a date, an instant).
_PARSED: dict[Reader, str] = {fields.day: "parse_date", fields.instant: "parse_instant"}


def written_decoder(
    cls: type,
    decoders: Iterable[tuple[str, Reader, str]],
    key_readers: Iterable[tuple[str, Callable[[Mapping[str, Any]], Any]]] = (),
) -> Callable[[Mapping[str, Any]], Any] | None:
    """The function giving `cls(**values)` of an item, where `values` are `decoders`' values
    by field name, each key field's from `key_readers` where that is None; None when they do
    not set every field of `cls`."""
    decoders = tuple(decoders)
    key_readers = tuple(key_readers)
    set_by = {name for name, _, _ in decoders} | {name for name, _ in key_readers}
    if set_by != set(cls.__dataclass_fields__) or hasattr(cls, "__post_init__"):  # type: ignore[attr-defined]
        return None
    namespace: dict[str, Any] = {
        "new": object.__new__,
        "cls": cls,
        "Decimal": Decimal,
        "parse_date": parse_date,
        "parse_instant": parse_instant,
    }
    lines = ["def decode(item):", "    get = item.get"]
    for index, (name, read, stored) in enumerate(decoders):
        namespace[f"read_{index}"] = read
        lines.append(f"    value = get({stored!r})")
        reread = f"read_{index}(item, {stored!r})"
        if read in _IN_LINE:
            lines.append(
                f"    v_{name} = value if value is None or type(value) is"
                f" {_IN_LINE[read].__name__} else {reread}"
            )
        elif read in _PARSED:
            lines.append(
                f"    v_{name} = {_PARSED[read]}(value) if type(value) is str and value"
                f" else {reread}"
            )
        else:
            lines.append(f"    v_{name} = {reread}")
    decoded = {name for name, _, _ in decoders}
    for index, (name, key_reader) in enumerate(key_readers):
        namespace[f"key_{index}"] = key_reader
        if name in decoded:
            lines.append(f"    if v_{name} is None:")
            lines.append(f"        v_{name} = key_{index}(item)")
        else:
            lines.append(f"    v_{name} = key_{index}(item)")
    lines.append("    row = new(cls)")
    for name in cls.__dataclass_fields__:  # type: ignore[attr-defined]
        # The slot's own descriptor: a frozen dataclass refuses `setattr`, not it.
        namespace[f"set_{name}"] = getattr(cls, name).__set__
        lines.append(f"    set_{name}(row, v_{name})")
    lines.append("    return row")
    exec(compile("\n".join(lines), f"<decoder of {cls.__name__}>", "exec"), namespace)
    decode: Callable[[Mapping[str, Any]], Any] = namespace["decode"]
    return decode
