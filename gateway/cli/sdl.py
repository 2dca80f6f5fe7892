"""The printed schema in a reader's order: the schema definition and the root types first
(`Query`, `Mutation`, `Subscription`), then every other definition as strawberry prints it
(by name)."""

from __future__ import annotations

import re

from graphql import GraphQLSchema

# A top-level definition starts at column 0 after a blank line: its description (a string)
# or its keyword. Fields and a description's own lines are indented or follow no blank line.
_DEFINITION_START = re.compile(
    r'\n\n(?=(?:"|type |input |enum |scalar |union |interface |schema |directive |extend ))'
)
_DEFINED_NAME = re.compile(r"^(?:type|input|enum|scalar|union|interface) (\w+)", re.M)


def entry_points_first(printed: str, schema: GraphQLSchema) -> str:
    """`printed` (strawberry's SDL of `schema`) with an explicit schema definition and the
    root operation types moved to the top; every definition is kept byte for byte."""
    roots = [
        (operation, root.name)
        for operation, root in (
            ("query", schema.query_type),
            ("mutation", schema.mutation_type),
            ("subscription", schema.subscription_type),
        )
        if root is not None
    ]
    definitions = _DEFINITION_START.split(printed.strip("\n"))
    by_name = {_name(definition): definition for definition in definitions}
    root_names = [name for _, name in roots]
    first = [by_name[name] for name in root_names if name in by_name]
    rest = [definition for definition in definitions if _name(definition) not in root_names]
    schema_definition = "schema {\n" + "".join(f"  {op}: {name}\n" for op, name in roots) + "}"
    return "\n\n".join([schema_definition, *first, *rest])


def _name(definition: str) -> str | None:
    match = _DEFINED_NAME.search(definition)
    return match.group(1) if match else None
