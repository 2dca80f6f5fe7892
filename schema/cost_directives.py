"""The gateway's cost model as `@cost` and `@listSize` (https://specs.apollo.dev/cost/v0.1, the
IBM GraphQL cost specification) on the federation subgraph's SDL, for routers' demand control.

Derived from the `CostPolicy` that `INSIGHT_MAX_QUERY_COST` measures with (never written by
hand), so that the two cannot drift. A router's static estimate (Apollo Router's, Hive
Router's) of a field is `size * (weight + selections) + arguments`, where `weight` is 1 for an
object and 0 for a scalar unless `@cost` says otherwise, and `size` is 1 for a single value
and a list's `@listSize` (its slicing argument's value, else `assumedSize`). The gateway's
measure of a field is `multiplier * (own cost + selections)`. So, field by field:

- `@cost(weight: own cost)` where the own cost is not the router's default (the root
  fields cost 0, a `User` scalar field 1, any object field outside `User` and `Mutation` 0);
- on a list, `@listSize(slicingArguments: [...])` for its integer multiplier arguments
  (`limit`, `months`), or `@listSize(assumedSize: ...)`: the policy's unknown size (100) for
  a list multiplied by a list argument (`users(ids:)`: the specification allows only Int
  slicing arguments), and 1 for an unbounded list, which the gateway reads with one Query
  whatever its length;
- `@cost(weight: 0)` on every argument and input field of an input-object type, which a
  router would otherwise charge 1 per object sent.

Two differences stay, by design (docs/cost-directives.md): `users(ids:)` is estimated at 100
ids (the most a request may send) however many it names, and a router adds 10 to every
mutation operation.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import strawberry
from graphql import (
    GraphQLArgument,
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    get_named_type,
    get_nullable_type,
    is_list_type,
)
from strawberry.federation.schema_directives import Link
from strawberry.federation.types import LinkImport
from strawberry.schema_directive import Location
from strawberry.types.unset import UNSET

from schema.execution.plan import STRAWBERRY_DEFINITION
from schema.extensions import CostPolicy
from schema.graphql_schema import graphql_schema

COST_SPEC_URL = "https://specs.apollo.dev/cost/v0.1"


@strawberry.schema_directive(
    locations=[
        Location.ARGUMENT_DEFINITION,
        Location.ENUM,
        Location.FIELD_DEFINITION,
        Location.INPUT_FIELD_DEFINITION,
        Location.OBJECT,
        Location.SCALAR,
    ],
    name="cost",
    print_definition=False,
)
class Cost:
    weight: int


@strawberry.schema_directive(
    locations=[Location.FIELD_DEFINITION], name="listSize", print_definition=False
)
class ListSize:
    assumed_size: int | None = strawberry.directive_field(name="assumedSize", default=UNSET)
    slicing_arguments: list[str] | None = strawberry.directive_field(
        name="slicingArguments", default=UNSET
    )


def cost_link() -> Link:
    """The schema's `@link` to the cost specification, importing both directives."""
    return Link(url=COST_SPEC_URL, import_=[LinkImport("@cost"), LinkImport("@listSize")])


class CostModelError(Exception):
    """A field the policy multiplies in a way the specification cannot say."""


@dataclass(frozen=True, slots=True)
class Placement:
    """Directives for one coordinate: a field, an argument or an input field."""

    coordinate: str
    directives: tuple[object, ...]
    target: GraphQLField | GraphQLArgument | GraphQLInputField


def cost_directives(schema: GraphQLSchema, policy: CostPolicy) -> list[Placement]:
    """Every directive the policy implies for `schema`, with where it goes."""
    return list(_placements(schema, policy))


def _placements(schema: GraphQLSchema, policy: CostPolicy) -> Iterator[Placement]:
    for type_name, named in sorted(schema.type_map.items()):
        if type_name.startswith("_"):
            continue  # introspection and federation's own types (_Service, _Entity, _Any)
        if named is schema.subscription_type:
            # An event is one User whatever `ids` holds (no list for @listSize to size), and
            # the gateway charges each re-read to its subscriber (docs/subscriptions.md).
            continue
        if isinstance(named, GraphQLObjectType):
            for field_name, field in named.fields.items():
                if field_name.startswith("_"):
                    continue  # _service, _entities: the router's, never a client's
                coordinate = f"{type_name}.{field_name}"
                directives = _field_directives(coordinate, field, policy, type_name, field_name)
                if directives:
                    yield Placement(coordinate, directives, field)
                for arg_name, argument in field.args.items():
                    if isinstance(get_named_type(argument.type), GraphQLInputObjectType):
                        yield Placement(f"{coordinate}({arg_name}:)", (Cost(weight=0),), argument)
        elif isinstance(named, GraphQLInputObjectType):
            for field_name, input_field in named.fields.items():
                if isinstance(get_named_type(input_field.type), GraphQLInputObjectType):
                    yield Placement(f"{type_name}.{field_name}", (Cost(weight=0),), input_field)


def _field_directives(
    coordinate: str, field: GraphQLField, policy: CostPolicy, type_name: str, field_name: str
) -> tuple[object, ...]:
    directives: list[object] = []
    own = policy.own_cost(type_name, field_name, field)
    leaf = isinstance(get_named_type(field.type), GraphQLScalarType | GraphQLEnumType)
    if own != (0 if leaf else 1):
        directives.append(Cost(weight=own))
    multipliers = [name for name in field.args if name in policy.multiplier_arguments]
    if not is_list_type(get_nullable_type(field.type)):
        if multipliers:
            raise CostModelError(
                f"{coordinate} is multiplied by {multipliers} but is not a list: "
                "@listSize cannot say so"
            )
        return tuple(directives)
    slicing = [
        name
        for name in multipliers
        if getattr(get_nullable_type(field.args[name].type), "name", None) == "Int"
    ]
    sized_by_list = [name for name in multipliers if name not in slicing]
    if len(slicing) > 1 or (slicing and sized_by_list):
        # A router takes the largest slicing argument; the policy multiplies them.
        raise CostModelError(f"{coordinate} is multiplied by several arguments: {multipliers}")
    if slicing:
        directives.append(ListSize(slicing_arguments=slicing))
    else:
        assumed = policy.unknown_list_size if sized_by_list else 1
        directives.append(ListSize(assumed_size=assumed))
    return tuple(directives)


def add_cost_directives(strawberry_schema: Any, policy: CostPolicy) -> None:
    """Put the policy's directives on `strawberry_schema`'s printed SDL (`_service { sdl }`),
    and link the cost specification.

    strawberry prints a field's or argument's directives from its definition (the
    `strawberry-definition` back-reference of the graphql-core object). Those definitions
    are shared with the plain schema, so each one that gets directives is replaced, in this
    schema only, by a copy that carries them.
    """
    for placement in cost_directives(graphql_schema(strawberry_schema), policy):
        target = placement.target
        extensions = dict(target.extensions or {})
        definition = extensions.get(STRAWBERRY_DEFINITION)
        if definition is None:
            raise CostModelError(f"{placement.coordinate} has no strawberry definition")
        with_directives = copy.copy(definition)
        with_directives.directives = [*definition.directives, *placement.directives]
        extensions[STRAWBERRY_DEFINITION] = with_directives
        target.extensions = extensions
    strawberry_schema.schema_directives = [*strawberry_schema.schema_directives, cost_link()]
