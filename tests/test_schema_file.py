"""schema.graphql at the root is the printed schema: a schema change must update it."""

from __future__ import annotations

from pathlib import Path

from graphql import build_ast_schema, parse

from gateway.cli.main import schema_sdl

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "schema.graphql"


def test_schema_graphql_is_the_printed_schema() -> None:
    printed = schema_sdl()
    committed = SCHEMA_FILE.read_text()

    assert committed == printed, (
        "schema.graphql differs from the schema: review the change, then run `make schema` "
        "(insight-gateway schema > schema.graphql) and commit it"
    )


def test_the_printed_schema_has_the_contracts_entry_points() -> None:
    printed = schema_sdl()
    # Described arguments print on lines of their own: compare one line per field.
    query = build_ast_schema(parse(printed)).query_type
    assert query is not None
    fields = {
        f"{name}({', '.join(f'{a}: {arg.type}' for a, arg in field.args.items())}): {field.type}"
        if field.args
        else f"{name}: {field.type}"
        for name, field in query.fields.items()
    }

    assert "type Query {" in printed
    for entry in ("user(id: ID!): User", "users(ids: [ID!]!): [User]!", "viewer: User!"):
        assert entry in fields
