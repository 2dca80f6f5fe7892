"""Each kind of change names the coordinates whose readers it can break, as field usage
counts them (gateway/cli/schema_changes.py), on a tiny schema."""

from __future__ import annotations

import pytest
from graphql import build_schema

from gateway.cli.field_readers import Reader, Usage
from gateway.cli.schema_changes import schema_changes
from gateway.cli.schema_check import check

OLD = """
type Query {
  items(first: Int, filter: Filter, order: Order = ASC, tag: String = "a"): [Item]
  legacy: Legacy
}
type Legacy { code: String }
type Item { id: ID name: String }
input Filter { name: String }
enum Order { ASC DESC }
directive @cached on FIELD
"""


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # A type removed: every member of it.
        (
            "  legacy: Legacy\n}\ntype Legacy { code: String }\n",
            "}\n",
            {
                ("Query.legacy", "FIELD_REMOVED"): ("Query.legacy",),
                ("Legacy", "TYPE_REMOVED"): ("Legacy.",),
            },
        ),
        # A required argument added: nobody sent it, every reader of the field breaks.
        (
            "first: Int,",
            "first: Int, after: ID!,",
            {("Query.items(after:)", "REQUIRED_ARG_ADDED"): ("Query.items",)},
        ),
        # Made required: the readers who did not send it break too.
        (
            "first: Int,",
            "first: Int!,",
            {("Query.items(first:)", "ARG_CHANGED_KIND"): ("Query.items",)},
        ),
        # Narrowed but still defaulted: only those who send it.
        (
            'tag: String = "a"',
            'tag: ID = "a"',
            {("Query.items(tag:)", "ARG_CHANGED_KIND"): ("Query.items(tag:)",)},
        ),
        # A new default reaches those who send none: the field's readers.
        (
            "order: Order = ASC",
            "order: Order = DESC",
            {("Query.items(order:)", "ARG_DEFAULT_VALUE_CHANGE"): ("Query.items",)},
        ),
        # A required input field: whoever sends that input, by literal or argument.
        (
            "input Filter { name: String }",
            "input Filter { name: String kind: String! }",
            {("Filter.kind", "REQUIRED_INPUT_FIELD_ADDED"): ("Filter.", "Query.items(filter:)")},
        ),
        (
            "enum Order { ASC DESC }",
            "enum Order { ASC }",
            {("Order.DESC", "VALUE_REMOVED_FROM_ENUM"): ("Order.DESC",)},
        ),
        ("directive @cached on FIELD\n", "", {("@cached", "DIRECTIVE_REMOVED"): ("@cached",)}),
        (
            "type Item { id: ID name: String }",
            "type Item { id: ID name: String size: Int }",
            {("Item.size", "FIELD_ADDED"): ()},
        ),
    ],
)
def test_a_change_touches_the_coordinates_whose_readers_it_breaks(
    old: str, new: str, expected: dict[tuple[str, str], tuple[str, ...]]
) -> None:
    assert OLD.count(old) == 1
    changes = schema_changes(build_schema(OLD), build_schema(OLD.replace(old, new)))

    assert {(c.coordinate, c.name): c.touches for c in changes} == expected


def test_readers_of_several_coordinates_add_up_per_client_and_version() -> None:
    usage = Usage(
        {
            "Legacy.code": [Reader("ios", "7.1", 3), Reader("web", "", 1)],
            "Query.legacy": [Reader("ios", "7.1", 3)],
            "Legacyish.code": [Reader("ios", "7.1", 5)],
        },
        operations=10,
    )

    assert usage.of(["Legacy.", "Query.legacy"]) == [Reader("ios", "7.1", 6), Reader("web", "", 1)]
    assert usage.of(["Query.items"]) == []


def test_a_dangerous_change_is_safe_but_names_its_readers() -> None:
    new = OLD.replace("order: Order = ASC", "order: Order = DESC")
    usage = Usage({"Query.items": [Reader("web", "2.0", 4)]}, operations=8)

    (changed,) = check(build_schema(OLD), build_schema(new), usage, threshold=100)

    assert (changed.change.kind, changed.verdict, changed.allowed) == ("dangerous", "safe", None)
    assert changed.readers == [Reader("web", "2.0", 4)]
    assert changed.share == 0.5
