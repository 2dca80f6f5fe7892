"""Validation of a document's compact form (schema/extensions/compact_validation.py) gives
the document's own verdict and errors, for hand-picked traps and generated documents."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import GraphQLError, parse, print_ast, specified_rules
from hypothesis import HealthCheck, given, settings
from strawberry.schema.schema import validate_document

from schema.extensions.compact_validation import compacted, validate_compacted
from schema.root import build_schema
from tests.gateway.hostile_inputs import EXAMPLES, STRUCTURED

SCHEMA = build_schema()._schema
RULES = tuple(specified_rules)
U = "id payday { nextDate } alert { alertSent }"
#: Each would be valid if its repetitions were all it took: the compact form must not hide
#: an error the whole document has.
TRAPS = [
    # A duplicate beside a field that conflicts with it.
    '{ viewer { id } viewer { id } viewer: user(id: "u-2") { id } }',
    # Two aliases of one name, a field answering under the second elsewhere.
    f"{{ a: viewer {{ {U} }} b: viewer {{ {U} }} b: viewer {{ id: lowBalanceAlert }} }}",
    # The same, the conflict through a fragment.
    f"{{ a: viewer {{ {U} }} b: viewer {{ {U} }} ...F }} "
    'fragment F on Query { b: user(id: "x") { id } }',
    # Identical subscriptions' root fields: one response name, one field; two names, two.
    'subscription { userChanged(ids: ["u-1"]) { id } userChanged(ids: ["u-1"]) { id } }',
    'subscription { a: userChanged(ids: ["u-1"]) { id } b: userChanged(ids: ["u-1"]) { id } }',
    # An error in every copy: reported once per copy, at each copy's location.
    "{ viewer { nope } viewer { nope } viewer { nope } }",
    "{ a: viewer { nope } b: viewer { nope } }",
    # Copies with an unknown directive, with an unused variable, with a wrong argument.
    '{ viewer { id @defer(label: "x") } viewer { id @defer(label: "x") } }',
    "query($v: Int) { a: viewer { id } b: viewer { id } }",
    '{ a: user(id: 1.5) { id } b: user(id: "u") { id } }',
    # A variable only in a spread's directive (the generated documents found it).
    "{ ...F @include(if: $b) } fragment F on Query { viewer { id } }",
    "query($b: Boolean!) { a: viewer { id } b: viewer { id } }",
    # Nothing to compact.
    "{ viewer { id } }",
    # Valid, and compacted.
    f"{{ {' '.join(f'a{n}: viewer {{ {U} }}' for n in range(30))} }}",
    "{ viewer { " + "...F " * 400 + "} } fragment F on User { id }",
]


def same_errors(document: Any) -> tuple[list[GraphQLError], list[GraphQLError]]:
    return (
        validate_document(SCHEMA, document, RULES),
        validate_compacted(validate_document, SCHEMA, document, RULES),
    )


@pytest.mark.parametrize("query", TRAPS)
def test_the_compact_verdict_is_the_documents(query: str) -> None:
    whole, compact = same_errors(parse(query))
    assert [e.formatted for e in compact] == [e.formatted for e in whole]


def test_repetition_is_validated_once() -> None:
    compact = compacted(parse(TRAPS[-1]))
    assert compact is not None
    assert print_ast(compact) == "{\n  viewer {\n    ...F\n  }\n}\n\nfragment F on User {\n  id\n}"
    aliases = compacted(parse(TRAPS[-2]))
    assert aliases is not None
    assert print_ast(aliases).count("nextDate") == 1
    assert print_ast(aliases).count("__typename") == 29
    assert validate_document(SCHEMA, aliases, RULES) == []


def test_a_document_with_nothing_to_compact_is_validated_as_it_is() -> None:
    assert compacted(parse("{ a: viewer { id } b: viewer { lowBalanceAlert } }")) is None


@settings(max_examples=EXAMPLES * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query=STRUCTURED)
def test_generated_documents_have_the_same_errors(query: str) -> None:
    try:
        document = parse(query)
    except GraphQLError:
        return
    whole, compact = same_errors(document)
    assert [e.formatted for e in compact] == [e.formatted for e in whole]
