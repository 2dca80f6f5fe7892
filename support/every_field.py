"""The selection of every field of a type, down to the leaves: the "full User" query of the
benchmark and of the tests that compare the access plans."""

from __future__ import annotations

from graphql import GraphQLObjectType, GraphQLSchema, get_named_type


def every_field(schema: GraphQLSchema, type_name: str) -> str:
    """`{ a b { c } ... }` for `type_name`, every argument at its default."""
    named = schema.get_type(type_name)
    if not isinstance(named, GraphQLObjectType):
        raise ValueError(f"{type_name} is not an object type")
    return _selection(named)


def _selection(object_type: GraphQLObjectType) -> str:
    parts = []
    for name, field in object_type.fields.items():
        inner = get_named_type(field.type)
        parts.append(
            f"{name} {_selection(inner)}" if isinstance(inner, GraphQLObjectType) else name
        )
    return "{ " + " ".join(parts) + " }"
