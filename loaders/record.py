"""An entity's attributes, declared once: a `Record` is the row's dataclass, and each of its
fields says how the attribute is stored, what GraphQL calls and shows of it, and whether a
writer sets it from its input or from the clock.

The type of a field is the attribute's type; the item codec follows from it:

| annotation | stored as |
|---|---|
| `str`, `bool` | String, BOOL |
| `int` | a whole Number (cents, a page) |
| `Decimal` | a Number, exact (dollars, a score): never through float |
| `date` | a String `YYYY-MM-DD` |
| `datetime` | a String, RFC 3339 in UTC (`format_instant`) |
| `tuple[X, ...]` | a List of X (an absent List reads as empty) |
| a `Record` | a Map of that record's attributes |

`X | None`: the attribute may be absent (GraphQL: nullable); absent or NULL read as None.
The GraphQL types (`schema.declared`) and the writers' checks (`written`) derive from the
same fields; what is not an attribute (a read rule, a derived value) stays hand-written.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import types
from collections.abc import Callable, Mapping
from datetime import date, datetime
from decimal import Decimal
from functools import partial
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    TypeVar,
    Union,
    dataclass_transform,
    get_args,
    get_origin,
    get_type_hints,
)

from loaders import validation
from loaders.attributes import (
    ATTRIBUTE,
    REQUIRED,
    Attribute,
    Input,
    attribute,
    expiry,
    key,
    user_key,
)
from loaders.codec import Item, format_instant, parse_date, parse_instant
from loaders.keys import ItemKey
from loaders.row_decoding import written_decoder
from loaders.rows import fields

if TYPE_CHECKING:
    from typing import Self

# The declaration's vocabulary (`loaders.attributes`) is re-exported: a row imports one module.
__all__ = [
    "Attribute",
    "Field",
    "Input",
    "Record",
    "attribute",
    "expiry",
    "key",
    "record",
    "user_key",
]


@dataclasses.dataclass(frozen=True, slots=True)
class Field:
    """A declared field with its resolved type: `kind` is the value's type (a scalar or a
    Record), `many` a List of them, `optional` whether it may be absent."""

    name: str
    declared: Attribute
    kind: type
    many: bool
    optional: bool

    @property
    def stored(self) -> str:
        return self.declared.stored or self.name

    @property
    def graphql_name(self) -> str:
        """The camelCase of its name (SPEC section 3), as strawberry names it."""
        if self.declared.name is not None:
            return self.declared.name
        head, *rest = self.name.split("_")
        return head + "".join(word[:1].upper() + word[1:] for word in rest)

    @property
    def nested(self) -> type[Record] | None:
        return self.kind if issubclass(self.kind, Record) else None


def _resolve(annotation: Any) -> tuple[type, bool, bool]:
    optional = False
    if get_origin(annotation) in (Union, types.UnionType):
        inner = [arg for arg in get_args(annotation) if arg is not type(None)]
        optional, [annotation] = True, inner
    if get_origin(annotation) is tuple:
        return get_args(annotation)[0], True, optional
    return annotation, False, optional


_DECODERS: dict[type, Callable[[Mapping[str, Any], str], Any]] = {
    str: fields.text,
    bool: fields.boolean,
    int: fields.integer,
    Decimal: fields.decimal,
    date: fields.day,
    datetime: fields.instant,
}
_LIST_DECODERS: dict[type, Callable[[Mapping[str, Any], str], Any]] = {
    str: fields.texts,
    Decimal: fields.decimals,
}


#: A key's value as its field's type (a key's text holds dates and instants as stored).
_KEY_PARSERS: dict[type, Callable[[str], Any]] = {date: parse_date, datetime: parse_instant}


def _decoder(field: Field) -> Callable[[Mapping[str, Any], str], Any]:
    """The field's reader: (item, stored name) -> value."""
    nested = field.nested
    if nested is not None and field.many:
        return lambda item, stored: tuple(map(nested.from_map, fields.items(item, stored)))
    if nested is not None:

        def one(item: Mapping[str, Any], stored: str) -> Any:
            value = fields.mapping(item, stored)
            return nested.from_map(value) if value is not None else None

        return one
    return (_LIST_DECODERS if field.many else _DECODERS)[field.kind]


def _encode(field: Field, value: Any) -> Any:
    if value is None:
        return None
    if field.many:
        return [_encode_one(field, one) for one in value]
    return _encode_one(field, value)


def _encode_one(field: Field, value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_map()
    if field.kind is datetime:
        return format_instant(value)
    if field.kind is date:
        return value.isoformat()
    return value


class Record:
    """Base of the declared rows (decorate each with `record`).

    Its one slot, `_part`, is no field (no part of equality, the hash or the item): a row the
    cache keeps holds there the part of an answer its completion last wrote
    (`loaders.cache.items.PART_SLOT`)."""

    __slots__ = ("_part",)
    #: The `type` attribute of its items (the `site-pave` entity name), when it has one.
    TYPE: ClassVar[str | None] = None
    #: The entity whose items it reads and writes (set by `loaders.entity.entity`; an
    #: `Entity`, which imports this module).
    __entity__: ClassVar[Any] = None
    __fields__: ClassVar[tuple[Field, ...]] = ()
    __decoders__: ClassVar[
        tuple[tuple[str, Callable[[Mapping[str, Any], str], Any], str], ...]
    ] = ()
    __keys__: ClassVar[tuple[str, ...]] = ()
    #: Per key field, its value of an item (set by `bind`, once the entity is known).
    __key_readers__: ClassVar[tuple[tuple[str, Callable[[Mapping[str, Any]], Any]], ...]] = ()

    @classmethod
    def bind(cls, declared: Any) -> None:
        """Make the record the row of the entity `declared` (an `Entity`)."""
        cls.__entity__ = declared
        _item_decoders.pop(cls, None)  # its written decoder reads the keys too
        cls.__key_readers__ = tuple(
            (field.name, _key_reader(declared, field))
            for field in cls.__fields__
            if field.declared.key
        )

    @classmethod
    def declared_fields(cls) -> tuple[Field, ...]:
        return cls.__fields__

    @classmethod
    def from_map(cls, value: Mapping[str, Any]) -> Self:
        """The record of a stored Map (or an item's attributes, its key aside)."""
        decode = _map_decoders.get(cls)
        if decode is None:
            decode = _map_decoders[cls] = written_decoder(cls, cls.__decoders__) or partial(
                _generic_map, cls
            )
        row: Self = decode(value)
        return row

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> Self:
        """The row of a python-value item (`loaders.codec.from_wire`)."""
        decode = _item_decoders.get(cls)
        if decode is None:
            written = None
            if cls.decoded.__func__ is Record.decoded.__func__:  # type: ignore[attr-defined]
                written = written_decoder(cls, cls.__decoders__, cls.__key_readers__)
            decode = _item_decoders[cls] = written or partial(_generic_item, cls)
        row: Self = decode(item)
        return row

    @classmethod
    def decoded(cls, item: Mapping[str, Any]) -> dict[str, Any]:
        """The row's values of an item, by field name (a record that reads a field by hand
        adds it to these)."""
        values = {name: read(item, stored) for name, read, stored in cls.__decoders__}
        for name, key_value in cls.__key_readers__:
            if values.get(name) is None:
                values[name] = key_value(item)
        return values

    def to_map(self) -> Item:
        """The stored attributes, absent ones left out (or NULL where kept)."""
        stored: Item = {}
        for field in self.__fields__:
            if (field.declared.key and field.declared.stored is None) or field.declared.by_hand:
                continue
            value = _encode(field, getattr(self, field.name))
            if value is not None or field.declared.keep_null:
                stored[field.stored] = value
        return stored

    def item_key(self) -> ItemKey:
        key: ItemKey = self.entity().key(**{name: getattr(self, name) for name in self.__keys__})
        return key

    def to_item(self) -> Item:
        declared = self.entity()
        key = self.item_key()
        partition, sort = declared.table.key_names
        item: Item = {partition: key.pk}
        if sort is not None:
            item[sort] = key.sk
        if self.TYPE is not None:
            item["type"] = self.TYPE
        item.update(self.to_map())
        return item

    @classmethod
    def written(cls, values: Mapping[str, Any], now: datetime, path: str = "") -> Self:
        """The row a writer stores from a mutation's input `values` (by field name), every
        input checked (BadUserInput names the field's path: `accounts[1].amount`), the
        clock's attributes set to `now`, the `ttl` derived from the entity's rule."""
        row: dict[str, Any] = {}
        ttl_field = None
        for field in cls.__fields__:
            declared = field.declared
            if declared.input is not None:
                given = values.get(field.name, REQUIRED)
                value = declared.input.default if given is REQUIRED else given
                if value is REQUIRED:
                    raise TypeError(f"{cls.__name__}: the input gives no {field.name}")
                row[field.name] = _checked(field, declared.input, value, now, path)
            elif declared.clock:
                row[field.name] = now if field.kind is datetime else now.date()
            elif declared.ttl:
                ttl_field = field.name
                row[field.name] = None
            elif declared.fixed is not None:
                row[field.name] = declared.fixed
            else:
                row[field.name] = () if field.many else None
        written = cls(**row).completed(now)
        if ttl_field is None:
            return written
        rule = cls.entity().ttl
        assert rule is not None, f"{cls.__name__} declares a ttl its entity has no rule for"
        expires = rule.expires(getattr(written, rule.after))
        return dataclasses.replace(written, **{ttl_field: expires})  # type: ignore[type-var]

    def completed(self, now: datetime) -> Self:
        """A written row after the rules that are no one attribute's (a default derived from
        others, a bound across them), which a record may add; `written` ends with it."""
        return self

    @classmethod
    def entity(cls) -> Any:
        """The entity whose items it is (an `Entity`)."""
        if cls.__entity__ is None:
            raise TypeError(f"{cls.__name__} is no entity's row")
        return cls.__entity__


def _checked(field: Field, declared: Input, value: Any, now: datetime, path: str) -> Any:
    name = path + field.graphql_name
    if value is None:
        return None
    nested = field.nested
    if field.many:
        if declared.maximum is not None:
            validation.bounded(name, value, maximum=declared.maximum)
        if nested is not None:
            return tuple(nested.written(one, now, f"{name}[{n}].") for n, one in enumerate(value))
        check = declared.check
        return tuple(check(f"{name}[{n}]", one) if check else one for n, one in enumerate(value))
    if nested is not None:
        return nested.written(value, now, f"{name}.")
    return declared.check(name, value) if declared.check is not None else value


def _key_reader(declared: Any, field: Field) -> Callable[[Mapping[str, Any]], Any]:
    """A key field's value of an item, parsed as its type (a key's text holds dates and
    instants as stored; every dated key value is in a sort key)."""
    partition, sort = declared.table.key_names
    name, parse = field.name, _KEY_PARSERS.get(field.kind)
    if parse is not None:
        return lambda item: parse(declared.sk_value(item[sort], name))
    if name == declared.user:
        return lambda item: declared.user_of(item[partition])
    if name in declared.pk.names:
        return lambda item: declared.pk.value(item[partition], name)
    return lambda item: declared.sk_value(item[sort], name)


R = TypeVar("R", bound=Record)

#: Each record's function from an item (a Map) to its row (`loaders.row_decoding`), made on
#: its first row (an entity's key readers are bound after its record is declared).
_item_decoders: dict[type[Record], Callable[[Mapping[str, Any]], Any]] = {}
_map_decoders: dict[type[Record], Callable[[Mapping[str, Any]], Any]] = {}


def _generic_item(cls: type[Record], item: Mapping[str, Any]) -> Any:
    return cls(**cls.decoded(item))


def _generic_map(cls: type[Record], value: Mapping[str, Any]) -> Any:
    return cls(**{name: read(value, stored) for name, read, stored in cls.__decoders__})


@dataclass_transform(field_specifiers=(attribute, key, user_key, expiry, dataclasses.field))
def record(cls: type[R]) -> type[R]:
    """The class as a frozen, slotted dataclass with its codec derived from its fields."""
    made = dataclasses.dataclass(frozen=True, slots=True)(cls)
    # Its fields' types, each in the names of the module that declared it (a record may
    # extend another); Record's own class variables are no fields.
    hints: dict[str, Any] = {}
    for declaring in reversed(made.__mro__):
        if issubclass(declaring, Record) and declaring is not Record:
            own = types.SimpleNamespace(__annotations__=inspect.get_annotations(declaring))
            hints.update(get_type_hints(own, globalns=vars(sys.modules[declaring.__module__])))
    declared_fields = []
    for field in dataclasses.fields(made):  # type: ignore[arg-type]
        declared = field.metadata.get(ATTRIBUTE)
        if declared is None:
            raise TypeError(f"{made.__name__}.{field.name} is not declared with attribute()")
        kind, many, optional = _resolve(hints[field.name])
        declared_fields.append(Field(field.name, declared, kind, many, optional))
    made.__fields__ = tuple(declared_fields)
    made.__decoders__ = tuple(
        (field.name, _decoder(field), field.stored)
        for field in declared_fields
        if (not field.declared.key or field.declared.stored is not None)
        and not field.declared.by_hand
    )
    made.__keys__ = tuple(field.name for field in declared_fields if field.declared.key)
    return made
