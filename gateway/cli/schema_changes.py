"""What changed in a schema since a released one, each change named by the schema coordinate
it is about and by the coordinates whose readers it can break.

The released schemas are kept as they were released, `schema/released/<version>.graphql`
(shipped with the package). graphql-core's `find_schema_changes` finds the changes, breaking,
dangerous and safe; its descriptions name each change's place (`Field User.alert was
removed.`, `Argument User.savingsMonths(months:) has changed type from Int to Int!.`), which
is read back as a coordinate, the same names `gateway_field_usage_total` counts under.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from graphql import (
    BreakingChange,
    BreakingChangeType,
    DangerousChange,
    DangerousChangeType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    SafeChange,
    find_schema_changes,
    get_named_type,
    is_required_argument,
)

RELEASED = Path(__file__).resolve().parents[2] / "schema" / "released"

Version = tuple[int, ...]

# `Type.field`, `Type.field(arg:)`, `@directive(arg:)`: how graphql-core's messages name places.
_COORDINATE = re.compile(r"@?[_A-Za-z]\w*\.[_A-Za-z]\w*(?:\([_A-Za-z]\w*:\))?|@\w+(?:\(\w+:\))?")
_ARGUMENT = re.compile(r"(\w+)\.(\w+)\((\w+):\)")


class Released(NamedTuple):
    version: Version
    path: Path


def parse_version(text: str) -> Version:
    return tuple(int(part) for part in text.split("."))


def newest_release() -> Released:
    releases = [Released(parse_version(p.stem), p) for p in RELEASED.glob("*.graphql")]
    if not releases:
        raise FileNotFoundError(f"no released schema in {RELEASED}")
    return max(releases)


def coordinate(
    change: BreakingChange | DangerousChange | SafeChange, schemas: Iterable[GraphQLSchema]
) -> str:
    """The schema coordinate the change is about: its first `Type.member` (or directive), or
    else the first word that names a type of either schema (`User was removed.`)."""
    match = _COORDINATE.search(change.description)
    if match:
        return match.group(0)
    names = {name for schema in schemas for name in schema.type_map}
    words: list[str] = re.findall(r"[_A-Za-z]\w*", change.description)
    return next((word for word in words if word in names), change.description)


@dataclass(frozen=True, slots=True)
class Change:
    kind: str  # breaking, dangerous or safe
    name: str  # graphql-core's type of change: FIELD_REMOVED, ARG_CHANGED_KIND, ...
    description: str
    coordinate: str
    #: The coordinates whose readers the change can break (`Type.` is any member of Type).
    touches: tuple[str, ...]


def schema_changes(old: GraphQLSchema, new: GraphQLSchema) -> list[Change]:
    """Every change from `old` to `new`, in graphql-core's order."""
    found = []
    for change in find_schema_changes(old, new):
        place = coordinate(change, (old, new))
        if isinstance(change, BreakingChange):
            kind, touches = "breaking", _touches(change, place, old, new)
        elif isinstance(change, DangerousChange):
            kind, touches = "dangerous", _touches(change, place, old, new)
        else:
            kind, touches = "safe", ()
        found.append(Change(kind, change.type.name, change.description, place, touches))
    return found


def _touches(
    change: BreakingChange | DangerousChange, place: str, old: GraphQLSchema, new: GraphQLSchema
) -> tuple[str, ...]:
    argument = _ARGUMENT.fullmatch(place)
    field = f"{argument.group(1)}.{argument.group(2)}" if argument else place
    if change.type in (
        BreakingChangeType.REQUIRED_ARG_ADDED,
        DangerousChangeType.ARG_DEFAULT_VALUE_CHANGE,
    ):
        # Nobody sent the new argument, and the default reaches those who send none: the
        # field's every reader is concerned.
        return (field,)
    if change.type is BreakingChangeType.ARG_CHANGED_KIND and argument:
        # An argument made required breaks the field's readers who did not send it, too.
        return (field,) if _required(new, *argument.groups()) else (place,)
    if change.type is BreakingChangeType.REQUIRED_INPUT_FIELD_ADDED:
        # The input type's every sender: the arguments and input fields of that type.
        input_type = place.partition(".")[0]
        return (f"{input_type}.", *_inputs_of_type(old, input_type))
    if place.startswith("@") or "." in place:
        return (place,)
    return (f"{place}.",)  # a type: its every member


def _required(schema: GraphQLSchema, type_name: str, field_name: str, arg_name: str) -> bool:
    named = schema.get_type(type_name)
    if not isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
        return False
    field = named.fields.get(field_name)
    arg = field.args.get(arg_name) if field else None
    return arg is not None and is_required_argument(arg)


def _inputs_of_type(schema: GraphQLSchema, input_type: str) -> list[str]:
    """The coordinates of `schema` whose value is of the input type `input_type`."""
    found: list[str] = []
    for type_name, named in schema.type_map.items():
        if isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
            for field_name, field in named.fields.items():
                found.extend(
                    f"{type_name}.{field_name}({arg_name}:)"
                    for arg_name, arg in field.args.items()
                    if get_named_type(arg.type).name == input_type
                )
        elif isinstance(named, GraphQLInputObjectType):
            found.extend(
                f"{type_name}.{field_name}"
                for field_name, input_field in named.fields.items()
                if get_named_type(input_field.type).name == input_type
            )
    return found
