"""`insight-gateway schema [--federation]`: the plain SDL, or the subgraph's for a router."""

from __future__ import annotations

import re

import pytest
from graphql import build_ast_schema, lexicographic_sort_schema, parse, print_schema

from gateway.cli.main import main, schema_sdl
from gateway.cli.sdl import entry_points_first
from schema.root import build_schema


def test_schema_federation_prints_the_subgraph_sdl(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--federation"]) == 0

    printed = capsys.readouterr().out
    assert printed == schema_sdl(federation=True)
    assert '@link(url: "https://specs.apollo.dev/federation/v2.0", import: ["@key"])' in printed
    assert 'type User @key(fields: "id") {' in printed
    assert "_entities(representations: [_Any!]!): [_Entity]!" in printed


def test_schema_without_the_flag_is_the_plain_sdl(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0

    printed = capsys.readouterr().out
    assert printed == schema_sdl()
    assert "@key" not in printed
    assert "_service" not in printed


def test_schema_prints_its_entry_points_first_then_the_same_types() -> None:
    printed = schema_sdl()
    built = build_schema()

    # The schema definition, then the root types, each with its description.
    heads = [line for line in printed.splitlines() if re.match(r"(schema|type|input|enum)\b", line)]
    assert heads[:3] == ["schema {", "type Query {", "type Mutation {"]
    assert printed.startswith("schema {\n  query: Query\n  mutation: Mutation\n}\n\n")
    # Nothing but the order changed: the same definitions, byte for byte, the same schema.
    assert sorted(printed.strip().split("\n\n")[1:]) == sorted(built.as_str().strip().split("\n\n"))
    assert print_schema(lexicographic_sort_schema(build_ast_schema(parse(printed)))) == (
        print_schema(lexicographic_sort_schema(built._schema))
    )


def test_a_subscription_root_comes_after_the_mutation_root() -> None:
    sdl = '"""Z."""\ntype Zeta {\n  a: Int\n}\n\ntype Mutation {\n  m: Int\n}\n\n' + (
        "type Query {\n  q: Int\n}\n\ntype Subscription {\n  s: Int\n}"
    )
    graphql_schema = build_ast_schema(parse(sdl))

    ordered = entry_points_first(sdl, graphql_schema)

    assert ordered.split("\n\n") == [
        "schema {\n  query: Query\n  mutation: Mutation\n  subscription: Subscription\n}",
        "type Query {\n  q: Int\n}",
        "type Mutation {\n  m: Int\n}",
        "type Subscription {\n  s: Int\n}",
        '"""Z."""\ntype Zeta {\n  a: Int\n}',
    ]
