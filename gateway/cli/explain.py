"""`insight-gateway explain`: what the gateway does with one document's operation.

It prints the operation's compiled form, as the gateway keeps it for the document: each root
field, the users it answers, its access plan (the User fields it reads and whether, for the
given variables, each user's partition is read whole), its planned reads in the order they
are asked for before the one wait, and the generated functions that complete the answer.
An operation that does not compile says why: graphql-core answers it, field by field.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from graphql import (
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    parse,
    print_ast,
    validate,
)
from graphql.execution import get_variable_values

from gateway.settings import Settings
from schema.execution.compiler import compiled_or_why
from schema.execution.operation import MANY, NAME, CompiledOperation
from schema.graphql_schema import graphql_schema
from schema.plan_prices import PRICES, Prices
from schema.root import build_schema

COMPILED, DECLINED, BAD_USAGE = 0, 1, 2
EXIT_CODES = (
    "exit codes: 0 the operation compiles, 1 it does not (graphql-core answers it), 2 bad "
    "usage, or a document or variables the schema refuses"
)
ANSWERS = {NAME: "the root type's name", MANY: "a list of users"}


def add_explain_command(commands: Any) -> None:
    explain = commands.add_parser(
        "explain",
        help="print an operation's compiled form: its reads and its generated completion",
        description=__doc__,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    explain.add_argument("document", metavar="FILE", help="the GraphQL document; - reads stdin")
    explain.add_argument("--operation-name", default=None, help="the operation to explain")
    explain.add_argument(
        "--variables",
        default="{}",
        metavar="JSON",
        help="the variables, as a request sends them (they choose @include/@skip and the plan)",
    )
    explain.set_defaults(run=run_explain)


def run_explain(args: argparse.Namespace, settings: Settings) -> int:
    text = sys.stdin.read() if args.document == "-" else Path(args.document).read_text()
    try:
        variables = json.loads(args.variables)
        print(explain(text, args.operation_name, variables, settings.plan_prices), end="")
    except (GraphQLError, ValueError) as error:
        print(f"insight-gateway explain: {error}", file=sys.stderr)
        return BAD_USAGE
    except Declined as declined:
        print(declined.text, end="")
        return DECLINED
    return COMPILED


class Declined(Exception):
    def __init__(self, text: str) -> None:
        self.text = text


def explain(
    text: str, operation_name: str | None, variables: dict[str, Any], prices: Prices = PRICES
) -> str:
    """The explanation (the access plan at `prices`, the settings' `INSIGHT_PRICE_*`);
    raises `Declined` (with it) when the operation does not compile."""
    schema: GraphQLSchema = graphql_schema(build_schema())
    document = parse(text)
    errors = validate(schema, document)
    if errors:
        raise ValueError("; ".join(error.message for error in errors))
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    chosen = [
        o
        for o in operations
        if operation_name is None or (o.name and o.name.value == operation_name)
    ]
    if len(chosen) != 1:
        raise ValueError("name one operation of the document with --operation-name")
    [operation] = chosen
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    coerced = get_variable_values(schema, operation.variable_definitions or (), variables)
    if isinstance(coerced, list):
        raise ValueError("; ".join(error.message for error in coerced))
    name = operation.name.value if operation.name else "(anonymous)"
    compiled = compiled_or_why(schema, operation, fragments, coerced)
    if not isinstance(compiled, CompiledOperation):
        raise Declined(
            f"{operation.operation.value} {name}: not compiled ({compiled}); graphql-core "
            "answers it, field by field\n"
        )
    return _printed(operation, name, compiled, coerced.coerced, prices)


def _printed(
    operation: OperationDefinitionNode,
    name: str,
    compiled: CompiledOperation,
    variables: dict[str, Any],
    prices: Prices,
) -> str:
    kind = "a re-read of a changed user" if compiled.reread else operation.operation.value
    lines = [f"{kind} {name}: compiled, {len(compiled.roots)} root field(s)"]
    for root in compiled.roots:
        answers = ANSWERS.get(root.answers, "one user")
        field_name = root.node.name.value
        named = (
            root.response_name
            if root.response_name == field_name
            else (f"{root.response_name}: {field_name}")
        )
        lines.append(f"\n{named}, {answers}")
        if root.answers == NAME:
            continue
        fields = ", ".join(field for field, _ in root.user_fields)
        whole = root.reads_partitions_whole(variables, prices)
        plan = "each user's partition read whole" if whole else "field by field"
        lines.append(f"  access plan: {plan} (User fields: {fields})")
        lines.append("  planned reads, asked together before the one wait:")
        lines.extend(f"    {print_ast(field.node).split(' {')[0]}" for field in root.planned)
        lines.append("  completion:")
        source = root.user.source if root.user is not None else ""
        lines.extend(f"    {line}" if line else "" for line in source.splitlines())
    return "\n".join(lines) + "\n"
