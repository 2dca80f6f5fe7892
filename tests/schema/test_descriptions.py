"""The schema reads as its own reference: every type, field, argument, input field and enum
value has a description (GraphiQL's docs pane shows them), in the plain schema and in the
subgraph; only what strawberry generates for federation is left as it comes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    is_introspection_type,
    is_specified_directive,
    is_specified_scalar_type,
)

from schema.root import build_schema

#: What strawberry.federation.Schema adds: the `_Any`, `_Entity` and `_Service` types, the
#: `_entities` and `_service` fields, the `link__`/`federation__` imports, and the
#: directives it declares for the subgraph, `@key` and `@link`.
FEDERATION_PREFIXES = ("_", "link__", "federation__")
FEDERATION_DIRECTIVES = frozenset({"key", "link"})


def _is_federations(name: str) -> bool:
    return name.startswith(FEDERATION_PREFIXES)


def described_places(schema: GraphQLSchema) -> Iterator[tuple[str, str | None]]:
    """Every place of the schema that takes a description, as (schema coordinate, text)."""
    for name, named in schema.type_map.items():
        if is_introspection_type(named) or is_specified_scalar_type(named):
            continue
        if _is_federations(name):
            continue
        yield name, named.description
        yield from _members(name, named)
    for directive in schema.directives:
        if is_specified_directive(directive) or directive.name in FEDERATION_DIRECTIVES:
            continue
        if not _is_federations(directive.name):
            yield f"@{directive.name}", directive.description
            for arg_name, arg in directive.args.items():
                yield f"@{directive.name}({arg_name}:)", arg.description


def _members(name: str, named: GraphQLNamedType) -> Iterator[tuple[str, str | None]]:
    if isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
        for field_name, field in named.fields.items():
            if _is_federations(field_name):
                continue
            yield f"{name}.{field_name}", field.description
            for arg_name, arg in field.args.items():
                yield f"{name}.{field_name}({arg_name}:)", arg.description
    elif isinstance(named, GraphQLInputObjectType):
        for field_name, input_field in named.fields.items():
            yield f"{name}.{field_name}", input_field.description
    elif isinstance(named, GraphQLEnumType):
        for value_name, value in named.values.items():
            yield f"{name}.{value_name}", value.description


@pytest.mark.parametrize("federation", [False, True], ids=["plain", "subgraph"])
def test_every_type_field_argument_and_value_is_described(federation: bool) -> None:
    schema = build_schema(federation=federation)._schema

    places = dict(described_places(schema))
    undescribed = sorted(place for place, text in places.items() if not (text or "").strip())

    assert len(places) > 200
    assert undescribed == [], f"describe these in schema/*.py: {undescribed}"


def test_the_walk_finds_an_undescribed_place() -> None:
    from graphql import build_schema as from_sdl

    schema = from_sdl(
        '"""Q""" type Query { """f""" f(a: Int): E } enum E { """A""" A B } input I { x: Int }'
    )

    undescribed = sorted(p for p, text in described_places(schema) if not text)

    assert undescribed == ["E", "E.B", "I", "I.x", "Query.f(a:)"]
