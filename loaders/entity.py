"""How an entity is declared: its table, key templates, TTL rule, row codec, whether its
changes wake subscribers and what a read of it costs. Everything else about an entity (its
keys, its Queries, the user of a key, when it expires, the streamed tables, the access
plan's prices) is derived from its declaration (`loaders.entities` lists them all).

A key template is the key's text with `{name}` for each value, `{name:format}` for a value
formatted (`instant`, `instant_us`, `date`); literal segments are joined with `#`, as the Go
service's utils.HashJoinPath does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Generic, TypeVar

from loaders.codec import epoch_seconds, format_instant, start_of_day
from loaders.keys import ItemKey, QueryKey
from loaders.record import Record
from loaders.table import Table

__all__ = ["Collection", "Entity", "KeyTemplate", "R", "TtlRule", "entity"]

R = TypeVar("R")

_VARIABLE = re.compile(r"\{(\w+)(?::(\w+))?\}")


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"a key value must be a str, not {type(value).__name__}")
    return value


def _instant(value: object) -> str:
    assert isinstance(value, datetime)
    return format_instant(value)


def _instant_us(value: object) -> str:
    assert isinstance(value, datetime)
    return format_instant(value, microseconds=True)


def _date(value: object) -> str:
    assert isinstance(value, date)
    return value.isoformat()


_FORMATS: dict[str | None, Callable[[object], str]] = {
    None: _text,
    "instant": _instant,
    "instant_us": _instant_us,
    "date": _date,
}


class KeyTemplate:
    """One key attribute's template: built from values, and parsed back into them."""

    __slots__ = ("_parts", "_pattern", "_single", "names", "prefix", "prefix_only", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        parts: list[str | tuple[str, Callable[[object], str]]] = []
        pattern, at = "", 0
        variables = list(_VARIABLE.finditer(text))
        for index, match in enumerate(variables):
            literal = text[at : match.start()]
            if literal:
                parts.append(literal)
            name, form = match.group(1), match.group(2)
            if form not in _FORMATS:
                raise ValueError(f"{text!r}: no format {form!r}")
            parts.append((name, _FORMATS[form]))
            last = index == len(variables) - 1 and match.end() == len(text)
            pattern += re.escape(literal) + f"(?P<{name}>{'.+' if last else '[^#]+'})"
            at = match.end()
        if text[at:]:
            parts.append(text[at:])
        self._parts = tuple(parts)
        self._pattern = re.compile(pattern + re.escape(text[at:]))
        self.names = tuple(match.group(1) for match in variables)
        #: The literal text before the first value: the sort-key prefix of a Query.
        self.prefix = text[: variables[0].start()] if variables else text
        #: One value, at the end (most keys): parsed by slicing, as it is on every row read.
        self.prefix_only = len(variables) == 1 and variables[0].end() == len(text)
        #: Its one value's name and format, when it is `prefix_only`: built without a join.
        self._single: tuple[str, Callable[[object], str]] | None = None
        if self.prefix_only:
            [(name, form)] = [part for part in parts if not isinstance(part, str)]
            self._single = (name, form)

    def build(self, values: Mapping[str, object]) -> str:
        if self._single is not None:  # most keys (`USERS#{user_id}`): a prefix and a value
            name, form = self._single
            return self.prefix + form(values[name])
        if not self.names:  # a constant (`PREDICTION`)
            return self.text
        return "".join(
            part if isinstance(part, str) else part[1](values[part[0]]) for part in self._parts
        )

    def parse(self, key: str) -> dict[str, str]:
        """The values of a key built from this template; ValueError for any other key."""
        if self.prefix_only:
            if key.startswith(self.prefix) and len(key) > len(self.prefix):
                return {self.names[0]: key[len(self.prefix) :]}
        else:
            match = self._pattern.fullmatch(key)
            if match is not None:
                return match.groupdict()
        raise ValueError(f"{key!r} does not match {self.text!r}")

    def value(self, key: str, name: str) -> str:
        if self.prefix_only:
            if key.startswith(self.prefix) and len(key) > len(self.prefix):
                return key[len(self.prefix) :]
            raise ValueError(f"{key!r} does not match {self.text!r}")
        return self.parse(key)[name]


@dataclass(frozen=True, slots=True)
class TtlRule:
    """An item's `ttl`: `lifetime` (or the `setting`'s days, given to `expires`) after the
    attribute `after`, counted from 00:00 UTC of its day when `from_midnight`."""

    after: str
    lifetime: timedelta | None = None
    setting: str | None = None
    from_midnight: bool = False

    def expires(self, start: datetime | date, days: int | None = None) -> int:
        """Epoch seconds; `days` is the setting's value when the rule names one."""
        if (days is None) != (self.setting is None):
            raise ValueError(f"the TTL after {self.after} takes days only from {self.setting}")
        lifetime = self.lifetime if days is None else timedelta(days=days)
        if lifetime is None:
            raise ValueError(f"the TTL after {self.after} has no lifetime")
        if self.from_midnight or not isinstance(start, datetime):
            start = start_of_day(start if not isinstance(start, datetime) else start.date())
        return epoch_seconds(start + lifetime)


@dataclass(frozen=True, slots=True)
class Collection:
    """A partition that holds several entities (ElectroDB's collection), read whole by one
    Query when the access plan finds it cheaper: `read_units` is that Query's capacity and
    `items` the items it returns, per user."""

    name: str
    table: Table
    pk: KeyTemplate
    read_units: float
    items: int

    def partition(self, **values: object) -> tuple[Table, str]:
        return self.table, self.pk.build(values)


@dataclass(frozen=True, slots=True, eq=False)
class Entity(Generic[R]):
    """One kind of item, declared once.

    `pk` and `sk` are key templates (`sk` None: the table has no sort key); a `collection`
    gives the partition key instead of `pk`. `user` names the value of the partition key
    that is the user's id (None: the key names no user). `ttl`: when it expires (None:
    never). `wakes`: its changes reach the change feed and wake subscribers. `row`: its
    codec, from an item to a row (None: never read as a row). `read_units`: the capacity of
    one read of it (a point read, or the Query of its sort-key prefix), `read_items` the
    items that read returns, and `queried` whether it is that Query (a call of its own) or
    a key of a BatchGetItem: the access plan's prices, required in a collection.
    """

    name: str
    table: Table
    pk: KeyTemplate
    sk: KeyTemplate | None
    user: str | None = "user_id"
    ttl: TtlRule | None = None
    wakes: bool = False
    row: Callable[[Mapping[str, Any]], R] | None = None
    read_units: float | None = None
    read_items: int | None = None
    queried: bool = False
    collection: Collection | None = field(default=None)
    # The partition key's text before the user's id, when the id ends it (every key but the
    # idempotency record's): `user_of` runs for every row read, so it only slices.
    _user_prefix: str | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.user is not None and self.pk.names == (self.user,) and self.pk.prefix_only:
            object.__setattr__(self, "_user_prefix", self.pk.prefix)
        if (self.sk is None) != (self.table.key_names[1] is None):
            raise ValueError(f"{self.name}: the sort key must match {self.table.name}'s keys")
        if self.collection is not None and (self.read_units is None or self.read_items is None):
            raise ValueError(
                f"{self.name}: an entity of a collection declares its read_units and read_items"
            )
        if self.user is not None and self.user not in self.pk.names:
            raise ValueError(f"{self.name}: {self.user} is not a value of {self.pk.text!r}")

    @property
    def codec(self) -> Callable[[Mapping[str, Any]], R]:
        """The row codec (the same object each time: the cache keys rows by it)."""
        if self.row is None:
            raise ValueError(f"{self.name} is never read as a row")
        return self.row

    def key(self, **values: object) -> ItemKey:
        return ItemKey(
            self.table,
            self.pk.build(values),
            self.sk.build(values) if self.sk is not None else None,
        )

    def query(
        self, *, newest_first: bool = False, limit: int | None = None, **values: object
    ) -> QueryKey:
        """The Query of this entity's items in a partition: its sort keys' literal prefix."""
        assert self.sk is not None, f"{self.name} has no sort key to query by"
        return QueryKey(self.table, self.pk.build(values), self.sk.prefix, newest_first, limit)

    def user_of(self, pk: str) -> str:
        """The user id of one of this entity's partition keys (ValueError otherwise)."""
        prefix = self._user_prefix
        if prefix is not None and pk.startswith(prefix) and len(pk) > len(prefix):
            return pk[len(prefix) :]
        if self.user is None:
            raise ValueError(f"{self.name}'s keys name no user")
        return self.pk.value(pk, self.user)

    def sk_value(self, sk: str, name: str) -> str:
        assert self.sk is not None
        return self.sk.value(sk, name)

    def expires(self, start: datetime | date, days: int | None = None) -> int:
        """This entity's `ttl` for an item whose rule's attribute is `start`."""
        if self.ttl is None:
            raise ValueError(f"{self.name} items never expire")
        return self.ttl.expires(start, days)


def entity(
    name: str,
    table: Table,
    *,
    pk: str | Collection,
    sk: str | None,
    user: str | None = "user_id",
    ttl: TtlRule | None = None,
    wakes: bool = False,
    row: Callable[[Mapping[str, Any]], R] | None = None,
    record: type[R] | None = None,
    read_units: float | None = None,
    read_items: int | None = None,
    queried: bool = False,
) -> Entity[R]:
    """An `Entity` from its templates' text; `pk` a collection puts it in that partition.
    `record`: its declared row (`loaders.record`), whose codec it is and whose items it keys."""
    collection = pk if isinstance(pk, Collection) else None
    if collection is not None and collection.table is not table:
        raise ValueError(f"{name}: the collection {collection.name} is in another table")
    if record is not None:
        assert issubclass(record, Record), f"{name}: {record} is not a declared Record"
        row = record.from_item
    declared = Entity(
        name=name,
        table=table,
        pk=collection.pk if collection is not None else KeyTemplate(pk),  # type: ignore[arg-type]
        sk=KeyTemplate(sk) if sk is not None else None,
        user=user,
        ttl=ttl,
        wakes=wakes,
        row=row,
        read_units=read_units,
        read_items=read_items,
        queried=queried,
        collection=collection,
    )
    if record is not None:
        record.bind(declared)
    return declared
